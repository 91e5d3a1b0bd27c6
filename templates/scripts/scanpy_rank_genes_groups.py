"""Marker genes per cluster: each cluster against the rest (scanpy rank_genes_groups).

Snakemake `script:` step of tool `scanpy_rank_genes_groups` (operation marker_gene_detection).

input.adata     clustered AnnData (.h5ad), log-normalised X, obs[cluster_key]
output.markers  TSV: cluster, rank, gene, score, logfoldchange, pval, pval_adj
                (top n_genes per cluster by score; sorted by cluster, rank)
params          cluster_key ("leiden"), method ("wilcoxon"), n_genes (0: every tested gene, so the
                table also says which genes were measured: the enrichment background)

The statistics use log-normalised expression: X when it holds it, else .raw (scanpy keeps the
log-normalised matrix there when X is scaled), else a log-normalised layer.
"""

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import pandas as pd
import scanpy as sc
import numpy as np

sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.markers

key = str(getattr(params, "cluster_key", "leiden") or "leiden")
method = str(getattr(params, "method", "wilcoxon") or "wilcoxon")
try:
    n_genes = int(params.n_genes)
except (TypeError, ValueError):
    fail("params.scanpy_rank_genes_groups.n_genes must be an integer (config.yaml)")
if method not in {"wilcoxon", "t-test", "t-test_overestim_var", "logreg"}:
    fail(f"method {method!r} is not one of wilcoxon, t-test, t-test_overestim_var, logreg")

adata = read_h5ad(in_path)
if key not in adata.obs:
    found = ", ".join(map(str, adata.obs.columns)) or "none"
    fail(f"{in_path} has no obs column {key!r} (columns: {found}); set params.scanpy_rank_genes_groups.cluster_key.")

adata.obs[key] = adata.obs[key].astype(str).astype("category")
sizes = adata.obs[key].value_counts()
if len(sizes) < 2:
    fail(f"{in_path} has a single cluster in obs[{key!r}]; marker genes need at least two clusters.")
tiny = sorted(str(c) for c, n in sizes.items() if n < 2)
if tiny:
    fail(f"clusters {', '.join(tiny)} of {in_path} have fewer than 2 cells; merge them or lower the resolution.")

n_genes = adata.n_vars if n_genes <= 0 else min(n_genes, adata.n_vars)


def values_of(matrix):
    """A sample of the stored values of a dense or sparse matrix."""
    data = matrix.data if hasattr(matrix, "data") and not isinstance(matrix, np.ndarray) else np.asarray(matrix)
    return np.asarray(data).ravel()[:200000]


def log_normalised(matrix) -> bool:
    """Non-negative, non-integer values of moderate size: log1p of normalised counts."""
    v = values_of(matrix)
    return v.size > 0 and bool(np.all(v >= 0)) and not bool(np.all(np.mod(v, 1) == 0)) and float(v.max()) < 50


# Marker statistics need log-normalised expression: fold changes of scaled (z-scored) values are
# meaningless and of raw counts are not log fold changes. Take X when it is log-normalised, else
# .raw, else a log-normalised layer; say which.
use_raw, layer, source = False, None, "X"
if not log_normalised(adata.X):
    if adata.raw is not None and log_normalised(adata.raw.X):
        use_raw, source = True, ".raw"
    else:
        layer = next((name for name in adata.layers if log_normalised(adata.layers[name])), None)
        source = f"layers[{layer!r}]" if layer else "X"
if source == "X" and not log_normalised(adata.X):
    LOG.warning("neither X, .raw nor a layer of %s holds log-normalised values: marker statistics use X as it is "
                "and its log fold changes are not meaningful (they are reported as NA)", in_path)
LOG.info("marker statistics on %s (log-normalised expression)", source)
ranked = sc.tl.rank_genes_groups(adata, key, method=method, n_genes=n_genes, use_raw=use_raw, layer=layer,
                                 corr_method="benjamini-hochberg", copy=True) if layer else None
if ranked is not None:
    adata = ranked
else:
    sc.tl.rank_genes_groups(adata, key, method=method, n_genes=n_genes, use_raw=use_raw,
                            corr_method="benjamini-hochberg")


frames = []
for cluster in sorted(adata.obs[key].cat.categories.astype(str), key=cluster_sort_key):
    df = sc.get.rank_genes_groups_df(adata, group=cluster).head(n_genes).reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    df.insert(0, "cluster", cluster)
    frames.append(df)
table = pd.concat(frames, ignore_index=True)
table = table.rename(columns={"names": "gene", "scores": "score", "logfoldchanges": "logfoldchange", "pvals": "pval", "pvals_adj": "pval_adj"})
for column in ("logfoldchange", "pval", "pval_adj"):
    if column not in table:  # logreg reports scores only
        table[column] = float("nan")
if source == "X" and not log_normalised(adata.X):
    table["logfoldchange"] = float("nan")
if table["logfoldchange"].isna().all():
    LOG.warning("every logfoldchange is NA (%s): filters on it downstream cannot apply", method)
table = table[["cluster", "rank", "gene", "score", "logfoldchange", "pval", "pval_adj"]]
table.to_csv(out_path, sep="\t", index=False, float_format="%.6g", na_rep="NA")
LOG.info("wrote %s: top %d genes for %d clusters (%s)", out_path, n_genes, len(frames), method)
