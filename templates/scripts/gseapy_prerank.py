"""Pre-ranked gene set enrichment analysis with GSEApy (Snakemake script).

Inputs: ranked (tsv/csv: gene id, score; header optional, e.g. the de_rank output) and gene_sets
(GMT). Ensembl version suffixes are stripped on both sides (a gene listed twice keeps its
largest |score|). Output: table (tsv) with Term, ES, NES, NOM p-val, FDR q-val, FWER p-val,
Tag % (hits/set size in the leading edge), Lead_genes (';'-joined), sorted by FDR q-val then Term.
No gene set within min_size..max_size overlapping genes -> a header-only table and a warning.
Deterministic: fixed seed. Params: permutation_num, min_size, max_size, weight, seed.
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


run(main)
