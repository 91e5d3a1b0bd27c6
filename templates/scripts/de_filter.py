"""Significant genes from a differential expression table (Snakemake script).

Input: table (DESeq2/edgeR/limma-style tsv/csv; gene_id, log2FoldChange and padj columns are
recognised under their usual names). Output: genes, a tsv with header `gene_id<TAB>direction`
(direction = up | down), one row per gene with padj < alpha and |log2FoldChange| >= lfc_threshold,
sorted by padj then gene_id. Downstream list readers use the first column. No significant gene ->
a header-only file and a warning in the log.
Params: alpha, lfc_threshold, direction (both | up | down).
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


run(main)
