"""Over-representation analysis of a gene list against a GMT library with GSEApy (Snakemake script).

Offline: gseapy.enrich (hypergeometric test) on the local gene set library, never Enrichr.
Inputs: genes (first column, header optional) and gene_sets (GMT). Ensembl version suffixes are
stripped on both sides. Background: gseapy's default for a local library, i.e. every gene in the
(size-filtered) GMT. Gene sets with fewer than min_size or more than max_size genes are skipped.
Output: table (tsv) with Term, Overlap (hits/set size), P-value, Adjusted P-value (Benjamini-
Hochberg over the terms hit at least once), Genes (';'-joined), sorted by adjusted p then Term.
No overlap (or an empty list) gives a header-only file and a warning, not an error.
Params: min_size, max_size.
"""

import bioplan_step
from bioplan_step import LOG, gene_order, read_gene_list, read_gmt, strip_version

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd


COLUMNS = ["Term", "Overlap", "P-value", "Adjusted P-value", "Genes"]


def write(table, path):
    table = table.reindex(columns=COLUMNS)
    table.to_csv(path, sep="\t", index=False, float_format="%.6g", na_rep="NA")


def main():
    import gseapy

    params = snakemake.params
    out = snakemake.output.table
    genes = list(dict.fromkeys(strip_version(g) for g in read_gene_list(snakemake.input.genes)))
    library = read_gmt(snakemake.input.gene_sets)
    sets = {t: g for t, g in library.items() if int(params.min_size) <= len(g) <= int(params.max_size)}
    LOG.info("%d genes; %d of %d gene sets with %s-%s genes", len(genes), len(sets), len(library),
             params.min_size, params.max_size)
    universe = {g for members in sets.values() for g in members}
    hits = [g for g in genes if g in universe]
    LOG.info("%d of the %d genes are in the gene set library (background: %d genes)", len(hits), len(genes), len(universe))
    if not hits:
        LOG.warning("no input gene is in the gene set library (id types differ?): writing a header-only table; "
                    "input ids look like %s, library ids like %s", genes[:3], sorted(universe)[:3])
        return write(pd.DataFrame(columns=COLUMNS), out)
    enr = gseapy.enrich(gene_list=genes, gene_sets=sets, background=None, outdir=None, cutoff=1.0,
                        no_plot=True, verbose=False)
    res = enr.results if enr.results is not None else pd.DataFrame(columns=COLUMNS)
    if res.empty:
        LOG.warning("no enriched term: writing a header-only table")
        return write(pd.DataFrame(columns=COLUMNS), out)
    res["Genes"] = [";".join(sorted(str(g).split(";"), key=gene_order)) for g in res["Genes"]]
    for col in ("P-value", "Adjusted P-value"):
        res[col] = pd.to_numeric(res[col], errors="coerce")
    res = res.sort_values(["Adjusted P-value", "Term"], kind="mergesort", na_position="last")
    write(res, out)
    top = res.iloc[0]
    LOG.info("%d terms tested; %d with adjusted p < 0.05; top: %s (%s, adj. p %.3g)", len(res),
             int((res["Adjusted P-value"] < 0.05).sum()), top["Term"], top["Overlap"], top["Adjusted P-value"])


main()
