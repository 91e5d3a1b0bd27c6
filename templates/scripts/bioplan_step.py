"""Helpers shared by bioplan's Python step scripts (imported by them, never run on its own).

bioplan copies this file beside the step scripts of every workflow (scripts/ for Snakemake, bin/
for Nextflow). Snakemake's `script:` directive puts the script's folder on `sys.path`, and
Nextflow's `bin/bioplan_run.py` does the same, so a step script imports it by name:

    import bioplan_step
    from bioplan_step import LOG, fail

    bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

    import pandas as pd  # after start(): a missing package is reported, not a traceback

One logging convention: the `bioplan` logger writes "LEVEL: message" lines to the rule's log file,
where stdout, stderr and library warnings go too. One error prefix: a data problem is
`fail(message)`, which logs the message and prints "ERROR [rule]: message" on the terminal, then
exits with status 1. An exception nothing foresaw (start() installs the handler of uncaught
exceptions) keeps its traceback in the log and ends the same way; a missing Python package names
bioplan's `tools` extra.
"""

import logging
import math
import os
import re
import sys
import tempfile
import traceback

LOG = logging.getLogger("bioplan")

# The running step: the injected `snakemake` object (input, output, params, log, threads, rule).
STEP = None
_LOG_HANDLE = None


def start(snakemake):
    """Send logging, stdout and stderr to the rule's log file, remember the step, and end every
    uncaught exception as fail()'s message."""
    global STEP, _LOG_HANDLE
    STEP = snakemake
    _LOG_HANDLE = open(snakemake.log[0], "w", encoding="utf-8", buffering=1)
    logging.basicConfig(stream=_LOG_HANDLE, level=logging.INFO, format="%(levelname)s: %(message)s", force=True)
    logging.captureWarnings(True)
    sys.stdout = _LOG_HANDLE
    sys.stderr = _LOG_HANDLE
    sys.excepthook = _uncaught


def finish():
    """Give stdout and stderr back and close the log (a step run in-process, as the tests do)."""
    global _LOG_HANDLE
    sys.stdout, sys.stderr, sys.excepthook = sys.__stdout__, sys.__stderr__, sys.__excepthook__
    logging.captureWarnings(False)
    if _LOG_HANDLE is not None:
        logging.getLogger().handlers.clear()
        _LOG_HANDLE.close()
        _LOG_HANDLE = None


def rule_name():
    return getattr(STEP, "rule", None) or "step"


def report(message):
    """The one error format: the message in the log, "ERROR [rule]: message" on the terminal."""
    LOG.error(message)
    print(f"ERROR [{rule_name()}]: {message}", file=sys.__stderr__, flush=True)


def fail(message):
    """Report a data problem to the log and the terminal, then stop with exit status 1."""
    report(message)
    sys.exit(1)


def unexpected(exc):
    """The message for an exception no check foresaw; its traceback goes to the log."""
    if isinstance(exc, ModuleNotFoundError):  # the Python tools are bioplan's `tools` extra
        return (f"Python package {str(exc.name).split('.')[0]!r} is not installed: pip install 'bioplan[tools]' "
                "(or run the rule's conda env: snakemake --sdm conda)")
    LOG.error("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    where = STEP.log[0] if STEP is not None else "the log"
    return f"unexpected {type(exc).__name__}: {exc} (traceback in {where})"


def _uncaught(kind, exc, tb):
    """sys.excepthook: Python still exits with status 1 after it, without printing the traceback."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
    else:
        report(unexpected(exc))


def limit_threads(threads, blas=None):
    """Numerical libraries use the rule's threads, and find a writable cache in a read-only HOME.

    `blas`: the BLAS/OpenMP pools' size when the step parallelises elsewhere. PyDESeq2 fits each gene
    apart (its own joblib workers) with tiny matrix products, on which BLAS threads only wait for work:
    the bulk example's DE (600 genes x 6 samples) took 16 CPU-s with OpenBLAS's 2 threads, 7 with 1,
    the same results. Call before numpy is imported: its pools start with it."""
    threads = max(1, int(threads))
    pools = str(threads if blas is None else max(1, int(blas)))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, pools)
    os.environ.setdefault("NUMBA_NUM_THREADS", str(threads))
    if not os.access(os.path.expanduser("~"), os.W_OK):  # read-only HOME in containers
        os.environ.setdefault("MPLCONFIGDIR", tempfile.mkdtemp(prefix="mpl-"))
        os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="numba-"))
    return threads


# Below this many counts PyDESeq2 runs serially (deseq2_de.R: DESeq() likewise).
SERIAL_BELOW_COUNTS = 100_000


def pydeseq2_workers(threads, counts):
    """PyDESeq2's n_cpus for a matrix of `counts` values. Its joblib (loky) workers are new Python processes that
    import PyDESeq2 again (~4 CPU-s each): on small matrices they cost more than they save (the bulk example's DE,
    600 genes x 6 samples: 14.8 CPU-s with 2 workers, 7.8 serial; pseudobulk profiles of three cell types: 18.8
    and 9.8; the same results), so below SERIAL_BELOW_COUNTS a step runs serially whatever its threads."""
    return max(1, int(threads)) if counts >= SERIAL_BELOW_COUNTS else 1


# umap's functions behind scanpy's neighbour graph (smooth_knn_dist, compute_membership_strengths, parallel) and
# UMAP layout: numba compiles them in every process that uses them, ~8 CPU-s a step, as umap does not ask for
# numba's on-disk cache (pynndescent and scanpy do, cache=True).
UMAP_NUMBA_MODULES = ("umap.umap_", "umap.layouts", "umap.spectral")


def cache_numba_compilations(modules=UMAP_NUMBA_MODULES):
    """Ask numba to cache the compiled code of the modules' lazily compiled functions on disk (beside the
    package, or in NUMBA_CACHE_DIR when it is read-only), as cache=True would: the first step compiles, later
    steps load the machine code. The results are the same; a module not installed is left alone."""
    import importlib

    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return 0
    enabled = 0
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and not value.signatures:  # not compiled yet (eager ones have cache=)
                try:
                    value.enable_caching()
                except RuntimeError:  # no writable cache folder ("no locator available"): compiled as before
                    return enabled
                enabled += 1
    return enabled


def as_list(value):
    """A port's value as a list of paths (one path is a str)."""
    return [value] if isinstance(value, str) else list(value)


# --- tables --------------------------------------------------------------------------------------
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
    import pandas as pd

    try:
        table = pd.read_csv(path, sep=sniff_sep(path), dtype=str, comment=None,
                            keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        fail(f"the {what} file '{path}' is empty.")
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        fail(f"cannot parse the {what} file '{path}' as tsv/csv: {exc}")
    table.columns = [str(c).strip() for c in table.columns]
    return table


# Numeric columns of gene annotation, not samples (a gene's Length, a featureCounts Start/End, GC content): the
# sniffer's rule (compiler/bioplan/request/sniffers/columns.py ANNOTATION_NUMBER_COLUMNS), by the whole name.
ANNOTATION_NUMBER_COLUMNS = frozenset({"length", "gene_length", "effective_length", "efflength", "start", "end",
                                       "strand", "chr", "chrom", "width", "gc", "gc_content"})


def annotation_columns(names):
    """The names among `names` of numeric annotation columns (ANNOTATION_NUMBER_COLUMNS)."""
    normed = {n: str(n).strip().strip('"').lower().replace(" ", "_").replace("-", "_") for n in names}
    return [n for n in names if normed[n] in ANNOTATION_NUMBER_COLUMNS]


# --- estimated counts ------------------------------------------------------------------------------
# The compiler's rule (compiler/bioplan/request/sniffers/columns.py estimated_counts), at run time: non-integer,
# non-negative values are estimated read counts (Salmon/kallisto/RSEM summed per gene by tximport: nf-core/rnaseq's
# salmon.merged.gene_counts.tsv), which count-based DE takes rounded, or normalised values it refuses.
NORMALISED_NAME_RE = re.compile(r"tpm|fpkm|rpkm|cpm|normali[sz]|vst|rlog|log2|log10|zscore|z_score|voom")
COUNT_NAME_RE = re.compile(r"count|numreads")


def read_totals(sums, n_rows):
    """Why the columns are estimated counts under no telling name (tximport's length-scaled or scaled TPM): every
    column sums to a whole number of reads (each estimate rounded to 3 decimals: within 0.01 + 3 sqrt(n) 0.0003),
    with enough columns that TPM/FPKM would do so by a chance under 1e-3; None when they do not."""
    tolerance = 0.01 + 3 * math.sqrt(n_rows) * 0.0003
    if len(sums) < 2 or min(sums) < 1000 or (2 * tolerance) ** len(sums) > 1e-3:
        return None
    if any(abs(x - round(x)) > tolerance for x in sums):
        return None
    return "every sample column sums to a whole number of reads (tximport's length-scaled or scaled counts)"


def estimated_counts(values, path):
    """(True, why) when `values` (a samples' DataFrame of numbers, some not whole, none negative) hold
    estimated read counts; (False, what they look like) when normalised."""
    stem = os.path.basename(str(path)).lower()
    said = NORMALISED_NAME_RE.search(stem)
    if said:
        return False, f"the file name says '{said.group(0)}'"
    top = float(values.max().max())
    if top < 100:
        return False, f"values only up to {top:g}: log-scale or normalised values"
    if ((values.sum() - 1e6).abs() <= 1e4).all():
        return False, "every sample column sums to a million: TPM or CPM"
    for sample in values.columns:
        nonzero = values[sample][values[sample] > 0]
        unit = nonzero.min() if len(nonzero) >= 20 else 0.0
        if unit >= 0.01 and abs(unit - round(unit)) > 0.05:
            ratio = nonzero / unit
            if ((ratio - ratio.round()).abs() <= 0.02).mean() >= 0.95:
                return False, f"column '{sample}' holds whole multiples of {unit:g}: size-factor normalised counts"
    if COUNT_NAME_RE.search(stem):
        return True, f"the file name '{stem}' says counts"
    totals = read_totals([float(x) for x in values.sum()], len(values))
    if totals:
        return True, totals
    nonzero = values.to_numpy()[values.to_numpy() > 0]
    fractional = int((abs(nonzero - nonzero.round()) > 0.01).sum())
    whole = 1 - fractional / len(nonzero)
    if fractional >= 10 and whole >= 0.5:
        return True, f"{whole:.0%} of the non-zero values are whole numbers"
    return False, (f"only {whole:.0%} of the non-zero values are whole numbers" if fractional >= 10
                   else f"{fractional} fractional value(s) among whole numbers")


# Column names of DESeq2/edgeR/limma-style DE tables, mapped to the DESeq2 names.
DE_COLUMNS = {
    "gene_id": ("gene_id", "gene", "geneid", "gene_ids", "id", "ensembl_gene_id", "ensembl_id", "symbol",
                "gene_symbol", "gene_name", "feature", "feature_id", "row", "", "unnamed: 0"),
    "log2FoldChange": ("log2foldchange", "logfc", "log2fc", "log2_fold_change", "log2_fc", "lfc", "avg_log2fc"),
    "pvalue": ("pvalue", "p.value", "pval", "p_value", "p-value", "pvals"),
    "padj": ("padj", "fdr", "adj.p.val", "p.adjust", "qvalue", "q_value", "q-value", "adj_pval", "pvals_adj",
             "p_val_adj", "adjusted p-value"),
    "stat": ("stat", "t", "wald", "statistic", "z", "scores"),
}


def read_de_table(path, need):
    """Read a DE table; rename recognised columns to the DESeq2 names; check the `need` ones."""
    import pandas as pd

    table = read_table(path, "differential expression table")
    original = list(table.columns)
    lower = {c.lower(): c for c in table.columns}
    rename = {}
    for target, names in DE_COLUMNS.items():
        hit = next((lower[n] for n in names if n in lower), None)
        if hit is None and target == "gene_id":
            hit = table.columns[0]
        if hit is not None and hit not in rename:
            rename[hit] = target
    table = table.rename(columns=rename)
    missing = [c for c in need if c not in table.columns]
    if missing:
        fail(f"the DE table '{path}' lacks column(s) {missing} (columns: {', '.join(original)}); "
             "expected a DESeq2/edgeR/limma-style table with gene_id, log2FoldChange, pvalue and padj.")
    table["gene_id"] = table["gene_id"].str.strip()
    for col in ("log2FoldChange", "pvalue", "padj", "stat"):
        if col in table.columns:
            table[col] = pd.to_numeric(table[col].replace({"": None}), errors="coerce")
    return table


# --- gene lists, identifiers and gene set libraries ----------------------------------------------
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


# --- AnnData -------------------------------------------------------------------------------------
def read_h5ad(path, **kwargs):
    """An AnnData file (.h5ad); a file anndata cannot read is fail()'s message naming it."""
    import anndata

    try:
        return anndata.read_h5ad(path, **kwargs)
    except Exception as exc:  # any reader error is the file's problem: say which file
        fail(f"cannot read {path} as AnnData (.h5ad): {exc}")


def accepts(func, name):
    """True if `func` takes a keyword `name` (one that newer scanpy releases added)."""
    import inspect

    return name in inspect.signature(func).parameters


def pca_settings(adata, n_comps, seed, path):
    """The PCA of the clustering and the integration steps, as one: on the highly variable genes when
    var["highly_variable"] flags some (else on all genes, with a warning), ARPACK with a fixed seed,
    and n_comps lowered to what the cells and genes allow. Returns (n_comps, keyword arguments of
    scanpy's pp.pca); data too small for two components is fail()'s message naming `path`."""
    import scanpy as sc

    kwargs = {"random_state": seed, "svd_solver": "arpack"}
    if "highly_variable" in adata.var and adata.var["highly_variable"].any():
        n_features = int(adata.var["highly_variable"].sum())
        if accepts(sc.pp.pca, "mask_var"):
            kwargs["mask_var"] = "highly_variable"
        else:  # scanpy < 1.10
            kwargs["use_highly_variable"] = True
    else:
        LOG.warning("no var['highly_variable'] in %s: PCA uses all genes", path)
        n_features = adata.n_vars
    max_comps = min(adata.n_obs, n_features) - 1
    if n_comps > max_comps:
        LOG.warning("n_comps=%d lowered to %d (cells/genes available)", n_comps, max_comps)
        n_comps = max_comps
    if n_comps < 2:
        fail(f"too few cells or genes in {path} for PCA ({adata.n_obs} cells, {n_features} genes).")
    return n_comps, kwargs


# --- clusters and markers ------------------------------------------------------------------------
def samples_with_metadata(columns, meta_index, analysis, where=""):
    """The matrix columns the sample sheet names, in matrix order (the others are logged and left out);
    at least 3, which a sample-level analysis (a PCA, a clustering) needs."""
    samples = [s for s in columns if s in meta_index]
    ignored = [s for s in columns if s not in meta_index]
    if ignored:
        LOG.warning("matrix columns without metadata are left out: %s", ", ".join(ignored))
    if len(samples) < 3:
        fail(f"only {len(samples)} {where or 'matrix columns'} match the sample metadata; {analysis} needs at "
             "least 3 samples.")
    return samples


def distinct_levels(levels):
    """`levels`, unless two of them are one group to a reader ('control', 'Control', 'control' with a zero-width
    space, fullwidth or decomposed letters): compared as different groups, a sample the sheet shows as 'control'
    was silently not one. The compile-time check (request/same_names.py) also folds lookalike letters of other
    scripts; this one guards a sheet edited after compiling."""
    import unicodedata

    def key(text):
        shown = "".join(ch for ch in str(text) if unicodedata.category(ch) != "Cf")
        return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", shown).casefold()).strip()
    groups = {}
    for level in levels:
        groups.setdefault(key(level), []).append(level)
    same = [lvl for group in groups.values() if len(group) > 1 for lvl in group]
    if same:
        fail("levels of the condition column differ only in letter case, Unicode form or characters that draw "
             f"nothing: {', '.join(ascii(lvl) for lvl in same)}; write each group's level the same way in the "
             "sample sheet.")
    return levels


def same_level(value, levels):
    """The level of the condition column `value` names (a request's or config's level: DE steps), in any case or spelling of its letters and digits ('wt' is 'WT')."""
    if value is None or value in levels:
        return value
    def key(text):
        return "".join(ch for ch in str(text).casefold() if ch.isalnum())
    hits = [lvl for lvl in levels if key(lvl) == key(value)]
    return hits[0] if len(hits) == 1 else value


def cluster_sort_key(label):
    """Cluster labels in numeric order ("2" before "10"), then named clusters alphabetically."""
    return (0, int(label), label) if label.isdigit() else (1, 0, label)


def read_marker_table(path):
    """The marker table of marker detection (tsv/csv with cluster and gene columns)."""
    import pandas as pd

    with open(path, encoding="utf-8") as handle:
        header = handle.readline()
    sep = "\t" if header.count("\t") >= header.count(",") else ","
    try:
        return pd.read_csv(path, sep=sep, dtype={"cluster": str})
    except Exception as exc:  # any reader error is the file's problem: say which file
        fail(f"cannot read the marker table {path}: {exc}")


# --- precondition checks -------------------------------------------------------------------------
def inputs_of(datatype, fallback_name):
    """(port name, path) of the guarded step's inputs with this datatype (or the usual port name)."""
    datatypes = dict(STEP.params.datatypes or {})
    names = [name for name, dt in datatypes.items() if dt == datatype] or \
        [name for name in STEP.input.keys() if name == fallback_name]
    if not names:
        fail(f"rule {STEP.rule} has no {datatype} input to check (inputs: {', '.join(STEP.input.keys())}; "
             f"datatypes: {datatypes}).")
    return [(name, path) for name in names for path in as_list(getattr(STEP.input, name))]


def check_failed(message):
    """A precondition does not hold: say which, for which step, and why."""
    fail(f"precondition '{STEP.params.constraint}' of step '{STEP.params.guarded_step}' failed: {message}")


def passed(summary):
    """The precondition holds: log the summary and write the `ok` sentinel the guarded step waits for."""
    LOG.info(summary)
    with open(STEP.output.ok, "w", encoding="utf-8") as handle:
        handle.write(f"{STEP.params.constraint}: OK - {summary}\n")


# --- figures -------------------------------------------------------------------------------------
# Labels are the inputs' own text (count-matrix columns, gene and gene-set names, taxa, clusters): never
# matplotlib's mathtext, where 'S$\x$' stopped the step ("Unknown symbol") and '$\mathrm{...}$' drew other words.
PLAIN_TEXT = {"text.parse_math": False, "text.usetex": False}


def pyplot():
    """matplotlib.pyplot without a display, in bioplan's figure style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False, **PLAIN_TEXT})
    return plt


def save_png(fig, path, dpi=150):
    """PNG without a timestamp or version stamp: the same data give the same bytes."""
    plt = pyplot()
    fig.savefig(path, dpi=dpi, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def message_figure(path, text):
    """A figure that says why there is nothing to draw (an empty result still gives its PNG)."""
    fig, ax = pyplot().subplots(figsize=(5, 3))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True)
    save_png(fig, path)
