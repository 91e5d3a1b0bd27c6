"""Ranked gene list from a differential expression table, for pre-ranked GSEA (Snakemake script).

Input: table (DESeq2/edgeR/limma-style tsv/csv). Output: ranked, a tsv with header
`gene_id<TAB>score`, sorted by score (descending) then gene_id; genes without a score are dropped.
Params: metric = "stat" (the test statistic: DESeq2 Wald, limma t, edgeR signed sqrt(F)) or
"signed_p" (sign(log2FoldChange) * -log10(pvalue)); "stat" falls back to "signed_p" when the table
has no statistic column.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_de_table

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import numpy as np
import pandas as pd


def main():
    metric = (snakemake.params.metric or "stat").lower()
    if metric not in ("stat", "signed_p"):
        fail(f"params.metric must be 'stat' or 'signed_p', not {snakemake.params.metric!r}.")
    table = read_de_table(snakemake.input.table, ["gene_id"])
    if metric == "stat" and ("stat" not in table.columns or table["stat"].isna().all()):
        LOG.warning("no test statistic in the table; ranking by sign(log2FoldChange) * -log10(pvalue)")
        metric = "signed_p"
    if metric == "stat":
        score = table["stat"]
    else:
        missing = [c for c in ("log2FoldChange", "pvalue") if c not in table.columns]
        if missing:
            fail(f"the DE table '{snakemake.input.table}' lacks {missing}, needed for the signed_p ranking.")
        pvalue = table["pvalue"].clip(lower=np.finfo(float).tiny)
        score = np.sign(table["log2FoldChange"]) * -np.log10(pvalue)
    ranked = pd.DataFrame({"gene_id": table["gene_id"], "score": score}).dropna()
    ranked = ranked[np.isfinite(ranked["score"])]
    ranked = ranked.sort_values(["score", "gene_id"], ascending=[False, True], kind="mergesort")
    ranked = ranked.drop_duplicates("gene_id")
    if ranked.empty:
        fail(f"no gene of '{snakemake.input.table}' has a usable {metric} score.")
    ranked.to_csv(snakemake.output.ranked, sep="\t", index=False, float_format="%.6g")
    LOG.info("ranked %d genes by %s (dropped %d without a score)", len(ranked), metric, len(table) - len(ranked))


main()
