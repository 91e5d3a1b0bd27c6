"""Pseudobulk differential expression between conditions, per cell type (counts summed per sample, PyDESeq2).

Snakemake `script:` step of tool `pydeseq2_pseudobulk` (operation pseudobulk_differential_expression).

input.adata    clustered AnnData (.h5ad): raw counts in layers["counts"] (the normalisation step
               keeps them there) or X, obs[sample_key], obs[condition_key], obs[cluster_key]
input.labels   optional: the cell-type annotation (TSV with cluster and cell_type columns); the
               cells are grouped by cell type when it is given, else by cluster
output.table   TSV: cell_type, gene_id, baseMean, log2FoldChange, lfcSE, stat, pvalue, padj,
               n_samples, n_cells -- one block per tested cell type, sorted by cell type, padj,
               gene
params         sample_key ("sample"), condition_key ("condition"), cluster_key ("leiden"),
               reference_level / test_level (None: control/ctrl/untreated/... if present, else the
               first level alphabetically; then the first other level), min_cells (10: cells a
               sample needs in a cell type to give it a pseudobulk profile), min_counts (10:
               summed counts a gene needs over a cell type's profiles), alpha (0.05)

Why pseudobulk: cells of one sample are not independent replicates; summing them per sample
and testing the samples (DESeq2) keeps the false-positive rate at its nominal level (Squair et
al. 2021; the scverse best-practice chapter "Differential gene expression analysis").
A cell type without two samples of each condition is skipped, and said so in the log.
"""

import os

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, distinct_levels, fail, read_h5ad, read_table, same_level

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads, blas=1)  # noqa: F821 (before numpy: PyDESeq2 parallelises by gene)

import numpy as np
import pandas as pd
from scipy import sparse

TOOL = "pydeseq2_pseudobulk"
REFERENCE_NAMES = ("control", "ctrl", "untreated", "wt", "wildtype", "wild_type", "normal", "vehicle", "mock",
                   "healthy", "baseline")
COLUMNS = ["cell_type", "gene_id", "baseMean", "log2FoldChange", "lfcSE", "stat", "pvalue", "padj", "n_samples",
           "n_cells"]


def text_param(name, default):
    value = getattr(snakemake.params, name, default)
    return default if value is None or str(value).strip() == "" else str(value).strip()


def raw_counts(adata, path):
    """The cells' raw counts: layers["counts"], else X when it holds whole numbers."""
    matrix = adata.layers["counts"] if "counts" in adata.layers else adata.X
    values = matrix.data if sparse.issparse(matrix) else np.asarray(matrix)
    if values.size and (values.min() < 0 or not np.allclose(values, np.round(values))):
        fail(f"{path} has no raw counts (no layers['counts'], and X is not whole numbers): pseudobulk DE sums the "
             "cells' counts, so it needs the counts the normalisation step keeps in layers['counts'].")
    return sparse.csr_matrix(matrix)


def cell_groups(adata, cluster_key, labels_path):
    """Each cell's cell type (from the annotation's cluster -> cell_type table), else its cluster."""
    if cluster_key not in adata.obs:
        fail(f"{snakemake.input.adata} has no obs column {cluster_key!r}; set params.{TOOL}.cluster_key.")
    clusters = adata.obs[cluster_key].astype(str)
    if not labels_path:
        LOG.info("no cell-type annotation: cells grouped by cluster (%s)", cluster_key)
        return clusters.to_numpy()
    labels = read_table(labels_path, "cell-type annotation")
    if not {"cluster", "cell_type"} <= set(labels.columns):
        fail(f"the cell-type annotation {labels_path} lacks a cluster or cell_type column (columns: "
             f"{', '.join(labels.columns)}).")
    mapping = dict(zip(labels["cluster"].astype(str), labels["cell_type"].astype(str)))
    unmapped = sorted(set(clusters) - set(mapping), key=cluster_sort_key)
    if unmapped:
        LOG.warning("clusters %s have no cell type in %s: kept under their cluster name", unmapped, labels_path)
    return clusters.map(lambda c: mapping.get(c, f"cluster {c}")).to_numpy()


def choose_levels(levels):
    """(reference, test) of the condition column, as the bulk DE step chooses them (a level named in any case or
    spelling of its letters and digits is that level)."""
    levels = distinct_levels(sorted(levels))
    if len(levels) < 2:
        fail(f"obs[{condition_key!r}] holds one condition {levels}: two are needed for a comparison.")
    reference = same_level(text_param("reference_level", None), levels)
    if reference is None:
        named = [lvl for lvl in levels if lvl.lower() in REFERENCE_NAMES]
        reference = named[0] if named else levels[0]
    elif reference not in levels:
        fail(f"params.{TOOL}.reference_level {reference!r} is not a condition of obs[{condition_key!r}] ({levels}).")
    others = [lvl for lvl in levels if lvl != reference]
    test = same_level(text_param("test_level", None), levels)
    if test is None:
        test = others[0]
        if len(others) > 1:
            LOG.warning("conditions %s; comparing %r against %r (set params.%s.test_level)", others, test, reference,
                        TOOL)
    elif test not in others:
        fail(f"params.{TOOL}.test_level {test!r} is not a non-reference condition ({others}).")
    return reference, test


def pseudobulk(counts, genes, samples, conditions, in_group):
    """Samples x genes summed counts of the group's cells, for samples with at least min_cells of them."""
    rows, meta = [], []
    for sample in sorted(set(samples[in_group])):
        cells = in_group & (samples == sample)
        if cells.sum() < min_cells:
            continue
        rows.append(np.asarray(counts[cells].sum(axis=0)).ravel())
        meta.append((sample, conditions[cells][0], int(cells.sum())))
    table = pd.DataFrame(np.vstack(rows) if rows else np.zeros((0, len(genes))), columns=genes,
                         index=[m[0] for m in meta]).astype("int64")
    return table, pd.DataFrame(meta, columns=["sample", "condition", "n_cells"]).set_index("sample")


def test_group(name, profiles, meta, reference, test):
    """PyDESeq2 on one cell type's pseudobulk profiles: test vs reference."""
    from pydeseq2.dds import DeseqDataSet
    from pydeseq2.ds import DeseqStats

    profiles = profiles.loc[:, profiles.sum(axis=0) >= min_counts]
    # formula-safe level names: PyDESeq2 dislikes '_' and spaces in levels
    codes = {reference: "ref", test: "test"}
    design = pd.DataFrame({"condition": meta["condition"].map(codes).to_numpy()}, index=profiles.index)
    cpus = bioplan_step.pydeseq2_workers(THREADS, profiles.size)  # serial on small matrices
    dds = DeseqDataSet(counts=profiles, metadata=design, design="~condition", refit_cooks=True, n_cpus=cpus,
                       quiet=True)
    dds.deseq2()
    stats = DeseqStats(dds, contrast=["condition", "test", "ref"], alpha=alpha, n_cpus=cpus, quiet=True)
    stats.summary()
    res = stats.results_df.reindex(columns=["baseMean", "log2FoldChange", "lfcSE", "stat", "pvalue", "padj"])
    res.insert(0, "gene_id", res.index.astype(str))
    res.insert(0, "cell_type", name)
    res["n_samples"] = len(profiles)
    res["n_cells"] = int(meta["n_cells"].sum())
    return res.sort_values(["padj", "gene_id"], na_position="last", kind="mergesort")


sample_key = text_param("sample_key", "sample")
condition_key = text_param("condition_key", "condition")
cluster_key = text_param("cluster_key", "leiden")
try:
    min_cells = int(snakemake.params.min_cells)
    min_counts = int(snakemake.params.min_counts)
    alpha = float(snakemake.params.alpha)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.min_cells, min_counts and alpha must be numbers (config.yaml)")

in_path = snakemake.input.adata
labels_path = getattr(snakemake.input, "labels", None) or None
if labels_path is not None and not os.path.isfile(labels_path):
    fail(f"the cell-type annotation {labels_path} does not exist.")
adata = read_h5ad(in_path)
for key, what in ((sample_key, "sample"), (condition_key, "condition")):
    if key not in adata.obs:
        fail(f"{in_path} has no obs column {key!r} naming each cell's {what} (columns: "
             f"{', '.join(map(str, adata.obs.columns))}); set params.{TOOL}.{what}_key in config.yaml.")
samples = adata.obs[sample_key].astype(str).to_numpy()
conditions = adata.obs[condition_key].astype(str).to_numpy()
mixed = pd.DataFrame({"s": samples, "c": conditions}).groupby("s")["c"].nunique()
if (mixed > 1).any():
    fail(f"samples {sorted(mixed[mixed > 1].index)[:5]} hold cells of several conditions: obs[{condition_key!r}] "
         "must be a property of the sample (each sample one condition) for a pseudobulk comparison.")
reference, test = choose_levels(set(conditions))
counts = raw_counts(adata, in_path)
genes = adata.var_names.astype(str).tolist()
groups = cell_groups(adata, cluster_key, labels_path)
LOG.info("%d cells, %d samples, %d genes; %s vs %s; %d cell groups", adata.n_obs, len(set(samples)), len(genes),
         test, reference, len(set(groups)))

results = []
for name in sorted(set(groups), key=cluster_sort_key):
    profiles, meta = pseudobulk(counts, genes, samples, conditions, groups == name)
    per_condition = meta["condition"].value_counts()
    if min(per_condition.get(reference, 0), per_condition.get(test, 0)) < 2:
        LOG.warning("cell type %r skipped: samples with >= %d of its cells per condition: %s (two per condition "
                    "needed)", name, min_cells, dict(per_condition))
        continue
    results.append(test_group(name, profiles, meta, reference, test))
    sig = results[-1][results[-1]["padj"] < alpha]
    LOG.info("%s: %d samples, %d genes with padj < %s", name, len(profiles), len(sig), alpha)
if not results:
    fail(f"no cell type has two samples of each condition ({test}, {reference}) with >= {min_cells} cells: "
         f"pseudobulk DE needs biological replicates; lower params.{TOOL}.min_cells or add samples.")
table = pd.concat(results, ignore_index=True).reindex(columns=COLUMNS)
table.to_csv(snakemake.output.table, sep="\t", index=False, float_format="%.6g", na_rep="NA")
LOG.info("wrote %s (%d cell types tested)", snakemake.output.table, len(results))
