"""Trajectory inference: PAGA graph of the clusters and diffusion pseudotime (scanpy).

Snakemake `script:` step of tool `scanpy_paga` (operation trajectory_inference).

input.adata       clustered AnnData (.h5ad): obs[cluster_key] and the clustering step's neighbour
                  graph (uns["neighbors"], obsp); without a graph one is built on the batch-corrected
                  or PCA embedding the file holds
output.pseudotime TSV, one row per cell: cell, cluster, dpt_pseudotime (0 at the root cell, up to 1)
output.paga       TSV, one row per pair of connected clusters: cluster_a, cluster_b, connectivity
                  (PAGA's confidence that the two are connected, 0-1), tree (on PAGA's spanning tree)
params            cluster_key ("leiden"), root_cluster ("": the root cell is the cell at the end
                  of the first diffusion component, as in Haghverdi et al. 2016; else the cell of
                  that cluster furthest along it from the other cells), n_dcs (10), min_connectivity
                  (0.05: weaker PAGA edges are left out of the table)

Deterministic: the diffusion map is an eigendecomposition of the fixed neighbour graph; the root
choice is a rule, ties broken by cell order.
"""

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import pandas as pd
import scanpy as sc

TOOL = "scanpy_paga"
sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
key = str(getattr(params, "cluster_key", "leiden") or "leiden")
root_cluster = str(getattr(params, "root_cluster", "") or "").strip()
try:
    n_dcs = int(params.n_dcs)
    min_connectivity = float(params.min_connectivity)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.n_dcs and min_connectivity must be numbers (config.yaml)")


def ensure_neighbors(adata):
    """The clustering step's graph, else one on the embedding the file carries."""
    if "neighbors" in adata.uns and "connectivities" in adata.obsp:
        return
    rep = adata.uns.get("batch_integration", {}).get("use_rep") or "X_pca"
    if rep not in adata.obsm:
        fail(f"{in_path} has neither a neighbour graph (uns['neighbors']) nor an embedding obsm[{rep!r}] to build "
             "one: run the clustering step first.")
    LOG.info("no neighbour graph in %s: building one on obsm[%r]", in_path, rep)
    bioplan_step.cache_numba_compilations()  # umap's neighbour-graph functions: compiled once, not per run
    sc.pp.neighbors(adata, use_rep=rep, random_state=0, transformer="sklearn")


def root_cell(adata, clusters):
    """Index of the root: the end of the first diffusion component (within root_cluster if given)."""
    dc1 = np.asarray(adata.obsm["X_diffmap"][:, 1])  # component 0 is the trivial one
    if not root_cluster:
        return int(np.argmin(dc1))
    inside = (clusters == root_cluster).to_numpy()
    if not inside.any():
        fail(f"params.{TOOL}.root_cluster {root_cluster!r} is not a cluster of obs[{key!r}] "
             f"({', '.join(sorted(set(clusters), key=cluster_sort_key))}).")
    # the end of DC1 on the root cluster's side of the other cells
    toward_low = dc1[inside].mean() <= dc1[~inside].mean() if (~inside).any() else True
    candidates = np.where(inside)[0]
    pick = np.argmin(dc1[candidates]) if toward_low else np.argmax(dc1[candidates])
    return int(candidates[pick])


def paga_edges(adata, names):
    """Cluster pairs PAGA connects with at least min_connectivity, and whether they are on its tree."""
    conn = adata.uns["paga"]["connectivities"].toarray()
    tree = adata.uns["paga"]["connectivities_tree"].toarray()
    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if conn[i, j] >= min_connectivity:
                rows.append({"cluster_a": names[i], "cluster_b": names[j], "connectivity": float(conn[i, j]),
                             "tree": bool(tree[i, j] > 0 or tree[j, i] > 0)})
    return pd.DataFrame(rows, columns=["cluster_a", "cluster_b", "connectivity", "tree"])


adata = read_h5ad(in_path)
if key not in adata.obs:
    fail(f"{in_path} has no obs column {key!r} (the clusters); set params.{TOOL}.cluster_key.")
if adata.n_obs <= n_dcs + 1:
    fail(f"{in_path} holds {adata.n_obs} cells: too few for a diffusion map of {n_dcs} components.")
clusters = adata.obs[key].astype(str)
adata.obs[key] = pd.Categorical(clusters, categories=sorted(set(clusters), key=cluster_sort_key))
ensure_neighbors(adata)

sc.tl.paga(adata, groups=key)
names = list(adata.obs[key].cat.categories)
edges = paga_edges(adata, names)
edges.to_csv(snakemake.output.paga, sep="\t", index=False, float_format="%.4f")
LOG.info("PAGA: %d clusters, %d connections >= %g", len(names), len(edges), min_connectivity)

sc.tl.diffmap(adata, n_comps=n_dcs + 1)
adata.uns["iroot"] = root_cell(adata, clusters)
sc.tl.dpt(adata, n_dcs=n_dcs)
root = adata.obs_names[adata.uns["iroot"]]
LOG.info("root cell %s (cluster %s); diffusion pseudotime over %d components", root, clusters.iloc[adata.uns["iroot"]],
         n_dcs)

table = pd.DataFrame({"cell": adata.obs_names.astype(str), "cluster": clusters.to_numpy(),
                      "dpt_pseudotime": adata.obs["dpt_pseudotime"].to_numpy(dtype=float)})
unreached = int(np.isinf(table["dpt_pseudotime"]).sum())
if unreached:
    LOG.warning("%d cells are not connected to the root in the neighbour graph (pseudotime inf)", unreached)
table.to_csv(snakemake.output.pseudotime, sep="\t", index=False, float_format="%.5f")
order = table.groupby("cluster")["dpt_pseudotime"].median().sort_values()
LOG.info("clusters by median pseudotime: %s", ", ".join(f"{c} ({t:.2f})" for c, t in order.items()))
