"""Precondition check: count matrices hold raw, non-negative integer counts (Snakemake script).

Runs before a step that needs raw counts (DESeq2, edgeR, limma-voom). Checks every input whose
datatype (params.datatypes) is raw_count_matrix: the first column is the gene id; every other
column that holds numbers is a sample column and each of its values must be a non-negative
integer (12 and 12.0 pass; columns with no number at all, e.g. gene names, are skipped). On
success writes the `ok` sentinel with a one-line summary; on failure names the file, the first
offending gene/sample/value, says what the values look like and what to do, and exits 1.
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


def check_matrix(path):
    table = read_table(path, "count matrix")
    if table.shape[1] < 2:
        check_failed(f"'{path}' has a single column; a count matrix has a gene id column and one column per sample.")
    genes = table.iloc[:, 0]
    raw = table.iloc[:, 1:].apply(lambda col: col.str.strip())
    values = raw.apply(lambda col: pd.to_numeric(col, errors="coerce"))
    text_cols = [c for c in values.columns if values[c].isna().all() and (raw[c] != "").any()]
    if text_cols:
        LOG.info("'%s': skipping annotation columns without numbers: %s", path, ", ".join(text_cols))
    values, raw = values.drop(columns=text_cols), raw.drop(columns=text_cols)
    if values.shape[1] == 0:
        check_failed(f"'{path}' has no numeric sample column.")
    missing = values.isna()
    negative = values < 0
    fractional = (values - values.round()).abs() > 1e-6
    bad = missing | negative | fractional
    if bad.to_numpy().any():
        row, col = np.argwhere(bad.to_numpy())[0]
        gene, sample, value = genes.iloc[row], values.columns[col], raw.iloc[row, col]
        n_frac, n_neg, total = int(fractional.to_numpy().sum()), int(negative.to_numpy().sum()), values.size
        if missing.iloc[row, col]:
            what = "is empty or not a number"
        elif negative.iloc[row, col]:
            what = "is negative"
        else:
            what = "is not an integer"
        looks = ("log-transformed or centred values" if n_neg else
                 "normalized values (TPM/FPKM/CPM or size-factor scaled counts)" if n_frac > 0.05 * total else
                 "estimated counts (e.g. salmon/kallisto via tximport) that were not rounded")
        check_failed(
            f"'{path}' is not a raw count matrix: gene '{gene}', sample '{sample}' has value '{value}', which {what} "
            f"({n_frac} of {total} values are fractional, {n_neg} negative). The values look like {looks}. "
            "Differential expression (DESeq2/edgeR/limma-voom) needs raw non-negative integer read counts: give the "
            "featureCounts/HTSeq/STAR GeneCounts matrix, or round tximport estimated counts, instead of a normalized table.")
    return values.shape


def main():
    summaries = []
    for name, path in inputs_of("raw_count_matrix", "counts"):
        n_genes, n_samples = check_matrix(path)
        summaries.append(f"{name} '{path}': {n_genes} genes x {n_samples} samples of non-negative integer counts")
    passed("; ".join(summaries))


run(main)
