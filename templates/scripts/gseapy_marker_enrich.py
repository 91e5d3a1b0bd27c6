"""Over-representation of gene sets among each cluster's marker genes (gseapy.enrich, offline).

Snakemake `script:` step of tool `gseapy_marker_enrich` (operation marker_enrichment).

input.markers    marker table (tsv/csv: cluster, rank, gene, logfoldchange, pval_adj, ...)
input.gene_sets  GMT gene set library (local file: nothing is downloaded)
output.table     TSV: cluster, Term, Overlap, P-value, Adjusted P-value, Odds Ratio,
                 Combined Score, Genes, Gene_set; sorted by cluster, adjusted p, p, term
params           top_n (100), max_padj (0.05), min_logfc (0.25), min_genes (3)

Per cluster, the marker genes are the top `top_n` ranked genes with
pval_adj <= max_padj and logfoldchange > min_logfc; clusters with fewer than
`min_genes` such genes are skipped (logged). The background is the measured genes: every
gene of the marker table (which lists all tested genes), not the whole library, which would
inflate significance; the gene sets are restricted to it. Gene symbols are matched
case-insensitively (the library's genes take the marker table's spelling).
"""

import os

import bioplan_step
from bioplan_step import LOG, cluster_sort_key, fail, read_marker_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import gseapy
import pandas as pd

TOOL = "gseapy_marker_enrich"
COLUMNS = ["cluster", "Term", "Overlap", "P-value", "Adjusted P-value", "Odds Ratio", "Combined Score", "Genes", "Gene_set"]

params = snakemake.params
markers_path = snakemake.input.markers
gmt_path = snakemake.input.gene_sets
out_path = snakemake.output.table

try:
    top_n = int(params.top_n)
    max_padj = float(params.max_padj)
    min_logfc = float(params.min_logfc)
    min_genes = int(params.min_genes)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.top_n, max_padj, min_logfc and min_genes must be numbers (config.yaml)")


def read_gmt(path: str) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            fields = line.rstrip("\r\n").split("\t")
            if not fields[0].strip():
                continue
            if len(fields) < 3:
                fail(f"{path} line {lineno} is not GMT (name<TAB>description<TAB>genes...): {line.strip()[:80]!r}")
            genes = [g.strip() for g in fields[2:] if g.strip()]
            sets[fields[0].strip()] = sorted(set(sets.get(fields[0].strip(), [])) | set(genes))
    if not sets:
        fail(f"{path} holds no gene set; expected a GMT gene set library.")
    return sets


markers = read_marker_table(markers_path)
missing = [c for c in ("cluster", "gene") if c not in markers.columns]
if missing:
    fail(f"the marker table {markers_path} lacks column(s) {', '.join(missing)}; columns are {list(markers.columns)}")
library = read_gmt(gmt_path)

# Case-insensitive matching: give library genes the marker table's spelling.
spelling = {str(g).upper(): str(g) for g in sorted(markers["gene"].dropna().astype(str))}
library = {name: sorted({spelling.get(g.upper(), g) for g in genes}) for name, genes in library.items()}

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
    if len(lfc) and lfc.isna().all():
        LOG.warning("every logfoldchange of %s is NA: the min_logfc=%g filter cannot apply; markers are "
                    "selected by rank and adjusted p-value only", markers_path, min_logfc)
    sel = sel[lfc.isna() | (lfc > min_logfc)]

# background: the measured genes (all genes the marker table ranks), as the test's universe
background = sorted(set(markers["gene"].dropna().astype(str)))
in_library = len(set(background) & {g for genes in library.values() for g in genes})
LOG.info("background: %d measured genes (%d of them in %s)", len(background), in_library, gmt_path)

library_name = os.path.basename(gmt_path)
frames = []
for cluster in sorted(markers["cluster"].dropna().astype(str).unique(), key=cluster_sort_key):
    genes = sorted(set(sel.loc[sel["cluster"] == cluster, "gene"].astype(str)))
    if len(genes) < min_genes:
        LOG.info("cluster %s: %d marker genes pass the filters (< min_genes=%d), skipped", cluster, len(genes), min_genes)
        continue
    try:
        enr = gseapy.enrich(gene_list=genes, gene_sets=library, background=background, outdir=None, cutoff=1.0,
                            no_plot=True, verbose=False)
    except Exception as exc:  # noqa: BLE001 - gseapy raises bare Exceptions when nothing overlaps
        LOG.info("cluster %s: no enrichment result (%s)", cluster, exc)
        continue
    res = getattr(enr, "results", None)
    if res is None or len(res) == 0:
        LOG.info("cluster %s: no gene set overlaps its %d marker genes", cluster, len(genes))
        continue
    res = res.copy()
    res["Gene_set"] = library_name
    if "Genes" in res:  # gseapy joins the overlap in set order; sort it for stable output
        res["Genes"] = res["Genes"].astype(str).map(lambda s: ";".join(sorted(s.split(";"))))
    res.insert(0, "cluster", cluster)
    frames.append(res)
    LOG.info("cluster %s: %d marker genes overlap %d gene sets", cluster, len(genes), len(res))

if frames:
    table = pd.concat(frames, ignore_index=True)
    extra = [c for c in table.columns if c not in COLUMNS]
    table = table[[c for c in COLUMNS if c in table.columns] + extra]
    table["_order"] = table["cluster"].map(lambda c: cluster_sort_key(str(c)))
    table = table.sort_values(["_order", "Adjusted P-value", "P-value", "Term"], kind="mergesort").drop(columns="_order")
else:
    LOG.warning("no cluster has enough marker genes overlapping %s; writing an empty table", gmt_path)
    table = pd.DataFrame(columns=COLUMNS)
table.to_csv(out_path, sep="\t", index=False, float_format="%.6g")
LOG.info("wrote %s (%d rows)", out_path, len(table))
