"""Pre-ranked gene set enrichment analysis with GSEApy (Snakemake script).

Inputs: ranked (tsv/csv: gene id, score; header optional, e.g. the de_rank output) and gene_sets
(GMT). Ensembl version suffixes are stripped on both sides (a gene listed twice keeps its
largest |score|). Output: table (tsv) with Term, ES, NES, NOM p-val, FDR q-val, FWER p-val,
Tag % (hits/set size in the leading edge), Lead_genes (';'-joined), sorted by FDR q-val then Term.
No gene set within min_size..max_size overlapping genes -> a header-only table and a warning.
Deterministic: fixed seed. Params: permutation_num, min_size, max_size, weight, seed.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_gmt, strip_version

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd


COLUMNS = ["Term", "ES", "NES", "NOM p-val", "FDR q-val", "FWER p-val", "Tag %", "Lead_genes"]


def read_ranking(path):
    with open(path, encoding="utf-8-sig") as handle:
        lines = [line.rstrip("\r\n") for line in handle if line.strip() and not line.startswith("#")]
    sep = "\t" if lines and "\t" in lines[0] else ","
    rows = [line.split(sep) for line in lines]
    if any(len(r) < 2 for r in rows):
        fail(f"'{path}' must have two columns: gene id and ranking score.")
    table = pd.DataFrame({"gene": [r[0].strip().strip('"') for r in rows],
                          "score": pd.to_numeric([r[1].strip() for r in rows], errors="coerce")})
    if pd.isna(table["score"].iloc[0]):  # header line
        table = table.iloc[1:]
    bad = table["score"].isna()
    if bad.any():
        fail(f"'{path}' has a non-numeric score for gene {table.loc[bad, 'gene'].iloc[0]!r}.")
    table["gene"] = table["gene"].map(strip_version)
    table["abs"] = table["score"].abs()
    table = table.sort_values(["abs", "gene"], ascending=[False, True], kind="mergesort").drop_duplicates("gene")
    return table.sort_values(["score", "gene"], ascending=[False, True], kind="mergesort")[["gene", "score"]]


def write(table, path):
    table.reindex(columns=COLUMNS).to_csv(path, sep="\t", index=False, float_format="%.6g", na_rep="NA")


def main():
    import gseapy

    params = snakemake.params
    out = snakemake.output.table
    ranking = read_ranking(snakemake.input.ranked)
    sets = read_gmt(snakemake.input.gene_sets)
    ranked_genes = set(ranking["gene"])
    sizes = {t: sum(g in ranked_genes for g in members) for t, members in sets.items()}
    usable = [t for t, n in sizes.items() if int(params.min_size) <= n <= int(params.max_size)]
    LOG.info("%d ranked genes; %d of %d gene sets have %s-%s ranked genes", len(ranking), len(usable), len(sets),
             params.min_size, params.max_size)
    if not usable:
        LOG.warning("no gene set within the size limits (id types differ?): writing a header-only table; "
                    "ranked ids look like %s", ranking["gene"].head(3).tolist())
        return write(pd.DataFrame(columns=COLUMNS), out)
    pre = gseapy.prerank(rnk=ranking.reset_index(drop=True), gene_sets={t: sets[t] for t in usable},
                         min_size=int(params.min_size), max_size=int(params.max_size),
                         permutation_num=int(params.permutation_num), weight=float(params.weight),
                         threads=max(1, int(snakemake.threads)), seed=int(params.seed), outdir=None,
                         no_plot=True, verbose=False)
    res = pre.res2d.copy()
    for col in ("ES", "NES", "NOM p-val", "FDR q-val", "FWER p-val"):
        res[col] = pd.to_numeric(res[col], errors="coerce")
    res = res.sort_values(["FDR q-val", "Term"], kind="mergesort", na_position="last")
    write(res, out)
    top = res.iloc[0]
    LOG.info("%d gene sets tested; %d with FDR < 0.25; top: %s (NES %.3f, FDR %.3g)", len(res),
             int((res["FDR q-val"] < 0.25).sum()), top["Term"], top["NES"], top["FDR q-val"])


main()
