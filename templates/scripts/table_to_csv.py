"""Export a tsv/csv table as comma-separated values (Snakemake script).

Input: table (tsv or csv, separator sniffed). Output: csv (RFC 4180: comma-separated, fields
quoted only when needed, UTF-8, '\n' line ends). Cell text is copied unchanged.
"""

import csv

import bioplan_step
from bioplan_step import LOG, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


def main():
    table = read_table(snakemake.input.table, "input table")
    table.to_csv(snakemake.output.csv, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    LOG.info("wrote %d rows x %d columns as csv", table.shape[0], table.shape[1])


main()
