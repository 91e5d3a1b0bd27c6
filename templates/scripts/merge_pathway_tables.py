"""Merge a KEGG and a GO enrichment table into one table (Snakemake script).

Inputs: kegg and go (tsv/csv enrichment tables: the bioplan layout Term, Overlap, P-value,
Adjusted P-value, Genes; clusterProfiler ID/Description/GeneRatio/pvalue/p.adjust/geneID and GSEA
columns are recognised too). Output: merged, a tsv with the columns source (KEGG | GO), term,
overlap, pvalue, padj, genes (';'-joined); rows sorted by source (KEGG first, then GO), then padj,
then term. Empty inputs contribute no rows.
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


FIELDS = {
    "term": ("term", "name", "pathway", "description", "term_name", "go_term", "pathway_name"),
    "overlap": ("overlap", "generatio", "tag %", "count", "size", "setsize"),
    "pvalue": ("p-value", "pvalue", "p.value", "pval", "p_value", "nom p-val"),
    "padj": ("adjusted p-value", "p.adjust", "padj", "fdr", "fdr q-val", "qvalue", "q-value", "adj_pval"),
    "genes": ("genes", "geneid", "gene_ids", "lead_genes", "leadingedge", "core_enrichment", "overlap_genes"),
}
OUT = ["source", "term", "overlap", "pvalue", "padj", "genes"]


def harmonise(path, source):
    table = read_table(path, f"{source} enrichment table")
    lower = {c.lower(): c for c in table.columns}
    out = pd.DataFrame(index=table.index)
    for field, names in FIELDS.items():
        hit = next((lower[n] for n in names if n in lower), None)
        out[field] = table[hit] if hit is not None else ""
    if "count" in lower and "bgratio" in lower:  # clusterProfiler: hits / gene set size, as GSEApy's Overlap
        out["overlap"] = table[lower["count"]] + "/" + table[lower["bgratio"]].str.split("/").str[0]
    if "id" in lower and "description" in lower and "term" not in lower:  # clusterProfiler: "ID Description"
        out["term"] = (table[lower["id"]] + " " + table[lower["description"]]).str.strip()
    if table.shape[0] and (out["term"] == "").all():
        fail(f"no term column in the {source} table '{path}' (columns: {', '.join(table.columns)}).")
    if table.shape[0] and (out["padj"] == "").all() and (out["pvalue"] == "").all():
        fail(f"no p-value column in the {source} table '{path}' (columns: {', '.join(table.columns)}).")
    for field in ("pvalue", "padj"):
        out[field] = pd.to_numeric(out[field].replace({"": None}), errors="coerce")
    out["genes"] = out["genes"].str.replace("/", ";", regex=False).str.replace(",", ";", regex=False)
    out.insert(0, "source", source)
    LOG.info("%s: %d terms from '%s'", source, len(out), path)
    return out


def main():
    parts = [harmonise(snakemake.input.kegg, "KEGG"), harmonise(snakemake.input.go, "GO")]
    merged = pd.concat(parts, ignore_index=True)
    merged["_order"] = merged["source"].map({"KEGG": 0, "GO": 1})
    merged = merged.sort_values(["_order", "padj", "term"], kind="mergesort", na_position="last")
    merged[OUT].to_csv(snakemake.output.merged, sep="\t", index=False, float_format="%.6g", na_rep="NA")
    LOG.info("merged %d terms", len(merged))


run(main)
