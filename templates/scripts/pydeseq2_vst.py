"""Variance-stabilising transformation of a raw count matrix with PyDESeq2 (Snakemake script).

Input: counts (genes x samples raw counts, first column = gene id, tsv/csv; non-numeric columns
such as gene names are dropped). Output: normalized (tsv, same layout: gene_id then one column per
sample) holding DESeq2-style VST values on a log2-like scale, computed blind to the design
(median-of-ratios size factors, intercept-only dispersion trend). Non-integer counts (e.g. from
tximport) are rounded with a warning. Params: fit_type ("parametric" or "mean").
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


def read_count_matrix(path):
    table = read_table(path, "count matrix")
    if table.shape[1] < 2:
        fail(f"'{path}' has a single column; expected a gene id column followed by one column per sample.")
    genes = table.iloc[:, 0].str.strip()
    if genes.duplicated().any():
        fail(f"gene ids repeat in the first column of '{path}', e.g. {genes[genes.duplicated()].iloc[0]!r}.")
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    text_cols = [c for c in values.columns if values[c].isna().all()]
    if text_cols:
        LOG.warning("dropping non-numeric columns: %s", ", ".join(text_cols))
        values = values.drop(columns=text_cols)
    if values.shape[1] < 2:
        fail(f"'{path}' has fewer than 2 numeric sample columns.")
    values.index = genes
    bad = values.isna() | (values < 0)
    if bad.to_numpy().any():
        gene, sample = bad.stack()[lambda s: s].index[0]
        fail(f"'{path}' holds a missing or negative value at gene {gene}, sample {sample}; counts must be >= 0.")
    return values


def main():
    from pydeseq2.dds import DeseqDataSet

    counts = read_count_matrix(snakemake.input.counts)
    fractional = ((counts - counts.round()).abs() > 1e-6).to_numpy().sum()
    if fractional:
        LOG.warning("%d non-integer values rounded (estimated counts?); the VST needs counts", fractional)
    counts = counts.round().astype("int64")
    if (counts.sum(axis=1) > 0).sum() < 2:
        fail("fewer than 2 genes have any counts; nothing to transform.")
    LOG.info("%d genes x %d samples", counts.shape[0], counts.shape[1])
    design = pd.DataFrame({"intercept": ["all"] * counts.shape[1]}, index=counts.columns)
    threads = max(1, int(snakemake.threads))
    dds = DeseqDataSet(counts=counts.T, metadata=design, design="~1", n_cpus=threads, quiet=True)
    dds.vst(use_design=False, fit_type=snakemake.params.fit_type or "parametric")
    vst = pd.DataFrame(dds.layers["vst_counts"], index=counts.columns, columns=counts.index).T
    vst.index.name = "gene_id"
    vst.reset_index().to_csv(snakemake.output.normalized, sep="\t", index=False, float_format="%.6g")
    LOG.info("wrote VST matrix (%s to %s)", f"{vst.min().min():.3f}", f"{vst.max().max():.3f}")


run(main)
