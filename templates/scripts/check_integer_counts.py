"""Precondition check: count matrices hold raw, non-negative integer counts (Snakemake script).

Runs before a step that needs raw counts (DESeq2, edgeR, limma-voom). Checks every input whose
datatype (params.datatypes) is raw_count_matrix: the first column is the gene id; every other
column that holds numbers is a sample column and each of its values must be a non-negative
integer (12 and 12.0 pass; columns with no number at all, e.g. gene names, are skipped), or the matrix holds
estimated counts (bioplan_step.estimated_counts: Salmon/kallisto/RSEM via tximport), which the DE step rounds. On
success writes the `ok` sentinel with a one-line summary; on failure names the file, the first
offending gene/sample/value, says what the values look like and what to do, and exits 1.
"""

import bioplan_step
from bioplan_step import LOG, annotation_columns, check_failed, estimated_counts, inputs_of, passed, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd


def check_matrix(path):
    table = read_table(path, "count matrix")
    if table.shape[1] < 2:
        check_failed(f"'{path}' has a single column; a count matrix has a gene id column and one column per sample.")
    genes = table.iloc[:, 0]
    raw = table.iloc[:, 1:].apply(lambda col: col.str.strip())
    values = raw.apply(lambda col: pd.to_numeric(col, errors="coerce"))
    text_cols = [c for c in values.columns if values[c].isna().all() and (raw[c] != "").any()]
    if text_cols:
        LOG.info("'%s': skipping annotation columns without numbers: %s", path, ", ".join(text_cols))
    annotation = annotation_columns(list(values.columns))
    if annotation:
        LOG.info("'%s': skipping numeric annotation columns: %s", path, ", ".join(annotation))
    values, raw = values.drop(columns=text_cols + annotation), raw.drop(columns=text_cols + annotation)
    if values.shape[1] == 0:
        check_failed(f"'{path}' has no numeric sample column.")
    missing = values.isna()
    negative = values < 0
    fractional = (values - values.round()).abs() > 1e-6
    bad = missing | negative | fractional
    estimated, because = (False, "")
    if fractional.to_numpy().any() and not (missing | negative).to_numpy().any():
        estimated, because = estimated_counts(values, path)
        if estimated:
            LOG.info("'%s': %d non-integer values read as estimated counts (%s): the DE step rounds them",
                     path, int(fractional.to_numpy().sum()), because)
            return values.shape, "estimated counts (Salmon/kallisto/RSEM via tximport), rounded by the DE step"
    if bad.to_numpy().any():
        row, col = np.argwhere(bad.to_numpy())[0]
        gene, sample, value = genes.iloc[row], values.columns[col], raw.iloc[row, col]
        n_frac, n_neg, total = int(fractional.to_numpy().sum()), int(negative.to_numpy().sum()), values.size
        if missing.iloc[row, col]:
            what = "is empty or not a number"
        elif negative.iloc[row, col]:
            what = "is negative"
        else:
            what = "is not an integer"
        looks = ("log-transformed or centred values" if n_neg else
                 "normalized values (TPM/FPKM/CPM or size-factor scaled counts" + (f": {because})" if because else ")"))
        check_failed(
            f"'{path}' is not a raw count matrix: gene '{gene}', sample '{sample}' has value '{value}', which {what} "
            f"({n_frac} of {total} values are fractional, {n_neg} negative). The values look like {looks}. "
            "Differential expression (DESeq2/edgeR/limma-voom) needs raw non-negative integer read counts: give the "
            "featureCounts/HTSeq/STAR GeneCounts matrix, or estimated counts (nf-core/rnaseq's "
            "salmon.merged.gene_counts.tsv, tximport's counts), instead of a normalized table.")
    return values.shape, "non-negative integer counts"


def main():
    summaries = []
    for name, path in inputs_of("raw_count_matrix", "counts"):
        (n_genes, n_samples), what = check_matrix(path)
        summaries.append(f"{name} '{path}': {n_genes} genes x {n_samples} samples of {what}")
    passed("; ".join(summaries))


main()
