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
    except ModuleNotFoundError as exc:  # the Python tools are bioplan's `tools` extra
        fail(f"Python package {str(exc.name).split('.')[0]!r} is not installed: pip install 'bioplan[tools]' "
         "(or run the rule's conda env: snakemake --sdm conda)")
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


run(main)
