"""Convert a gene list to Entrez Gene ids with a mapping table (Snakemake script).

Inputs: genes (gene list: first column, header optional; Ensembl version suffixes are stripped)
and the optional mapping (gene_id_mapping: tsv/csv with e.g. ensembl_gene_id, entrez_id and symbol
columns). Columns are recognised by content: the Entrez column is the one whose values are
positive integers (a name with "entrez"/"ncbi" wins ties); the source column is the one that
matches most input ids (Ensembl ids without version, symbols case-insensitively). Without a
mapping table the input must already be Entrez ids. Output: entrez, a tsv with the header
`entrez_id`, in input order without repeats (one-to-many mappings keep every Entrez id).
Unmapped ids are listed in the log; an input list where nothing maps is an error.
"""

import re

import bioplan_step
from bioplan_step import LOG, fail, read_gene_list, read_table, strip_version

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import pandas as pd


_INTEGER = re.compile(r"^\d+$")
_SPLIT = re.compile(r"[;|,/ ]+")


def key(gene):
    return strip_version(gene).upper()


def pick_entrez_column(table):
    best, best_score = None, 0.0
    for col in table.columns:
        values = table[col][table[col] != ""]
        if values.empty:
            continue
        share = values.str.split(_SPLIT).str[0].str.match(_INTEGER).mean()
        named = any(word in col.lower() for word in ("entrez", "ncbi"))
        score = share + (0.5 if named else 0.0)
        if share >= 0.8 and score > best_score:
            best, best_score = col, score
    return best


def main():
    genes = read_gene_list(snakemake.input.genes)
    out_path = snakemake.output.entrez
    if not genes:
        LOG.warning("the input gene list is empty: writing a header-only Entrez list")
        pd.DataFrame({"entrez_id": []}).to_csv(out_path, sep="\t", index=False)
        return
    mapping_path = getattr(snakemake.input, "mapping", None) or None
    if mapping_path is None:
        not_entrez = [g for g in genes if not _INTEGER.match(g)]
        if not_entrez:
            fail(f"{len(not_entrez)} ids of '{snakemake.input.genes}' are not Entrez ids (e.g. {not_entrez[:3]}) and no "
                 "gene id mapping table was given. Provide a gene_id_mapping table (tsv with ensembl_gene_id/symbol and "
                 "entrez_id columns, e.g. from Ensembl BioMart) or use the clusterprofiler_bitr tool.")
        entrez = genes
        LOG.info("no mapping table; %d ids are already Entrez ids", len(entrez))
    else:
        table = read_table(mapping_path, "gene id mapping")
        entrez_col = pick_entrez_column(table)
        if entrez_col is None:
            fail(f"no column of the mapping table '{mapping_path}' holds Entrez ids (positive integers); columns: "
                 f"{', '.join(table.columns)}.")
        wanted = {key(g) for g in genes}
        overlap = {col: table[col].map(key).isin(wanted).sum() for col in table.columns if col != entrez_col}
        if _INTEGER.match(genes[0]) and table[entrez_col].isin(genes).sum() >= max(overlap.values(), default=0):
            source_col = entrez_col
        else:
            source_col = max(overlap, key=lambda c: (overlap[c], -list(table.columns).index(c)), default=None)
            if source_col is None or overlap[source_col] == 0:
                fail(f"no column of the mapping table '{mapping_path}' contains the input ids (e.g. {genes[:3]}); "
                     f"columns: {', '.join(table.columns)}. Use a mapping table for the same id type and organism.")
        LOG.info("mapping %s -> %s with '%s'", source_col, entrez_col, mapping_path)
        lookup = {}
        for src, dst in zip(table[source_col], table[entrez_col]):
            for value in _SPLIT.split(dst.strip()):
                if _INTEGER.match(value) and value not in lookup.setdefault(key(src), []):
                    lookup[key(src)].append(value)
        entrez, unmapped = [], []
        for gene in genes:
            hits = sorted(lookup.get(key(gene), []), key=int)
            if not hits:
                unmapped.append(gene)
            entrez.extend(hits)
        entrez = list(dict.fromkeys(entrez))
        LOG.info("%d of %d ids mapped to %d Entrez ids", len(genes) - len(unmapped), len(genes), len(entrez))
        if unmapped:
            LOG.warning("%d unmapped ids: %s%s", len(unmapped), ", ".join(unmapped[:50]),
                        " ..." if len(unmapped) > 50 else "")
        if not entrez:
            fail(f"none of the {len(genes)} ids of '{snakemake.input.genes}' is in column '{source_col}' of "
                 f"'{mapping_path}'. Check that the mapping table matches the organism and id type.")
    pd.DataFrame({"entrez_id": entrez}).to_csv(out_path, sep="\t", index=False)


main()
