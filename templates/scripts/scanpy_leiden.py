"""PCA, k-nearest-neighbour graph and Leiden clustering (scanpy).

Snakemake `script:` step of tool `scanpy_leiden` (operation cell_clustering).

input.adata   AnnData (.h5ad): log-normalised X, var["highly_variable"]
output.adata  AnnData (.h5ad) with obsm["X_pca"], the neighbour graph in obsp and
              the clusters in obs[cluster_key] (categorical "0", "1", ... by size)
params        n_comps (50), n_neighbors (15), resolution (1.0), random_state (0),
              cluster_key ("leiden"), neighbors_method ("umap" connectivities, the
              standard; "gauss" skips umap-learn, whose numba compilation costs ~15 s
              on a machine without a numba cache)

Deterministic: fixed random_state for PCA, neighbours and Leiden; exact
(scikit-learn) neighbour search, which needs no numba compilation. UMAP is
computed by the embedding step, not here.
"""

import bioplan_step
from bioplan_step import LOG, accepts, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import scanpy as sc

sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.adata

try:
    n_comps = int(params.n_comps)
    n_neighbors = int(params.n_neighbors)
    resolution = float(params.resolution)
    seed = int(getattr(params, "random_state", 0) or 0)
except (TypeError, ValueError):
    fail("params.scanpy_leiden.n_comps, n_neighbors, resolution and random_state must be numbers (config.yaml)")
key = str(getattr(params, "cluster_key", "leiden") or "leiden")
neighbors_method = str(getattr(params, "neighbors_method", "umap") or "umap")
if neighbors_method not in {"umap", "gauss"}:
    fail(f"params.scanpy_leiden.neighbors_method must be 'umap' or 'gauss', not {neighbors_method!r}")

adata = read_h5ad(in_path)
if "log1p" not in adata.uns:
    LOG.warning("%s has no uns['log1p']: is X log-normalised? Clustering it as it is.", in_path)
if adata.n_obs <= n_neighbors:
    fail(f"{in_path} has {adata.n_obs} cells, not more than n_neighbors={n_neighbors}; lower n_neighbors.")


# A batch-corrected embedding (the batch_correction step's obsm["X_pca_harmony"]) is the one the
# neighbour graph must use: recomputing PCA would bring the batch effect back.
integrated = adata.uns.get("batch_integration", {}).get("use_rep")
if integrated and integrated not in adata.obsm:
    fail(f"{in_path} says its batch-corrected embedding is obsm[{integrated!r}], which it lacks.")

# PCA on the highly variable genes when they are flagged (shared with the integration step).
n_comps, pca_kwargs = bioplan_step.pca_settings(adata, n_comps, seed, in_path)
if integrated:
    n_comps = int(adata.obsm[integrated].shape[1])
    LOG.info("neighbour graph on the batch-corrected embedding obsm[%r] (%d components)", integrated, n_comps)
else:
    sc.pp.pca(adata, n_comps=n_comps, **pca_kwargs)

neighbors_kwargs = {"n_neighbors": n_neighbors, "n_pcs": n_comps, "random_state": seed, "method": neighbors_method}
if integrated:
    neighbors_kwargs["use_rep"] = integrated
if accepts(sc.pp.neighbors, "transformer"):
    neighbors_kwargs["transformer"] = "sklearn"  # exact kNN, no pynndescent/numba JIT
if neighbors_method == "umap":  # umap's connectivity functions: compiled once, not in every run
    bioplan_step.cache_numba_compilations()
sc.pp.neighbors(adata, **neighbors_kwargs)

leiden_kwargs = {"resolution": resolution, "random_state": seed, "key_added": key, "n_iterations": 2}
if accepts(sc.tl.leiden, "flavor"):
    leiden_kwargs.update(flavor="igraph", directed=False)
try:
    sc.tl.leiden(adata, **leiden_kwargs)
except ImportError as exc:
    fail(f"Leiden clustering needs python-igraph (and leidenalg for scanpy < 1.10): {exc}; "
         "pip install 'bioplan[tools]'")

counts = adata.obs[key].value_counts()
LOG.info("%d clusters at resolution %g: %s", len(counts), resolution, dict(sorted(counts.items(), key=lambda kv: int(kv[0]))))
adata.uns["clustering"] = {
    "method": "leiden",
    "cluster_key": key,
    "resolution": resolution,
    "n_comps": n_comps,
    "n_neighbors": n_neighbors,
    "neighbors_method": neighbors_method,
    "random_state": seed,
    "n_clusters": int(len(counts)),
}
adata.obs[key] = adata.obs[key].astype("category")
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s (%d cells)", out_path, adata.n_obs)
