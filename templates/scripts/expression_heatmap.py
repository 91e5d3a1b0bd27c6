"""Heatmap of the normalised expression of selected genes (Snakemake script).

Inputs: normalized (genes x samples matrix, first column = gene id, log-scale values such as VST
or log-CPM) and genes (gene list, first column, e.g. the significant genes; matched exactly, else
without Ensembl version suffixes). The first max_genes genes of the list are drawn as row z-scores,
rows ordered by their loading on the first principal component (up- and down-regulated blocks
separate), columns in matrix order. Output: plot (PNG, deterministic). No listed gene in the
matrix -> a PNG saying so and a warning.
Params: max_genes, title.
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

# --- deterministic matplotlib output ----------------------------------------------
try:  # the Python tools are bioplan's `tools` extra, not installed with bioplan itself
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ModuleNotFoundError as exc:
    fail(f"Python package {str(exc.name).split('.')[0]!r} is not installed: pip install 'bioplan[tools]' "
         "(or run the rule's conda env: snakemake --sdm conda)")

plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})


def save_png(fig, path, dpi=150):
    """PNG without a timestamp or version stamp: the same data give the same bytes."""
    fig.savefig(path, dpi=dpi, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def message_figure(path, text):
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True)
    save_png(fig, path)
# ------------------------------------------------------------------------------


def read_matrix(path):
    table = read_table(path, "normalised expression matrix")
    genes = table.iloc[:, 0].str.strip()
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values = values.loc[:, values.notna().any()]
    if values.shape[1] < 2:
        fail(f"'{path}' needs a gene id column and at least 2 numeric sample columns.")
    values.index = genes
    return values[~values.index.duplicated()]


def main():
    params = snakemake.params
    matrix = read_matrix(snakemake.input.normalized)
    wanted = read_gene_list(snakemake.input.genes)
    stripped = {strip_version(g): g for g in matrix.index}
    rows = []
    for gene in wanted:
        hit = gene if gene in matrix.index else stripped.get(strip_version(gene))
        if hit is not None and hit not in rows:
            rows.append(hit)
    LOG.info("%d of %d listed genes are in the matrix (%d genes x %d samples)", len(rows), len(wanted), *matrix.shape)
    if not rows:
        LOG.warning("no listed gene in the expression matrix: drawing a placeholder")
        return message_figure(snakemake.output.plot, "No selected genes to draw" if not wanted else
                              "None of the selected genes is in the expression matrix")
    rows = rows[: int(params.max_genes)]
    sub = matrix.loc[rows].astype(float)
    sd = sub.std(axis=1, ddof=1).replace(0, np.nan)
    z = sub.sub(sub.mean(axis=1), axis=0).div(sd, axis=0).fillna(0.0)
    if len(z) > 2:
        u, _, _ = np.linalg.svd(z.to_numpy(), full_matrices=False)
        score = u[:, 0] * np.sign(u[np.argmax(np.abs(u[:, 0])), 0])
        z = z.iloc[np.lexsort((np.array(z.index, dtype=str), -score))]
    limit = max(2.0, float(np.nanmax(np.abs(z.to_numpy()))))
    height = min(2 + 0.18 * len(z), 20)
    fig, ax = plt.subplots(figsize=(max(4, 0.5 * z.shape[1] + 3), height))
    image = ax.imshow(z.to_numpy(), aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    ax.set_xticks(range(z.shape[1]), z.columns, rotation=90)
    if len(z) <= 80:
        ax.set_yticks(range(len(z)), z.index, fontsize=6)
    else:
        ax.set_yticks([])
    ax.set_title(params.title or f"Expression of {len(z)} selected genes (row z-score)")
    fig.colorbar(image, ax=ax, shrink=0.6, label="z-score")
    save_png(fig, snakemake.output.plot)


run(main)
