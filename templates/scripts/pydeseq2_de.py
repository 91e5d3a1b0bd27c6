"""PyDESeq2 differential expression (Snakemake script).

Inputs: counts (genes x samples, first column = gene id, tsv/csv), samples (tsv/csv with a
`sample` column and the condition column). Output: table (tsv) with gene_id, baseMean,
log2FoldChange, lfcSE, stat, pvalue, padj for test_level vs reference_level, sorted by padj
(NA last) then gene_id.
Params: condition_column, reference_level (None: control/ctrl/untreated/wt/... if present,
else the first level alphabetically), test_level (None: first other level), alpha, lfc_threshold
(log2; above 0 the Wald test asks whether |log2FC| exceeds it, DESeq2's lfcThreshold). A level named
in another case or spelling ('wt' for 'WT', 'wild type' for 'wild_type') is that level.
"""

import bioplan_step
from bioplan_step import LOG, distinct_levels, estimated_counts, fail, read_table, same_level

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
bioplan_step.limit_threads(snakemake.threads, blas=1)  # noqa: F821 (before numpy: PyDESeq2 parallelises by gene)

import pandas as pd


REFERENCE_NAMES = ("control", "ctrl", "untreated", "wt", "wildtype", "wild_type", "normal", "vehicle", "mock")


def read_samples(path, condition_column):
    meta = read_table(path, "sample metadata")
    by_lower = {c.lower(): c for c in meta.columns}
    if "sample" not in by_lower:
        fail(f"the sample metadata '{path}' has no 'sample' column (columns: {', '.join(meta.columns)}). "
             "Name the column holding the sample names 'sample'.")
    if condition_column not in meta.columns:
        fail(f"the sample metadata '{path}' has no column '{condition_column}' (columns: "
             f"{', '.join(meta.columns)}). Set params.condition_column to the column holding the groups.")
    meta = meta.rename(columns={by_lower["sample"]: "sample"})
    meta["sample"] = meta["sample"].str.strip()
    meta[condition_column] = meta[condition_column].str.strip()
    if meta["sample"].duplicated().any():
        fail(f"sample names repeat in '{path}': {sorted(set(meta.loc[meta['sample'].duplicated(), 'sample']))}.")
    empty = meta.loc[meta[condition_column] == "", "sample"].tolist()
    if empty:
        fail(f"samples {empty} have no value in column '{condition_column}' of '{path}'.")
    return meta


def read_counts(path, samples):
    table = read_table(path, "count matrix")
    gene_col = table.columns[0]
    missing = [s for s in samples if s not in table.columns]
    if missing:
        fail(f"samples {missing} of the sample metadata are not columns of the count matrix '{path}' "
             f"(its columns: {', '.join(table.columns[1:])}). Sample names must match exactly.")
    extra = [c for c in table.columns[1:] if c not in samples]
    if extra:
        LOG.warning("ignoring count matrix columns not in the sample metadata: %s", ", ".join(extra))
    genes = table[gene_col].str.strip()
    if genes.duplicated().any():
        fail(f"gene ids repeat in the first column of '{path}', e.g. {genes[genes.duplicated()].iloc[0]!r}.")
    values = table[samples].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values.index = genes
    fractional = (values - values.round()).abs() > 1e-6
    bad = values.isna() | (values < 0) | fractional
    if fractional.to_numpy().any() and not (values.isna() | (values < 0)).to_numpy().any():
        estimated, because = estimated_counts(values, path)
        if estimated:  # DESeq2's advice for estimated counts (nf-core/differentialabundance rounds them too)
            LOG.warning("%d non-integer values read as estimated counts (%s): rounded to whole numbers",
                        int(fractional.to_numpy().sum()), because)
            bad = values.isna()
    if bad.to_numpy().any():
        gene, sample = bad.stack()[lambda s: s].index[0]
        fail(f"'{path}' holds a value that is not a raw count: gene {gene}, sample {sample}, value "
             f"{table.loc[genes == gene, sample].iloc[0]!r}. DESeq2 needs non-negative integer counts "
             "(featureCounts, STAR, HTSeq) or estimated counts (tximport's, nf-core/rnaseq's "
             "salmon.merged.gene_counts.tsv), not TPM/FPKM/normalized values.")
    return values.round().astype("int64")


def choose_levels(levels, reference, test):
    levels = distinct_levels(sorted(levels))
    if len(levels) < 2:
        fail(f"the condition column has a single level {levels}; two groups are needed for a comparison.")
    reference, test = same_level(reference, levels), same_level(test, levels)
    if reference is None:
        named = [lvl for lvl in levels if lvl.lower() in REFERENCE_NAMES]
        reference = named[0] if named else levels[0]
    elif reference not in levels:
        fail(f"reference_level {reference!r} is not a level of the condition column ({levels}).")
    others = [lvl for lvl in levels if lvl != reference]
    if test is None:
        test = others[0]
        if len(others) > 1:
            LOG.warning("several levels %s; comparing %r against %r (set params.test_level)", others, test, reference)
    elif test not in others:
        fail(f"test_level {test!r} is not a non-reference level of the condition column ({others}).")
    return reference, test


def main():
    from pydeseq2.dds import DeseqDataSet
    from pydeseq2.ds import DeseqStats

    params = snakemake.params
    condition = params.condition_column or "condition"
    meta = read_samples(snakemake.input.samples, condition)
    samples = meta["sample"].tolist()
    counts = read_counts(snakemake.input.counts, samples)
    reference, test = choose_levels(meta[condition].unique(), params.reference_level, params.test_level)
    LOG.info("%d genes x %d samples; contrast %s: %s vs %s", counts.shape[0], counts.shape[1], condition, test, reference)

    # Internal, formula-safe names: PyDESeq2 dislikes '_' and spaces in factor names and levels.
    codes = {lvl: f"g{i}" for i, lvl in enumerate(sorted(meta[condition].unique()))}
    design = pd.DataFrame({"condition": meta[condition].map(codes).to_numpy()}, index=samples)
    threads = bioplan_step.pydeseq2_workers(snakemake.threads, counts.size)
    common = dict(counts=counts.T, metadata=design, refit_cooks=True, n_cpus=threads, quiet=True)
    try:
        dds = DeseqDataSet(design="~condition", **common)  # PyDESeq2 >= 0.5
    except TypeError:
        dds = DeseqDataSet(design_factors="condition", ref_level=["condition", codes[reference]], **common)
    dds.deseq2()
    lfc = float(getattr(params, "lfc_threshold", 0) or 0)
    if not lfc >= 0:
        fail(f"lfc_threshold must be a log2 fold change >= 0, not {lfc}.")
    contrast = dict(contrast=["condition", codes[test], codes[reference]], alpha=float(params.alpha), quiet=True)
    if lfc > 0:  # the Wald test asks whether |log2FC| exceeds the threshold (DESeq2's lfcThreshold)
        LOG.info("testing |log2FoldChange| > %g (lfc_null, alt_hypothesis greaterAbs)", lfc)
        contrast.update(lfc_null=lfc, alt_hypothesis="greaterAbs")
    try:
        stats = DeseqStats(dds, n_cpus=threads, **contrast)
    except TypeError:  # PyDESeq2 versions without n_cpus on DeseqStats
        stats = DeseqStats(dds, **contrast)
    stats.summary()
    res = stats.results_df.reindex(columns=["baseMean", "log2FoldChange", "lfcSE", "stat", "pvalue", "padj"])
    res.insert(0, "gene_id", res.index.astype(str))
    res = res.reset_index(drop=True)
    res = res.sort_values(["padj", "gene_id"], na_position="last", kind="mergesort")
    res.to_csv(snakemake.output.table, sep="\t", index=False, float_format="%.6g", na_rep="NA")
    sig = res[res["padj"] < float(params.alpha)]
    LOG.info("%d genes with padj < %s (%d up, %d down in %s vs %s)", len(sig), params.alpha,
             int((sig["log2FoldChange"] > 0).sum()), int((sig["log2FoldChange"] < 0).sum()), test, reference)


main()
