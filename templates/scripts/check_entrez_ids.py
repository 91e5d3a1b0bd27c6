"""Precondition check: gene lists hold Entrez Gene ids (Snakemake script).

Runs before a step that needs Entrez ids (KEGG enrichment). Reads every input whose datatype
(params.datatypes) is entrez_gene_list: the first column (header optional) must hold positive
integers only. An empty list passes with a warning. On success writes the `ok` sentinel with a
one-line summary; on failure names the offending ids, says which id type they look like and how
to convert them, and exits 1.
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

# --- precondition checks ------------------------------------------------------------
def inputs_of(datatype, fallback_name):
    """(port name, path) of the guarded step's inputs with this datatype (or the usual port name)."""
    datatypes = dict(snakemake.params.datatypes or {})
    names = [name for name, dt in datatypes.items() if dt == datatype] or \
        [name for name in snakemake.input.keys() if name == fallback_name]
    if not names:
        fail(f"rule {snakemake.rule} has no {datatype} input to check (inputs: {', '.join(snakemake.input.keys())}; "
             f"datatypes: {datatypes}).")
    found = []
    for name in names:
        paths = getattr(snakemake.input, name)
        for path in [paths] if isinstance(paths, str) else list(paths):
            found.append((name, path))
    return found


def check_failed(message):
    fail(f"precondition '{snakemake.params.constraint}' of step '{snakemake.params.guarded_step}' failed: {message}")


def passed(summary):
    LOG.info(summary)
    with open(snakemake.output.ok, "w", encoding="utf-8") as handle:
        handle.write(f"{snakemake.params.constraint}: OK - {summary}\n")
# ------------------------------------------------------------------------------


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


run(main)
