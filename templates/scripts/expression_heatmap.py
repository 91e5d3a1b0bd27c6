"""Heatmap of the normalised expression of selected genes (Snakemake script).

Inputs: normalized (genes x samples matrix, first column = gene id, log-scale values such as VST
or log-CPM) and genes (gene list, first column, e.g. the significant genes; matched exactly, else
without Ensembl version suffixes). The first max_genes genes of the list are drawn as row z-scores,
rows ordered by their loading on the first principal component (up- and down-regulated blocks
separate), columns in matrix order. Output: plot (PNG, deterministic). No listed gene in the
matrix -> a PNG saying so and a warning.
Params: max_genes, title.
"""

import bioplan_step
from bioplan_step import LOG, fail, message_figure, pyplot, read_gene_list, read_table, save_png, strip_version

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd

plt = pyplot()


def read_matrix(path):
    table = read_table(path, "normalised expression matrix")
    genes = table.iloc[:, 0].str.strip()
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values = values.loc[:, values.notna().any()]
    if values.shape[1] < 2:
        fail(f"'{path}' needs a gene id column and at least 2 numeric sample columns.")
    values.index = genes
    return values[~values.index.duplicated()]


def main():
    params = snakemake.params
    matrix = read_matrix(snakemake.input.normalized)
    wanted = read_gene_list(snakemake.input.genes)
    stripped = {strip_version(g): g for g in matrix.index}
    rows = []
    for gene in wanted:
        hit = gene if gene in matrix.index else stripped.get(strip_version(gene))
        if hit is not None and hit not in rows:
            rows.append(hit)
    LOG.info("%d of %d listed genes are in the matrix (%d genes x %d samples)", len(rows), len(wanted), *matrix.shape)
    if not rows:
        LOG.warning("no listed gene in the expression matrix: drawing a placeholder")
        return message_figure(snakemake.output.plot, "No selected genes to draw" if not wanted else
                              "None of the selected genes is in the expression matrix")
    rows = rows[: int(params.max_genes)]
    sub = matrix.loc[rows].astype(float)
    sd = sub.std(axis=1, ddof=1).replace(0, np.nan)
    z = sub.sub(sub.mean(axis=1), axis=0).div(sd, axis=0).fillna(0.0)
    if len(z) > 2:
        u, _, _ = np.linalg.svd(z.to_numpy(), full_matrices=False)
        score = u[:, 0] * np.sign(u[np.argmax(np.abs(u[:, 0])), 0])
        z = z.iloc[np.lexsort((np.array(z.index, dtype=str), -score))]
    limit = max(2.0, float(np.nanmax(np.abs(z.to_numpy()))))
    height = min(2 + 0.18 * len(z), 20)
    fig, ax = plt.subplots(figsize=(max(4, 0.5 * z.shape[1] + 3), height))
    image = ax.imshow(z.to_numpy(), aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.set_xticks(range(z.shape[1]), z.columns, rotation=90)
    if len(z) <= 80:
        ax.set_yticks(range(len(z)), z.index, fontsize=6)
    else:
        ax.set_yticks([])
    ax.set_title(params.title or f"Expression of {len(z)} selected genes (row z-score)")
    fig.colorbar(image, ax=ax, shrink=0.6, label="z-score")
    save_png(fig, snakemake.output.plot)


main()
