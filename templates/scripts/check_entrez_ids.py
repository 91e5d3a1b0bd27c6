"""Precondition check: gene lists hold Entrez Gene ids (Snakemake script).

Runs before a step that needs Entrez ids (KEGG enrichment). Reads every input whose datatype
(params.datatypes) is entrez_gene_list: the first column (header optional) must hold positive
integers only. An empty list passes with a warning. On success writes the `ok` sentinel with a
one-line summary; on failure names the offending ids, says which id type they look like and how
to convert them, and exits 1.
"""

import re

import bioplan_step
from bioplan_step import LOG, check_failed, inputs_of, passed, read_gene_list

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)


ENTREZ = re.compile(r"^[1-9][0-9]*$")


def looks_like(ids):
    if all(re.match(r"^ENS[A-Z0-9]*G\d+", i) for i in ids):
        return "Ensembl gene ids"
    if all(re.match(r"^\d+\.\d+$", i) for i in ids):
        return "decimal numbers (a score or expression column?)"
    if all(re.match(r"^[A-Za-z][A-Za-z0-9.\-]*$", i) for i in ids):
        return "gene symbols"
    return "non-Entrez identifiers"


def main():
    summaries = []
    for name, path in inputs_of("entrez_gene_list", "genes"):
        ids = read_gene_list(path)
        if not ids:
            LOG.warning("'%s' is empty", path)
            summaries.append(f"{name} '{path}': empty list")
            continue
        bad = [i for i in ids if not ENTREZ.match(i)]
        if bad:
            check_failed(
                f"'{path}' must hold Entrez Gene ids (positive integers), but {len(bad)} of {len(ids)} ids are not: "
                f"{', '.join(bad[:10])}{' ...' if len(bad) > 10 else ''}. These look like {looks_like(bad[:50])}. "
                "Convert the ids first (gene id conversion: a gene_id_mapping table such as an Ensembl BioMart "
                "export with the idmap_table tool, or clusterProfiler bitr with the organism's OrgDb).")
        summaries.append(f"{name} '{path}': {len(ids)} Entrez ids")
    passed("; ".join(summaries))


main()
