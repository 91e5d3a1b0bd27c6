"""PCA of samples from a normalised expression matrix (Snakemake script).

Inputs: normalized (genes x samples matrix, first column = gene id, log-scale values such as VST
or log-CPM) and samples (tsv/csv with a `sample` column and the condition column). PCA (SVD) of
the ntop most variable genes, centred per gene, as DESeq2's plotPCA; the sign of each component
is fixed (largest loading positive) so the plot is reproducible. Points are coloured by the
condition column and labelled with the sample name. Outputs: plot (PNG, deterministic) and table
(tsv: `sample`, the condition column, then PC1..PCn scores; a last row `percent_variance` holds
each component's share of the variance, as plotPCA's axis labels). Params: condition_column, ntop,
title.
"""

import bioplan_step
from bioplan_step import LOG, fail, pyplot, read_table, samples_with_metadata, save_png

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd

plt = pyplot()


def write_scores(path, samples, groups, condition, pcs, explained):
    columns = [f"PC{i + 1}" for i in range(pcs.shape[1])]
    scores = pd.DataFrame(np.round(pcs, 6), columns=columns)
    scores.insert(0, condition, groups)
    scores.insert(0, "sample", samples)
    share = pd.DataFrame([["percent_variance", "", *np.round(explained, 4)]], columns=scores.columns)
    pd.concat([scores, share], ignore_index=True).to_csv(path, sep="\t", index=False)


def main():
    params = snakemake.params
    condition = params.condition_column or "condition"
    table = read_table(snakemake.input.normalized, "normalised expression matrix")
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values.index = table.iloc[:, 0].str.strip()
    meta = read_table(snakemake.input.samples, "sample metadata")
    lower = {c.lower(): c for c in meta.columns}
    if "sample" not in lower:
        fail(f"the sample metadata '{snakemake.input.samples}' has no 'sample' column (columns: {', '.join(meta.columns)}).")
    if condition not in meta.columns:
        fail(f"the sample metadata '{snakemake.input.samples}' has no column '{condition}' (columns: "
             f"{', '.join(meta.columns)}). Set params.condition_column.")
    meta = meta.rename(columns={lower["sample"]: "sample"}).drop_duplicates("sample").set_index("sample")
    samples = samples_with_metadata(values.columns, meta.index, "a PCA")
    data = values[samples].dropna()
    variance = data.var(axis=1, ddof=1)
    top = variance.sort_values(ascending=False, kind="mergesort").head(int(params.ntop)).index
    x = data.loc[top].to_numpy().T
    x = x - x.mean(axis=0)
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
    pcs = u * s * signs
    explained = s**2 / np.sum(s**2) * 100
    groups = meta.loc[samples, condition].tolist()
    levels = sorted(set(groups))
    colours = plt.get_cmap("tab10" if len(levels) <= 10 else "tab20")
    fig, ax = plt.subplots(figsize=(6, 5))
    for i, level in enumerate(levels):
        mask = np.array([g == level for g in groups])
        ax.scatter(pcs[mask, 0], pcs[mask, 1], s=40, color=colours(i % colours.N), label=level)
    for i, sample in enumerate(samples):
        ax.annotate(sample, (pcs[i, 0], pcs[i, 1]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(f"PC1 ({explained[0]:.1f}% variance)")
    ax.set_ylabel(f"PC2 ({explained[1]:.1f}% variance)")
    ax.set_title(params.title or f"PCA of {len(samples)} samples ({len(top)} most variable genes)")
    ax.legend(title=condition, frameon=False, fontsize=7)
    save_png(fig, snakemake.output.plot)
    write_scores(snakemake.output.table, samples, groups, condition, pcs, explained)
    LOG.info("PCA on %d genes x %d samples: PC1 %.1f%%, PC2 %.1f%%", len(top), len(samples), explained[0], explained[1])


main()
