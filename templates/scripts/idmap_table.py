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

# --- gene lists, identifiers and gene set libraries ------------------------------
LIST_HEADERS = {
    "gene_id", "gene_ids", "gene", "genes", "geneid", "id", "ids", "name", "symbol", "gene_symbol", "gene_name",
    "hgnc_symbol", "mgi_symbol", "external_gene_name", "entrez_id", "entrez", "entrezid", "entrez_gene_id",
    "entrezgene", "entrezgene_id", "ncbi_gene_id", "ncbi_id", "ensembl_gene_id", "ensembl", "ensembl_id", "ensembl_gene",
}
_ENSEMBL_VERSION = re.compile(r"^(ENS[A-Z0-9]*[GTP]\d{6,})\.\d+$")


def strip_version(gene):
    """ENSG00000141510.17 -> ENSG00000141510 (GENCODE _PAR_Y ids are left alone)."""
    return _ENSEMBL_VERSION.sub(r"\1", gene.strip())


def gene_order(gene):
    """Sort key: Entrez ids numerically, then other ids alphabetically."""
    return (0, int(gene), "") if gene.isdigit() else (1, 0, gene)


def read_gene_list(path):
    """Gene ids from the first column of a list file (header optional), in order, without repeats."""
    genes, seen = [], set()
    with open(path, encoding="utf-8-sig") as handle:
        lines = [line.rstrip("\r\n") for line in handle if line.strip() and not line.startswith("#")]
    sep = "\t" if lines and "\t" in lines[0] else ","
    for i, line in enumerate(lines):
        gene = line.split(sep)[0].strip().strip('"')
        if i == 0 and gene.lower() in LIST_HEADERS:
            continue
        if gene and gene not in seen:
            seen.add(gene)
            genes.append(gene)
    return genes


def read_gmt(path, strip=True):
    """GMT gene set library -> {term: [genes]} (term order kept; Ensembl versions stripped)."""
    sets = {}
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, 1):
            fields = [f.strip() for f in line.rstrip("\r\n").split("\t")]
            if not fields[0]:
                continue
            if len(fields) < 3:
                fail(f"line {number} of the gene set library '{path}' is not GMT (name<TAB>description<TAB>genes...).")
            genes = [strip_version(g) if strip else g for g in fields[2:] if g]
            sets.setdefault(fields[0], [])
            sets[fields[0]].extend(g for g in genes if g not in sets[fields[0]])
    if not sets:
        fail(f"the gene set library '{path}' holds no gene sets.")
    return sets
# ------------------------------------------------------------------------------


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


run(main)
