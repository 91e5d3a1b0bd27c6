"""Volcano plot of a differential expression table (Snakemake script).

Input: table (DESeq2/edgeR/limma-style tsv/csv). Output: plot (PNG): log2 fold change against
-log10 p-value, genes with padj < alpha and |log2FC| >= lfc_threshold coloured up (red) / down
(blue), threshold lines, and the label_top most significant genes labelled (a symbol/gene_name
column is used for labels when present). Deterministic PNG (no timestamp).
Params: alpha, lfc_threshold, label_top, title.
"""

# --- shared helpers (each bioplan step script is self-contained) --------------
import logging
import re
import sys
import traceback

import numpy as np
import pandas as pd

LOG = logging.getLogger("bioplan")


def setup_logging():
    """Send logging, stdout and library warnings to the rule's log file."""
    handle = open(snakemake.log[0], "w", encoding="utf-8")
    logging.basicConfig(stream=handle, level=logging.INFO, format="%(levelname)s: %(message)s")
    sys.stdout = handle
    sys.stderr = handle


def fail(message):
    """Report a data problem to the log and the terminal, then stop with exit code 1."""
    LOG.error(message)
    print(f"ERROR [{snakemake.rule}]: {message}", file=sys.__stderr__)
    sys.exit(1)


def run(main):
    setup_logging()
    try:
        main()
    except SystemExit:
        raise
    except Exception as exc:  # a bug or an unforeseen input: keep the traceback in the log
        LOG.error(traceback.format_exc())
        fail(f"unexpected {type(exc).__name__}: {exc} (traceback in {snakemake.log[0]})")


def sniff_sep(path):
    """Tab if the first non-empty line has a tab, else comma if it has one, else tab."""
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                if "\t" in line:
                    return "\t"
                return "," if "," in line else "\t"
    return "\t"


def read_table(path, what):
    """Read a tsv/csv table with a header; every column as text."""
    try:
        table = pd.read_csv(path, sep=sniff_sep(path), dtype=str, comment=None,
                            keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        fail(f"the {what} file '{path}' is empty.")
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        fail(f"cannot parse the {what} file '{path}' as tsv/csv: {exc}")
    table.columns = [str(c).strip() for c in table.columns]
    return table
# ------------------------------------------------------------------------------

# --- reading a differential expression table (any common DE tool layout) -------
DE_COLUMNS = {
    "gene_id": ("gene_id", "gene", "geneid", "gene_ids", "id", "ensembl_gene_id", "ensembl_id", "symbol",
                "gene_symbol", "gene_name", "feature", "feature_id", "row", "", "unnamed: 0"),
    "log2FoldChange": ("log2foldchange", "logfc", "log2fc", "log2_fold_change", "log2_fc", "lfc", "avg_log2fc"),
    "pvalue": ("pvalue", "p.value", "pval", "p_value", "p-value", "pvals"),
    "padj": ("padj", "fdr", "adj.p.val", "p.adjust", "qvalue", "q_value", "q-value", "adj_pval", "pvals_adj",
             "p_val_adj", "adjusted p-value"),
    "stat": ("stat", "t", "wald", "statistic", "z", "scores"),
}


def read_de_table(path, need):
    """Read a DE table; rename recognised columns to the DESeq2 names; check the `need` ones."""
    table = read_table(path, "differential expression table")
    original = list(table.columns)
    lower = {c.lower(): c for c in table.columns}
    rename = {}
    for target, names in DE_COLUMNS.items():
        hit = next((lower[n] for n in names if n in lower), None)
        if hit is None and target == "gene_id":
            hit = table.columns[0]
        if hit is not None and hit not in rename:
            rename[hit] = target
    table = table.rename(columns=rename)
    missing = [c for c in need if c not in table.columns]
    if missing:
        fail(f"the DE table '{path}' lacks column(s) {missing} (columns: {', '.join(original)}); "
             "expected a DESeq2/edgeR/limma-style table with gene_id, log2FoldChange, pvalue and padj.")
    table["gene_id"] = table["gene_id"].str.strip()
    for col in ("log2FoldChange", "pvalue", "padj", "stat"):
        if col in table.columns:
            table[col] = pd.to_numeric(table[col].replace({"": None}), errors="coerce")
    return table
# ------------------------------------------------------------------------------

# --- deterministic matplotlib output ----------------------------------------------
try:  # the Python tools are bioplan's `tools` extra, not installed with bioplan itself
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ModuleNotFoundError as exc:
    fail(f"Python package {str(exc.name).split('.')[0]!r} is not installed: pip install 'bioplan[tools]' "
         "(or run the rule's conda env: snakemake --sdm conda)")

plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})


def save_png(fig, path, dpi=150):
    """PNG without a timestamp or version stamp: the same data give the same bytes."""
    fig.savefig(path, dpi=dpi, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def message_figure(path, text):
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True)
    save_png(fig, path)
# ------------------------------------------------------------------------------


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


run(main)
