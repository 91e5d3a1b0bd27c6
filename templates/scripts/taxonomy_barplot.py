"""Stacked bars of each sample's relative abundance per taxon (Snakemake script).

Snakemake `script:` step of tool `taxonomy_barplot` (operation taxonomy_barplot_plotting).

input.table   taxa x samples count table (tsv/csv): the first column names the taxon; columns named
              taxid, name, rank, taxonomy_id, taxonomy_lvl, lineage, taxonomy, taxon, description
              are annotation; every other all-numeric column is a sample
output.plot   PNG: one bar per sample (samples in table order), the `top` taxa with the highest mean
              relative abundance by name, the rest as 'Other'. Deterministic PNG (no timestamp).
params        top (10), title ("")
"""

import bioplan_step
from bioplan_step import LOG, fail, message_figure, pyplot, read_table, save_png

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd

plt = pyplot()
ANNOTATION = {"taxid", "name", "rank", "taxonomy_id", "taxonomy_lvl", "lineage", "taxonomy", "taxon", "description"}


def relative_abundance(path):
    table = read_table(path, "abundance table")
    label = "taxon" if "taxon" in table.columns else "name" if "name" in table.columns else table.columns[0]
    numeric = table.drop(columns=[c for c in table.columns if c.lower() in ANNOTATION or c == label])
    numeric = numeric.apply(pd.to_numeric, errors="coerce")
    samples = [c for c in numeric.columns if numeric[c].notna().all()]
    if not samples:
        fail(f"the abundance table '{path}' has no all-numeric sample column.")
    counts = numeric[samples]
    counts.index = table[label].astype(str)
    counts = counts.groupby(level=0, sort=True).sum()
    totals = counts.sum(axis=0)
    return counts.div(totals.where(totals > 0, 1), axis=1)


def main():
    top = int(getattr(snakemake.params, "top", 10))
    if top < 1:
        fail("params.taxonomy_barplot.top must be at least 1.")
    rel = relative_abundance(snakemake.input.table)
    if rel.empty:
        return message_figure(snakemake.output.plot, "No taxa in the abundance table")
    order = sorted(rel.index, key=lambda t: (-rel.loc[t].mean(), t))
    shown = order[:top]
    plotted = rel.loc[shown]
    if len(order) > top:
        plotted.loc["Other"] = rel.loc[order[top:]].sum(axis=0)
    fig, ax = plt.subplots(figsize=(max(4, 0.5 * plotted.shape[1] + 3), 4.5))
    bottom = pd.Series(0.0, index=plotted.columns)
    colours = plt.get_cmap("tab20").colors
    for i, taxon in enumerate(plotted.index):
        colour = "#bdbdbd" if taxon == "Other" else colours[i % len(colours)]
        ax.bar(list(plotted.columns), plotted.loc[taxon].to_numpy(), bottom=bottom.to_numpy(), color=colour,
               label=taxon, width=0.8)
        bottom += plotted.loc[taxon]
    ax.set_ylabel("relative abundance")
    ax.set_ylim(0, 1)
    ax.set_title(str(getattr(snakemake.params, "title", "") or "Taxonomic composition"))
    ax.tick_params(axis="x", labelrotation=90)
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    save_png(fig, snakemake.output.plot)
    LOG.info("%d samples, %d taxa (%d shown by name)", plotted.shape[1], len(order), len(shown))


main()
