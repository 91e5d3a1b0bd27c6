"""Sample-to-sample distances and hierarchical clustering of samples (Snakemake script).

Inputs: normalized (features x samples matrix, first column = gene or peak id, log-scale values
such as VST or log-CPM) and samples (tsv/csv with a `sample` column and the condition column).
As the DESeq2 vignette and nf-core/rnaseq's deseq2_qc do: Euclidean distances between the samples
over the ntop most variable features (all features when ntop is unset), hierarchical clustering of
the samples on those distances (scipy, `method` linkage; complete = R's hclust default), and a
heatmap of the distance matrix in the clustering's leaf order with the dendrogram and a condition
colour bar. Outputs: plot (PNG, deterministic), distances (tsv: `sample` then one column per
sample, rows and columns in the leaf order), tree (Newick of the clustering, branch lengths = half
the merge heights). Params: condition_column, ntop, method, title.
"""

import bioplan_step
from bioplan_step import LOG, fail, pyplot, read_table, samples_with_metadata, save_png

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd
from scipy.cluster import hierarchy
from scipy.spatial.distance import pdist, squareform

plt = pyplot()
METHODS = ("complete", "average", "single", "ward")


def sample_sheet(path, condition):
    meta = read_table(path, "sample metadata")
    lower = {c.lower(): c for c in meta.columns}
    if "sample" not in lower:
        fail(f"the sample metadata '{path}' has no 'sample' column (columns: {', '.join(meta.columns)}).")
    if condition not in meta.columns:
        fail(f"the sample metadata '{path}' has no column '{condition}' (columns: {', '.join(meta.columns)}). "
             "Set params.condition_column.")
    return meta.rename(columns={lower["sample"]: "sample"}).drop_duplicates("sample").set_index("sample")


def matrix(path, meta):
    """The normalised values of the samples the sheet names, features with a missing value dropped."""
    table = read_table(path, "normalised expression matrix")
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values.index = table.iloc[:, 0].str.strip()
    samples = samples_with_metadata(values.columns, meta.index, "clustering", f"columns of '{path}'")
    data = values[samples].dropna()
    if data.empty:
        fail(f"'{path}' has no feature with a value in every sample.")
    return data


def most_variable(data, ntop):
    if not ntop:
        return data
    variance = data.var(axis=1, ddof=1)
    return data.loc[variance.sort_values(ascending=False, kind="mergesort").head(int(ntop)).index]


def newick_label(name):
    """A sample name as a Newick label: quoted (quotes doubled) unless it is plain."""
    plain = name.replace("_", "").replace("-", "").replace(".", "").isalnum()
    return name if plain else "'" + name.replace("'", "''") + "'"


def newick(node, names, parent_height):
    """Newick text of a scipy ClusterNode; branch length = parent's height less the node's (halved:
    the merge height of a complete/average linkage is the distance between the two clusters)."""
    length = (parent_height - node.dist) / 2
    if node.is_leaf():
        return f"{newick_label(names[node.id])}:{length:.6g}"
    children = ",".join(newick(child, names, node.dist) for child in (node.left, node.right))
    return f"({children}):{length:.6g}"


def plot(distances, order, linkage, groups, condition, title):
    fig = plt.figure(figsize=(7, 6))
    dendro_ax = fig.add_axes([0.12, 0.78, 0.66, 0.17])
    hierarchy.dendrogram(linkage, ax=dendro_ax, color_threshold=0, above_threshold_color="black", no_labels=True)
    dendro_ax.set_axis_off()
    bar_ax = fig.add_axes([0.12, 0.745, 0.66, 0.03])
    levels = sorted(set(groups))
    colours = plt.get_cmap("tab10" if len(levels) <= 10 else "tab20")
    codes = np.array([[levels.index(groups[i]) for i in order]])
    bar_ax.imshow(codes, aspect="auto", cmap=colours, vmin=0, vmax=colours.N - 1, interpolation="nearest")
    bar_ax.set_axis_off()
    heat_ax = fig.add_axes([0.12, 0.12, 0.66, 0.62])
    image = heat_ax.imshow(distances, cmap="Blues_r", aspect="auto", interpolation="nearest")
    labels = distances.index.tolist()
    heat_ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=6)
    heat_ax.set_yticks(range(len(labels)), labels, fontsize=6)
    fig.colorbar(image, cax=fig.add_axes([0.82, 0.12, 0.03, 0.62]), label="Euclidean distance")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(i % colours.N)) for i in range(len(levels))]
    fig.legend(handles, levels, title=condition, loc="upper right", frameon=False, fontsize=7)
    fig.suptitle(title, fontsize=9, x=0.45)
    return fig


def main():
    params = snakemake.params
    condition = params.condition_column or "condition"
    method = params.method or "complete"
    if method not in METHODS:
        fail(f"params.method '{method}' is no linkage this step knows; use one of {', '.join(METHODS)}.")
    meta = sample_sheet(snakemake.input.samples, condition)
    data = most_variable(matrix(snakemake.input.normalized, meta), params.ntop)
    samples = data.columns.tolist()
    condensed = pdist(data.to_numpy().T, metric="euclidean")
    linkage = hierarchy.linkage(condensed, method=method)
    order = hierarchy.leaves_list(linkage).tolist()
    ordered = [samples[i] for i in order]
    distances = pd.DataFrame(squareform(condensed), index=samples, columns=samples).loc[ordered, ordered]
    distances.index.name = "sample"
    distances.round(6).to_csv(snakemake.output.distances, sep="\t")
    root = hierarchy.to_tree(linkage)
    with open(snakemake.output.tree, "w") as handle:
        handle.write(newick(root, samples, root.dist).rsplit(":", 1)[0] + ";\n")
    groups = meta.loc[samples, condition].astype(str).tolist()
    title = params.title or f"Sample distances ({len(data)} features, {method} linkage)"
    save_png(plot(distances, order, linkage, groups, condition, title), snakemake.output.plot)
    LOG.info("%d samples over %d features; clustering order: %s", len(samples), len(data), ", ".join(ordered))


main()
