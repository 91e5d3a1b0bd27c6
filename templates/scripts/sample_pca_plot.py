"""PCA of samples from a normalised expression matrix (Snakemake script).

Inputs: normalized (genes x samples matrix, first column = gene id, log-scale values such as VST
or log-CPM) and samples (tsv/csv with a `sample` column and the condition column). PCA (SVD) of
the ntop most variable genes, centred per gene, as DESeq2's plotPCA; the sign of each component
is fixed (largest loading positive) so the plot is reproducible. Points are coloured by the
condition column and labelled with the sample name. Output: plot (PNG, deterministic).
Params: condition_column, ntop, title.
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


def main():
    params = snakemake.params
    condition = params.condition_column or "condition"
    table = read_table(snakemake.input.normalized, "normalised expression matrix")
    values = table.iloc[:, 1:].apply(lambda col: pd.to_numeric(col.str.strip(), errors="coerce"))
    values.index = table.iloc[:, 0].str.strip()
    meta = read_table(snakemake.input.samples, "sample metadata")
    lower = {c.lower(): c for c in meta.columns}
    if "sample" not in lower:
        fail(f"the sample metadata '{snakemake.input.samples}' has no 'sample' column (columns: {', '.join(meta.columns)}).")
    if condition not in meta.columns:
        fail(f"the sample metadata '{snakemake.input.samples}' has no column '{condition}' (columns: "
             f"{', '.join(meta.columns)}). Set params.condition_column.")
    meta = meta.rename(columns={lower["sample"]: "sample"}).drop_duplicates("sample").set_index("sample")
    samples = [s for s in values.columns if s in meta.index]
    ignored = [s for s in values.columns if s not in meta.index]
    if ignored:
        LOG.warning("matrix columns without metadata are left out: %s", ", ".join(ignored))
    if len(samples) < 3:
        fail(f"only {len(samples)} matrix columns match the sample metadata; a PCA needs at least 3 samples.")
    data = values[samples].dropna()
    variance = data.var(axis=1, ddof=1)
    top = variance.sort_values(ascending=False, kind="mergesort").head(int(params.ntop)).index
    x = data.loc[top].to_numpy().T
    x = x - x.mean(axis=0)
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
    pcs = u * s * signs
    explained = s**2 / np.sum(s**2) * 100
    groups = meta.loc[samples, condition].tolist()
    levels = sorted(set(groups))
    colours = plt.get_cmap("tab10" if len(levels) <= 10 else "tab20")
    fig, ax = plt.subplots(figsize=(6, 5))
    for i, level in enumerate(levels):
        mask = np.array([g == level for g in groups])
        ax.scatter(pcs[mask, 0], pcs[mask, 1], s=40, color=colours(i % colours.N), label=level)
    for i, sample in enumerate(samples):
        ax.annotate(sample, (pcs[i, 0], pcs[i, 1]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(f"PC1 ({explained[0]:.1f}% variance)")
    ax.set_ylabel(f"PC2 ({explained[1]:.1f}% variance)")
    ax.set_title(params.title or f"PCA of {len(samples)} samples ({len(top)} most variable genes)")
    ax.legend(title=condition, frameon=False, fontsize=7)
    save_png(fig, snakemake.output.plot)
    LOG.info("PCA on %d genes x %d samples: PC1 %.1f%%, PC2 %.1f%%", len(top), len(samples), explained[0], explained[1])


run(main)
