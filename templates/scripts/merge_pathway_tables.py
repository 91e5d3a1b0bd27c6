"""Merge a KEGG and a GO enrichment table into one table (Snakemake script).

Inputs: kegg and go (tsv/csv enrichment tables: the bioplan layout Term, Overlap, P-value,
Adjusted P-value, Genes; clusterProfiler ID/Description/GeneRatio/pvalue/p.adjust/geneID and GSEA
columns are recognised too). Output: merged, a tsv with the columns source (KEGG | GO), term,
overlap, pvalue, padj, genes (';'-joined); rows sorted by source (KEGG first, then GO), then padj,
then term. Empty inputs contribute no rows.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd


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


main()
