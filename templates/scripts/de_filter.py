"""Significant genes from a differential expression table (Snakemake script).

Input: table (DESeq2/edgeR/limma-style tsv/csv; gene_id, log2FoldChange and padj columns are
recognised under their usual names). Output: genes, a tsv with header `gene_id<TAB>direction`
(direction = up | down), one row per gene with padj < alpha and |log2FoldChange| >= lfc_threshold,
sorted by padj then gene_id. Downstream list readers use the first column. No significant gene ->
a header-only file and a warning in the log.
Params: alpha, lfc_threshold, direction (both | up | down).
"""

import bioplan_step
from bioplan_step import LOG, fail, read_de_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


def main():
    params = snakemake.params
    alpha, lfc_min = float(params.alpha), float(params.lfc_threshold)
    keep_dir = (params.direction or "both").lower()
    if keep_dir not in ("both", "up", "down"):
        fail(f"params.direction must be both, up or down, not {params.direction!r}.")
    table = read_de_table(snakemake.input.table, ["gene_id", "log2FoldChange", "padj"])
    sig = table[(table["padj"] < alpha) & (table["log2FoldChange"].abs() >= lfc_min)].copy()
    sig["direction"] = ["up" if x > 0 else "down" for x in sig["log2FoldChange"]]
    if keep_dir != "both":
        sig = sig[sig["direction"] == keep_dir]
    sig = sig.sort_values(["padj", "gene_id"], kind="mergesort").drop_duplicates("gene_id")
    sig[["gene_id", "direction"]].to_csv(snakemake.output.genes, sep="\t", index=False)
    LOG.info("%d of %d genes pass padj < %g and |log2FC| >= %g (%d up, %d down)", len(sig), len(table), alpha,
             lfc_min, int((sig["direction"] == "up").sum()), int((sig["direction"] == "down").sum()))
    if sig.empty:
        LOG.warning("no significant gene: the gene list is empty (header only)")


main()
