"""Variance-stabilising transformation of a raw count matrix with PyDESeq2 (Snakemake script).

Input: counts (genes x samples raw counts, first column = gene id, tsv/csv; non-numeric columns
such as gene names are dropped). Output: normalized (tsv, same layout: gene_id then one column per
sample) holding DESeq2-style VST values on a log2-like scale, computed blind to the design
(median-of-ratios size factors, intercept-only dispersion trend). Non-integer counts (e.g. from
tximport) are rounded with a warning. Params: fit_type ("parametric" or "mean").
"""

import bioplan_step
from bioplan_step import LOG, annotation_columns, fail, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
bioplan_step.limit_threads(snakemake.threads, blas=1)  # noqa: F821 (before numpy: PyDESeq2 parallelises by gene)

import pandas as pd


def read_count_matrix(path):
    table = read_table(path, "count matrix")
    if table.shape[1] < 2:
        fail(f"'{path}' has a single column; expected a gene id column followed by one column per sample.")
    genes = table.iloc[:, 0].str.strip()
    if genes.duplicated().any():
        fail(f"gene ids repeat in the first column of '{path}', e.g. {genes[genes.duplicated()].iloc[0]!r}.")
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    text_cols = [c for c in values.columns if values[c].isna().all()]
    if text_cols:
        LOG.warning("dropping non-numeric columns: %s", ", ".join(text_cols))
        values = values.drop(columns=text_cols)
    annotation = annotation_columns(list(values.columns))
    if annotation:
        LOG.info("dropping numeric annotation columns (not samples): %s", ", ".join(annotation))
        values = values.drop(columns=annotation)
    if values.shape[1] < 2:
        fail(f"'{path}' has fewer than 2 numeric sample columns.")
    values.index = genes
    bad = values.isna() | (values < 0)
    if bad.to_numpy().any():
        gene, sample = bad.stack()[lambda s: s].index[0]
        fail(f"'{path}' holds a missing or negative value at gene {gene}, sample {sample}; counts must be >= 0.")
    return values


def main():
    from pydeseq2.dds import DeseqDataSet

    counts = read_count_matrix(snakemake.input.counts)
    fractional = ((counts - counts.round()).abs() > 1e-6).to_numpy().sum()
    if fractional:
        LOG.warning("%d non-integer values rounded (estimated counts?); the VST needs counts", fractional)
    counts = counts.round().astype("int64")
    if (counts.sum(axis=1) > 0).sum() < 2:
        fail("fewer than 2 genes have any counts; nothing to transform.")
    LOG.info("%d genes x %d samples", counts.shape[0], counts.shape[1])
    design = pd.DataFrame({"intercept": ["all"] * counts.shape[1]}, index=counts.columns)
    threads = bioplan_step.pydeseq2_workers(snakemake.threads, counts.size)
    dds = DeseqDataSet(counts=counts.T, metadata=design, design="~1", n_cpus=threads, quiet=True)
    dds.vst(use_design=False, fit_type=snakemake.params.fit_type or "parametric")
    vst = pd.DataFrame(dds.layers["vst_counts"], index=counts.columns, columns=counts.index).T
    vst.index.name = "gene_id"
    vst.reset_index().to_csv(snakemake.output.normalized, sep="\t", index=False, float_format="%.6g")
    LOG.info("wrote VST matrix (%s to %s)", f"{vst.min().min():.3f}", f"{vst.max().max():.3f}")


main()
