"""Harmony batch integration of the cells' principal components (harmonypy).

Snakemake `script:` step of tool `harmonypy` (operation batch_correction).

input.adata    AnnData (.h5ad): log-normalised X, var["highly_variable"], obs[batch_key]
output.adata   the same AnnData with obsm["X_pca"] (uncorrected PCs), obsm["X_pca_harmony"]
               (Harmony-corrected PCs, which the clustering step's neighbour graph then uses)
               and uns["batch_integration"] (method, batch key, batches, mixing before/after)
output.mixing  TSV: embedding, other_batch_share, expected_if_mixed, mixing_ratio, batches -- how
               well the batches mix before and after correction: the mean share of each cell's
               nearest neighbours from another batch, against that share under perfect mixing
params         batch_key ("sample"), n_comps (50), theta (2.0), max_iter (10),
               random_state (0), mixing_neighbors (15)

Deterministic: fixed random_state for the PCA (ARPACK) and Harmony's k-means initialisation.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import pandas as pd
import scanpy as sc
from sklearn.neighbors import NearestNeighbors

try:
    import harmonypy
except ImportError as exc:
    fail(f"Harmony integration needs harmonypy: {exc}; pip install 'bioplan[tools]'")

sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.adata
mixing_path = snakemake.output.mixing

batch_key = str(getattr(params, "batch_key", "sample") or "sample")
try:
    n_comps = int(getattr(params, "n_comps", 50))
    theta = float(getattr(params, "theta", 2.0))
    max_iter = int(getattr(params, "max_iter", 10))
    seed = int(getattr(params, "random_state", 0) or 0)
    n_neighbors = int(getattr(params, "mixing_neighbors", 15))
except (TypeError, ValueError):
    fail("params.harmonypy.n_comps, theta, max_iter, random_state and mixing_neighbors must be numbers (config.yaml)")

adata = read_h5ad(in_path)
if batch_key not in adata.obs:
    found = ", ".join(map(str, adata.obs.columns)) or "none"
    fail(f"{in_path} has no obs column {batch_key!r} naming each cell's batch (columns: {found}); "
         "set params.harmonypy.batch_key in config.yaml.")
batches = adata.obs[batch_key].astype(str)
n_batches = batches.nunique()
if n_batches < 2:
    fail(f"obs[{batch_key!r}] of {in_path} holds one batch ({batches.iloc[0] if len(batches) else 'none'}): "
         "there is nothing to integrate; name the column that tells the batches apart (params.harmonypy.batch_key).")
if "log1p" not in adata.uns:
    LOG.warning("%s has no uns['log1p']: is X log-normalised? Integrating it as it is.", in_path)

# the clustering step's PCA (bioplan_step.pca_settings): the PCs Harmony corrects are the ones it would use
n_comps, pca_kwargs = bioplan_step.pca_settings(adata, n_comps, seed, in_path)
sc.pp.pca(adata, n_comps=n_comps, **pca_kwargs)

meta = pd.DataFrame({batch_key: batches.to_numpy()}, index=adata.obs_names)
pcs = np.asarray(adata.obsm["X_pca"], dtype=np.float64)
run = harmonypy.run_harmony(
    pcs, meta, [batch_key], theta=theta, max_iter_harmony=max_iter, random_state=seed, verbose=False
)
# harmonypy returns Z_corr as components x cells
corrected = np.ascontiguousarray(np.asarray(run.Z_corr).T, dtype=np.float32)
adata.obsm["X_pca_harmony"] = corrected


def other_batch_share(embedding):
    """Mean share of each cell's k nearest neighbours (exact, Euclidean) that come from another batch."""
    k = min(n_neighbors, adata.n_obs - 1)
    nearest = NearestNeighbors(n_neighbors=k + 1).fit(embedding).kneighbors(embedding, return_distance=False)[:, 1:]
    codes = pd.factorize(batches)[0]
    return float((codes[nearest] != codes[:, None]).mean())


# Perfect mixing: a cell's neighbours are drawn from the batches in proportion to their sizes.
fractions = batches.value_counts(normalize=True)
expected = float((1.0 - batches.map(fractions).astype(float)).mean())
before, after = other_batch_share(pcs), other_batch_share(corrected)
mixing = pd.DataFrame(
    {
        "embedding": ["pca", "pca_harmony"],
        "other_batch_share": [before, after],
        "expected_if_mixed": [expected, expected],
        "mixing_ratio": [before / expected, after / expected],
        "batches": [n_batches, n_batches],
    }
)
mixing.to_csv(mixing_path, sep="\t", index=False, float_format="%.4f")
LOG.info("batch mixing (share of %d nearest neighbours from another batch; %.3f if mixed): %.3f before, "
         "%.3f after Harmony", n_neighbors, expected, before, after)

adata.uns["batch_integration"] = {
    "method": "harmony",
    "batch_key": batch_key,
    "batches": sorted(batches.unique().tolist()),
    "n_comps": n_comps,
    "theta": theta,
    "max_iter": max_iter,
    "random_state": seed,
    "use_rep": "X_pca_harmony",
    "other_batch_share_before": before,
    "other_batch_share_after": after,
}
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s and %s (%d cells)", out_path, mixing_path, adata.n_obs)
