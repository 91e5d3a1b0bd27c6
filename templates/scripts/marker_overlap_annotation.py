"""Cell-type annotation of clusters by overlap of their marker genes with known cell-type markers.

Snakemake `script:` step of tool `marker_overlap_annotation` (operation cell_type_annotation).

input.adata      clustered AnnData (.h5ad): obs[cluster_key], var_names = gene symbols
input.markers    marker table (tsv/csv: cluster, rank, gene, logfoldchange, pval_adj, ...)
output.labels    TSV, one row per cluster: cluster, cell_type, score, n_overlap,
                 n_cell_type_markers, n_cluster_markers, pval, candidate, overlap_genes, n_cells
output.cells     TSV, one row per cell: cell, cluster, cell_type
params           cell_markers_gmt (path to a GMT: one cell type per line, its marker genes),
                 cluster_key, top_n, max_padj, min_logfc, min_overlap, max_pval

Method: for each cluster, its marker genes are the top `top_n` ranked genes with
pval_adj <= max_padj and logfoldchange > min_logfc. Each cell type of the GMT is
tested for over-representation among them (hypergeometric test; universe = the genes
of the AnnData, matched case-insensitively so human symbols also match mouse ones).
The cluster takes the cell type with the smallest p-value (ties: larger overlap,
then name) if the overlap has >= min_overlap genes and p <= max_pval, else
"unassigned". score = -log10(p) of the best cell type.

Marker sets: PanglaoDB (https://panglaodb.se/markers.html, convert the TSV to GMT)
or CellMarker 2.0 (http://bio-bigdata.hrbmu.edu.cn/CellMarker/); ready-made GMTs are
Enrichr's libraries PanglaoDB_Augmented_2021 and CellMarker_2024
(https://maayanlab.cloud/Enrichr/#libraries, "download GMT").
"""

import math
import os

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, fail, read_h5ad, read_marker_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import pandas as pd
from scipy.stats import hypergeom

TOOL = "marker_overlap_annotation"

params = snakemake.params
adata_path = snakemake.input.adata
markers_path = snakemake.input.markers
labels_path = snakemake.output.labels
cells_path = snakemake.output.cells

gmt_path = str(getattr(params, "cell_markers_gmt", "") or "").strip()
if not gmt_path:
    fail(
        f"no cell-type marker sets given. Set params.{TOOL}.cell_markers_gmt in config.yaml to a GMT file "
        "of cell-type marker genes (one line per cell type: name<TAB>description<TAB>gene1<TAB>gene2...). "
        "Ready-made GMTs: Enrichr libraries 'PanglaoDB_Augmented_2021' or 'CellMarker_2024' "
        "(https://maayanlab.cloud/Enrichr/#libraries); sources: https://panglaodb.se/markers.html, "
        "http://bio-bigdata.hrbmu.edu.cn/CellMarker/."
    )
if not os.path.isfile(gmt_path):
    fail(f"params.{TOOL}.cell_markers_gmt = {gmt_path!r} does not exist (relative paths start at the workflow directory).")

key = str(getattr(params, "cluster_key", "leiden") or "leiden")
try:
    top_n = int(params.top_n)
    max_padj = float(params.max_padj)
    min_logfc = float(params.min_logfc)
    min_overlap = int(params.min_overlap)
    max_pval = float(params.max_pval)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.top_n, max_padj, min_logfc, min_overlap and max_pval must be numbers (config.yaml)")


def read_gmt(path: str) -> dict[str, set[str]]:
    sets: dict[str, set[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            fields = line.rstrip("\r\n").split("\t")
            if not fields[0].strip():
                continue
            if len(fields) < 3:
                fail(f"{path} line {lineno} is not GMT (name<TAB>description<TAB>genes...): {line.strip()[:80]!r}")
            genes = {g.strip().upper() for g in fields[2:] if g.strip()}
            sets.setdefault(fields[0].strip(), set()).update(genes)
    if not sets:
        fail(f"{path} holds no gene set; expected a GMT file of cell-type markers.")
    return sets


cell_types = read_gmt(gmt_path)
markers = read_marker_table(markers_path)
missing = [c for c in ("cluster", "gene") if c not in markers.columns]
if missing:
    fail(f"the marker table {markers_path} lacks column(s) {', '.join(missing)}; columns are {list(markers.columns)}")

adata = read_h5ad(adata_path, backed="r")
if key not in adata.obs:
    fail(f"{adata_path} has no obs column {key!r}; set params.{TOOL}.cluster_key.")
obs_clusters = adata.obs[key].astype(str)
universe = {str(g).upper() for g in adata.var_names}
# Genes of the marker table count too (they were tested, possibly on raw).
universe |= {str(g).upper() for g in markers["gene"].dropna()}

sel = markers.copy()
if "rank" in sel:
    sel = sel[pd.to_numeric(sel["rank"], errors="coerce") <= top_n]
else:
    sel = sel.groupby("cluster", sort=False).head(top_n)
if "pval_adj" in sel:
    padj = pd.to_numeric(sel["pval_adj"], errors="coerce")
    sel = sel[padj.isna() | (padj <= max_padj)]
if "logfoldchange" in sel:
    lfc = pd.to_numeric(sel["logfoldchange"], errors="coerce")
    sel = sel[lfc.isna() | (lfc > min_logfc)]
cluster_markers = {str(c): {str(g).upper() for g in df["gene"]} for c, df in sel.groupby("cluster", sort=False)}

type_sets = {name: genes & universe for name, genes in cell_types.items()}
type_sets = {name: genes for name, genes in type_sets.items() if genes}
if not type_sets:
    fail(f"no marker gene of {gmt_path} is among the genes of {adata_path}: wrong organism or gene id type?")
LOG.info("%d cell types with markers among %d genes; %d clusters", len(type_sets), len(universe), obs_clusters.nunique())

rows = []
all_clusters = sorted(set(obs_clusters) | set(cluster_markers), key=cluster_sort_key)
n_cells = obs_clusters.value_counts()
M = len(universe)
for cluster in all_clusters:
    genes = cluster_markers.get(cluster, set())
    best = None
    for name in sorted(type_sets):
        ref = type_sets[name]
        overlap = genes & ref
        k = len(overlap)
        if k == 0:
            continue
        pval = float(hypergeom.sf(k - 1, M, len(ref), len(genes)))
        candidate = (pval, -k, name, ref, overlap)
        if best is None or candidate[:3] < best[:3]:
            best = candidate
    row = {"cluster": cluster, "cell_type": "unassigned", "score": 0.0, "n_overlap": 0, "n_cell_type_markers": 0,
           "n_cluster_markers": len(genes), "pval": 1.0, "candidate": "", "overlap_genes": "",
           "n_cells": int(n_cells.get(cluster, 0))}
    if best is not None:
        pval, negk, name, ref, overlap = best
        row.update(score=-math.log10(max(pval, 1e-300)), n_overlap=-negk, n_cell_type_markers=len(ref), pval=pval,
                   candidate=name, overlap_genes=",".join(sorted(overlap)))
        if -negk >= min_overlap and pval <= max_pval:
            row["cell_type"] = name
    rows.append(row)
    LOG.info("cluster %s -> %s (overlap %d, p=%.3g)", cluster, row["cell_type"], row["n_overlap"], row["pval"])

labels = pd.DataFrame(rows)
labels.to_csv(labels_path, sep="\t", index=False, float_format="%.6g")

mapping = dict(zip(labels["cluster"], labels["cell_type"]))
cells = pd.DataFrame({"cell": adata.obs_names.astype(str), "cluster": obs_clusters.to_numpy()})
cells["cell_type"] = cells["cluster"].map(mapping).fillna("unassigned")
cells.sort_values("cell", kind="mergesort").to_csv(cells_path, sep="\t", index=False)
LOG.info("wrote %s and %s", labels_path, cells_path)
