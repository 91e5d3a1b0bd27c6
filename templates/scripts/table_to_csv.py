"""Export a tsv/csv table as comma-separated values (Snakemake script).

Input: table (tsv or csv, separator sniffed). Output: csv (RFC 4180: comma-separated, fields
quoted only when needed, UTF-8, '\n' line ends). Cell text is copied unchanged, but for a cell a
spreadsheet would run as a formula (CSV injection: text from the inputs, a gene name, a gene set's
name or a condition level starting with '=', '+', '-', '@', a tab or a carriage return, that is not
a number), which gets a leading "'" as OWASP advises: the spreadsheet then shows it as text.
"""

import csv

import bioplan_step
from bioplan_step import LOG, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell):
    """The cell as a spreadsheet shows it as text: a leading "'" before a formula start (numbers stay)."""
    if not isinstance(cell, str) or len(cell) < 2 or not cell.startswith(FORMULA_STARTS):
        return cell  # a lone '+' or '-' (a strand) is text to a spreadsheet
    try:
        float(cell)
        return cell
    except ValueError:
        return "'" + cell


def main():
    table = read_table(snakemake.input.table, "input table")
    table.columns = [inert(c) for c in table.columns]
    formulas = int(table.map(lambda c: inert(c) is not c).to_numpy().sum())
    table = table.map(inert)
    if formulas:
        LOG.warning("%d cell(s) would run as spreadsheet formulas: written with a leading \"'\"", formulas)
    table.to_csv(snakemake.output.csv, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    LOG.info("wrote %d rows x %d columns as csv", table.shape[0], table.shape[1])


main()
