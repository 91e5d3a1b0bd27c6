"""Doublet detection with Scrublet (scanpy's sc.pp.scrublet), per sample.

Snakemake `script:` step of tool `scanpy_scrublet` (operation doublet_detection).

input.adata    AnnData (.h5ad), QC-filtered, raw counts in X
output.adata   the same AnnData without the cells called doublets (remove_doublets true), obs
               doublet_score and predicted_doublet for every cell kept
output.scores  TSV, one row per input cell: cell, batch, doublet_score, predicted_doublet
params         batch_key ("sample": doublets form within one droplet library, so each sample is
               simulated on its own; a missing column means one library), expected_doublet_rate
               (0.06), n_prin_comps (30; fewer for libraries of few genes or cell types),
               n_neighbors (0: Scrublet's rule, half the square root of the cells), threshold (0:
               Scrublet's automatic threshold, the minimum between the two modes of the simulated
               doublets' scores; else that score), random_state (0), remove_doublets (true)

Deterministic: Scrublet's simulated doublets and its PCA use random_state.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import pandas as pd
import scanpy as sc
from scipy import sparse

TOOL = "scanpy_scrublet"
sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.adata
scores_path = snakemake.output.scores


def as_bool(value):
    """A config flag: YAML booleans, or the words a params.json may carry."""
    return value if isinstance(value, bool) else str(value).strip().lower() in {"true", "yes", "1"}


batch_key = str(getattr(params, "batch_key", "sample") or "")
remove = as_bool(getattr(params, "remove_doublets", True))
try:
    rate = float(params.expected_doublet_rate)
    n_pcs = int(params.n_prin_comps)
    n_neighbors = int(getattr(params, "n_neighbors", 0) or 0) or None
    threshold = float(getattr(params, "threshold", 0) or 0) or None
    seed = int(getattr(params, "random_state", 0) or 0)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.expected_doublet_rate, n_prin_comps, n_neighbors, threshold and random_state must be "
         "numbers (config.yaml)")
if not 0 < rate < 1:
    fail(f"params.{TOOL}.expected_doublet_rate must lie between 0 and 1 (got {rate}).")

adata = read_h5ad(in_path)
values = adata.X.data if sparse.issparse(adata.X) else np.asarray(adata.X)
if "log1p" in adata.uns or (values.size and (np.nanmin(values) < 0 or not np.allclose(values, np.round(values)))):
    fail(f"{in_path}: X is not raw counts (log-transformed or non-integer); Scrublet simulates doublets by "
         "adding the counts of two cells, so it runs on the QC-filtered counts, before normalisation.")
if adata.n_obs < 30:
    fail(f"{in_path} holds {adata.n_obs} cells: too few to simulate doublets (Scrublet needs tens of cells).")

batches = None
if batch_key and batch_key in adata.obs:
    batches = adata.obs[batch_key].astype(str)
    smallest = batches.value_counts().min()
    if smallest < 30:
        fail(f"sample {batches.value_counts().idxmin()!r} of obs[{batch_key!r}] has {smallest} cells: too few for "
             f"Scrublet; drop it, or set params.{TOOL}.batch_key to '' to score all cells as one library.")
    adata.obs[batch_key] = batches.astype("category")
else:
    LOG.warning("no obs column %r: all %d cells are scored as one droplet library", batch_key, adata.n_obs)

n_pcs = min(n_pcs, adata.n_obs - 1, adata.n_vars - 1)
try:
    sc.pp.scrublet(adata, batch_key=batch_key if batches is not None else None, expected_doublet_rate=rate,
                   n_prin_comps=n_pcs, n_neighbors=n_neighbors, threshold=threshold, random_state=seed)
except ValueError as exc:  # a library Scrublet cannot threshold (no bimodal simulated scores): the data's problem
    fail(f"Scrublet could not score {in_path}: {exc}")

calls = adata.obs["predicted_doublet"].fillna(False).astype(bool)
table = pd.DataFrame({
    "cell": adata.obs_names.astype(str),
    "batch": batches.to_numpy() if batches is not None else "all",
    "doublet_score": adata.obs["doublet_score"].to_numpy(dtype=float),
    "predicted_doublet": calls.to_numpy(),
})
table.to_csv(scores_path, sep="\t", index=False, float_format="%.5g")

n_doublets = int(calls.sum())
LOG.info("%d of %d cells called doublets (%.1f%%; expected rate %.1f%%)", n_doublets, adata.n_obs,
         100.0 * n_doublets / adata.n_obs, 100.0 * rate)
if remove:
    adata = adata[~calls.to_numpy()].copy()
adata.obs["predicted_doublet"] = adata.obs["predicted_doublet"].astype(bool)
adata.uns["doublet_detection"] = {"method": "scrublet", "batch_key": batch_key if batches is not None else "",
                                  "n_doublets": n_doublets, "removed": remove, "random_state": seed}
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s (%d cells) and %s", out_path, adata.n_obs, scores_path)
