"""UMAP embedding and a plot coloured by cluster (scanpy + matplotlib, Agg backend).

Snakemake `script:` step of tool `scanpy_umap` (operation embedding_visualization).

input.adata          clustered AnnData (.h5ad) with a neighbour graph and obs[cluster_key]
output.plot          PNG: UMAP coloured by cluster
output.coordinates   TSV: cell, cluster, UMAP1, UMAP2 (sorted by cell id)
params               cluster_key ("leiden"), min_dist (0.5), random_state (0), dpi (150)
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import scanpy as sc

sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
plot_path = snakemake.output.plot
coords_path = snakemake.output.coordinates

key = str(getattr(params, "cluster_key", "leiden") or "leiden")
try:
    min_dist = float(getattr(params, "min_dist", 0.5))
    seed = int(getattr(params, "random_state", 0) or 0)
    dpi = int(getattr(params, "dpi", 150) or 150)
except (TypeError, ValueError):
    fail("params.scanpy_umap.min_dist, random_state and dpi must be numbers (config.yaml)")

adata = read_h5ad(in_path)
if key not in adata.obs:
    found = ", ".join(map(str, adata.obs.columns)) or "none"
    fail(f"{in_path} has no obs column {key!r} (columns: {found}); set params.scanpy_umap.cluster_key.")
if "neighbors" not in adata.uns:
    fail(f"{in_path} has no neighbour graph (uns['neighbors']); run the clustering step first.")

bioplan_step.cache_numba_compilations()  # umap's layout functions: compiled once, not per run
sc.tl.umap(adata, min_dist=min_dist, random_state=seed)


def cluster_order(values):
    labels = sorted({str(v) for v in values})
    return sorted(labels, key=lambda s: (0, int(s), s) if s.isdigit() else (1, 0, s))


clusters = adata.obs[key].astype(str)
order = cluster_order(clusters)
coords = pd.DataFrame(
    {
        "cell": adata.obs_names.astype(str),
        "cluster": clusters.to_numpy(),
        "UMAP1": adata.obsm["X_umap"][:, 0],
        "UMAP2": adata.obsm["X_umap"][:, 1],
    }
).sort_values("cell", kind="mergesort")
coords.to_csv(coords_path, sep="\t", index=False, float_format="%.5f")

# Plot with matplotlib directly: same look on every scanpy version, fixed layout.
plt.rcParams.update({"svg.hashsalt": "bioplan", "font.size": 9, **bioplan_step.PLAIN_TEXT})
cmap = plt.get_cmap("tab20" if len(order) > 10 else "tab10")
fig, ax = plt.subplots(figsize=(6.0, 5.0))
point_size = max(2.0, min(30.0, 12000.0 / max(adata.n_obs, 1)))
for i, label in enumerate(order):
    sel = clusters.to_numpy() == label
    ax.scatter(
        adata.obsm["X_umap"][sel, 0],
        adata.obsm["X_umap"][sel, 1],
        s=point_size,
        color=cmap(i % cmap.N),
        label=f"{label} (n={int(sel.sum())})",
        linewidths=0,
        rasterized=True,
    )
ax.set_xlabel("UMAP1")
ax.set_ylabel("UMAP2")
ax.set_xticks([])
ax.set_yticks([])
ax.set_title(f"UMAP of {adata.n_obs} cells, coloured by {key}")
ax.legend(title=key, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, markerscale=2)
fig.tight_layout()
fig.savefig(plot_path, dpi=dpi, metadata={"Software": None})
plt.close(fig)
LOG.info("wrote %s and %s (%d cells, %d clusters)", plot_path, coords_path, adata.n_obs, len(order))
