"""Automated cell-type annotation with CellTypist, per cell and per cluster by majority voting.

Snakemake `script:` step of tool `celltypist` (operation cell_type_annotation).

input.adata     clustered AnnData (.h5ad): X log1p-normalised to 10,000 counts per cell over all
                genes, var_names = gene symbols, obs[cluster_key]
input.markers   marker table (tsv/csv: cluster, rank, gene, ...) of the same clusters
output.labels   TSV, one row per cluster: cluster, cell_type (the majority vote), share (of the
                cluster's cells whose own label is that type), n_cells, supporting_markers (the
                cluster's top markers among the model's top genes of that type), n_supporting
output.cells    TSV, one row per cell: cell, cluster, predicted_label, conf_score, cell_type
params          model (a .pkl path, or a published model's name, downloaded once), cluster_key
                ("leiden"), majority_voting (true), top_n (25: markers compared per cluster)

Deterministic: CellTypist's prediction is a fixed linear model; majority voting runs over the
given clusters (no over-clustering of its own).
"""

import os

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, fail, read_h5ad, read_marker_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import pandas as pd
from scipy import sparse

try:
    import celltypist
    from celltypist import models
except ImportError as exc:
    fail(f"CellTypist annotation needs celltypist: {exc}; pip install 'bioplan[tools]'")

TOOL = "celltypist"
params = snakemake.params
adata_path = snakemake.input.adata
markers_path = snakemake.input.markers
labels_path = snakemake.output.labels
cells_path = snakemake.output.cells

model_name = str(getattr(params, "model", "") or "").strip()
key = str(getattr(params, "cluster_key", "leiden") or "leiden")
voting = str(getattr(params, "majority_voting", True)).strip().lower() in {"true", "yes", "1"}
try:
    top_n = int(params.top_n)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.top_n must be a whole number (config.yaml)")
if not model_name:
    fail(f"no CellTypist model given: set params.{TOOL}.model in config.yaml to a model file (.pkl) or the "
         "name of a published model, e.g. Immune_All_Low.pkl (https://www.celltypist.org/models).")


def load_model(name):
    """A model file, or a published model by name (downloaded into the CellTypist folder once)."""
    if os.path.isfile(name):
        return models.Model.load(name)
    if os.sep in name or not name.endswith(".pkl"):
        fail(f"params.{TOOL}.model = {name!r} is neither a model file nor a published model name "
             "(such names end in .pkl: https://www.celltypist.org/models).")
    try:
        models.download_models(model=[name], force_update=False)
        return models.Model.load(name)
    except Exception as exc:  # the download or the name is the problem: say which and what to do
        fail(f"cannot fetch the CellTypist model {name!r}: {exc}. Download it where the network is reachable "
             f"(celltypist.models.download_models(model=['{name}'])) and set params.{TOOL}.model to its path.")


def expression_matrix(adata):
    """CellTypist reads log1p(counts per 10,000): X, else .raw when X holds scaled values."""
    values = adata.X.data if sparse.issparse(adata.X) else np.asarray(adata.X)
    if adata.raw is not None and values.size and values.min() < 0:
        LOG.info("X holds scaled values: annotating .raw (%d genes)", adata.raw.n_vars)
        return adata.raw.to_adata()
    return adata


model = load_model(model_name)
adata = read_h5ad(adata_path)
if key not in adata.obs:
    fail(f"{adata_path} has no obs column {key!r} (the clusters); set params.{TOOL}.cluster_key.")
clusters = adata.obs[key].astype(str)
query = expression_matrix(adata)
shared = len(set(map(str, query.var_names)) & set(map(str, model.features)))
if shared == 0:
    fail(f"no gene of {adata_path} is among the model's {len(model.features)} genes: CellTypist needs gene "
         "symbols as var_names and a model of the same organism.")
LOG.info("model %s: %d cell types, %d of its %d genes in the data", model_name, len(model.cell_types), shared,
         len(model.features))
try:
    result = celltypist.annotate(query, model=model, majority_voting=voting, over_clustering=clusters.to_numpy())
except ValueError as exc:  # CellTypist's own check of the expression values (log1p of 10,000 counts)
    fail(f"CellTypist cannot annotate {adata_path}: {exc}")

pred = result.predicted_labels
per_cell = pd.DataFrame({
    "cell": adata.obs_names.astype(str),
    "cluster": clusters.to_numpy(),
    "predicted_label": pred["predicted_labels"].astype(str).to_numpy(),
    "conf_score": result.probability_matrix.max(axis=1).to_numpy(dtype=float),
})
per_cell["cell_type"] = (pred["majority_voting"].astype(str).to_numpy() if voting
                         else per_cell["predicted_label"])

markers = read_marker_table(markers_path)
missing = [c for c in ("cluster", "gene") if c not in markers.columns]
if missing:
    fail(f"the marker table {markers_path} lacks column(s) {', '.join(missing)}; columns are {list(markers.columns)}")
markers = markers.assign(cluster=markers["cluster"].astype(str))
if "rank" in markers:
    markers = markers.sort_values(["cluster", "rank"], kind="mergesort")
top_markers = {c: [str(g) for g in df["gene"].head(top_n)] for c, df in markers.groupby("cluster", sort=False)}

rows = []
for cluster in sorted(per_cell["cluster"].unique(), key=cluster_sort_key):
    cells = per_cell[per_cell["cluster"] == cluster]
    label = cells["cell_type"].mode().sort_values().iloc[0]
    share = float((cells["predicted_label"] == label).mean())
    model_top = set(map(str, model.extract_top_markers(label, top_n))) if label in model.cell_types else set()
    support = [g for g in top_markers.get(cluster, []) if g in model_top]
    rows.append({"cluster": cluster, "cell_type": label, "share": share, "n_cells": len(cells),
                 "supporting_markers": ",".join(support), "n_supporting": len(support)})
    LOG.info("cluster %s -> %s (%.0f%% of %d cells; %d supporting markers)", cluster, label, 100 * share,
             len(cells), len(support))

pd.DataFrame(rows).to_csv(labels_path, sep="\t", index=False, float_format="%.4f")
per_cell.sort_values("cell", kind="mergesort").to_csv(cells_path, sep="\t", index=False, float_format="%.4f")
LOG.info("wrote %s and %s", labels_path, cells_path)
