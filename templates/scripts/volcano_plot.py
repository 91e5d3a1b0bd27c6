"""Volcano plot of a differential expression table (Snakemake script).

Input: table (DESeq2/edgeR/limma-style tsv/csv). Output: plot (PNG): log2 fold change against
-log10 p-value, genes with padj < alpha and |log2FC| >= lfc_threshold coloured up (red) / down
(blue), threshold lines, and the label_top most significant genes labelled (a symbol/gene_name
column is used for labels when present). Deterministic PNG (no timestamp).
Params: alpha, lfc_threshold, label_top, title.
"""

import bioplan_step
from bioplan_step import LOG, fail, message_figure, pyplot, read_de_table, save_png

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np

plt = pyplot()


def main():
    params = snakemake.params
    alpha, lfc_min = float(params.alpha), float(params.lfc_threshold)
    table = read_de_table(snakemake.input.table, ["gene_id", "log2FoldChange"])
    pcol = "pvalue" if "pvalue" in table.columns and table["pvalue"].notna().any() else "padj"
    if pcol not in table.columns:
        fail(f"the DE table '{snakemake.input.table}' has neither a pvalue nor a padj column.")
    data = table.dropna(subset=["log2FoldChange", pcol]).copy()
    if data.empty:
        LOG.warning("no gene with both a fold change and a p-value: drawing an empty plot")
        return message_figure(snakemake.output.plot, "No tested genes in the DE table")
    floor = data.loc[data[pcol] > 0, pcol].min() if (data[pcol] > 0).any() else 1e-300
    data["y"] = -np.log10(data[pcol].clip(lower=floor))
    padj = data["padj"] if "padj" in data.columns else data[pcol]
    sig = (padj < alpha) & (data["log2FoldChange"].abs() >= lfc_min)
    up, down = sig & (data["log2FoldChange"] > 0), sig & (data["log2FoldChange"] < 0)
    label_col = next((c for c in data.columns if c.lower() in ("symbol", "gene_name", "gene_symbol")), "gene_id")

    fig, ax = plt.subplots(figsize=(6, 5))
    ax.scatter(data.loc[~sig, "log2FoldChange"], data.loc[~sig, "y"], s=6, c="#b0b0b0", linewidths=0,
               label=f"n.s. ({int((~sig).sum())})", rasterized=len(data) > 5000)
    ax.scatter(data.loc[up, "log2FoldChange"], data.loc[up, "y"], s=10, c="#d62728", linewidths=0, label=f"up ({int(up.sum())})")
    ax.scatter(data.loc[down, "log2FoldChange"], data.loc[down, "y"], s=10, c="#1f77b4", linewidths=0,
               label=f"down ({int(down.sum())})")
    for x in (-lfc_min, lfc_min):
        if lfc_min > 0:
            ax.axvline(x, color="#555555", lw=0.6, ls="--")
    if "padj" in data.columns and (padj < alpha).any():  # p-value level where padj crosses alpha
        ax.axhline(data.loc[padj < alpha, "y"].min(), color="#555555", lw=0.6, ls=":")
    top = data[sig].sort_values([pcol, "gene_id"], kind="mergesort").head(int(params.label_top))
    for _, row in top.iterrows():
        ax.annotate(str(row[label_col]), (row["log2FoldChange"], row["y"]), fontsize=6, xytext=(2, 2),
                    textcoords="offset points")
    ax.set_xlabel("log2 fold change")
    ax.set_ylabel(f"-log10 {'p-value' if pcol == 'pvalue' else 'adjusted p-value'}")
    ax.set_title(params.title or f"Volcano plot (padj < {alpha:g}, |log2FC| >= {lfc_min:g})")
    ax.legend(frameon=False, loc="upper left", markerscale=2)
    save_png(fig, snakemake.output.plot)
    LOG.info("%d genes plotted; %d up, %d down", len(data), int(up.sum()), int(down.sum()))


main()
