"""Cell and gene quality filtering of a single-cell count matrix (scanpy).

Snakemake `script:` step of tool `scanpy_qc` (operation sc_quality_filtering).

input.adata   AnnData (.h5ad) with raw counts in X (cells x genes)
output.adata  AnnData (.h5ad): the cells and genes that pass, QC metrics in obs/var
params        nmads, min_genes, max_pct_mt, min_cells, min_cells_kept,
              mt_prefix ("" = detect "MT-" / "mt-")

Cells are filtered by thresholds that adapt to the data, as in the scverse best-practice guide
(Heumos et al. 2023, "Quality control"): a cell is an outlier when its log1p total counts or
log1p genes detected lie more than `nmads` median absolute deviations (MAD) from the median, or
its percentage of mitochondrial counts lies more than `nmads` MADs above the median. A metric
whose MAD is 0 (no spread) marks no outliers. `min_genes` and `max_pct_mt` are fixed bounds
applied besides (0 and 100 leave them out). If fewer than `min_cells_kept` cells remain, the
step stops and says which bound removed how many cells. Genes seen in fewer than `min_cells`
cells are then dropped.

QC metrics recorded in obs: n_genes_by_counts, total_counts, total_counts_mt, pct_counts_mt,
log1p_*, outlier, mt_outlier; in var: mt, n_cells_by_counts, total_counts, ...; the filter
settings, the thresholds used and the counts before/after in uns["qc_filtering"].
"""

import itertools
import os
import re

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import scanpy as sc
from scipy import sparse

sc.settings.n_jobs = THREADS
sc.settings.verbosity = 2

params = snakemake.params
in_path = snakemake.input.adata
out_path = snakemake.output.adata


def as_number(name, kind):
    try:
        return kind(getattr(params, name))
    except (TypeError, ValueError):
        fail(f"parameter {name}={getattr(params, name)!r} is not a number; fix params.scanpy_qc.{name} in config.yaml")


nmads = as_number("nmads", float)
min_genes = as_number("min_genes", int)
min_cells = as_number("min_cells", int)
max_pct_mt = as_number("max_pct_mt", float)
min_cells_kept = as_number("min_cells_kept", int)
if nmads <= 0:
    fail(f"parameter nmads={nmads:g} must be > 0; fix params.scanpy_qc.nmads in config.yaml (5 is permissive)")
mt_prefix = str(getattr(params, "mt_prefix", "") or "")

# a cell barcode, optionally prefixed by its sample and suffixed by its GEM well (AAACCTGAGAAACCAT-1)
BARCODE = re.compile(r"^(?:[A-Za-z0-9]+[_:.-])?[ACGTN]{8,20}(?:-\d{1,2})?$")
# cells numbered by one stem (cell1, cell2, ...; 1, 2, ...), as spreadsheet and R exports name them
SERIAL = re.compile(r"^([A-Za-z_.-]*?)(\d+)$")
TEXT_TABLE = (".tsv", ".txt", ".csv", ".tsv.gz", ".txt.gz", ".csv.gz")


def header_lines(path):
    """The leading header lines of a Drop-seq DigitalExpression (DGE) matrix ('@DGE', '@LIBRARY', '@COMMAND'; '#'
    in newer versions), above 'GENE' and the cell barcodes."""
    import gzip

    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as handle:
        return sum(1 for _ in itertools.takewhile(lambda line: line.startswith(("@", "#")), handle))


def numbered(names):
    """Names that number one stem: cells, when the other side names genes."""
    found = [SERIAL.match(n) for n in names]
    return bool(names) and all(found) and len({m.group(1).lower() for m in found}) == 1


def read_dense(path, name):
    """AnnData (cells x genes) from a dense count table as GEO series and Seurat's examples ship them: genes x
    cells when the column names are cell barcodes or numbered cells over named genes, else cells x genes."""
    import anndata
    import pandas as pd

    table = pd.read_csv(path, sep="," if ".csv" in name else "\t", index_col=0, skiprows=header_lines(path))
    columns = [str(c) for c in table.columns]
    genes_by_cells = sum(bool(BARCODE.match(c)) for c in columns) >= 0.9 * len(columns) or (
        numbered(columns) and not numbered([str(g) for g in table.index]))
    cells = table.T if genes_by_cells else table
    return anndata.AnnData(X=sparse.csr_matrix(cells.to_numpy(dtype=np.float32)),
                           obs=pd.DataFrame(index=[str(c) for c in cells.index]),
                           var=pd.DataFrame(index=[str(g) for g in cells.columns]))


def read_cells(path):
    """AnnData from an .h5ad, a 10x MTX folder or its matrix.mtx(.gz), a Cell Ranger .h5 matrix, or a dense
    count table (genes x cells or cells x genes)."""
    name = os.path.basename(path.rstrip("/"))
    if name.lower().endswith(TEXT_TABLE):
        return read_dense(path, name.lower())
    if os.path.isdir(path):
        return sc.read_10x_mtx(path, var_names="gene_symbols", cache=False)
    if ".mtx" in name:  # PREFIXmatrix.mtx.gz beside PREFIXbarcodes/features.tsv.gz
        prefix = name[: name.index("matrix.mtx")]
        return sc.read_10x_mtx(os.path.dirname(path) or ".", var_names="gene_symbols", cache=False, prefix=prefix)
    with open(path, "rb") as handle:
        hdf5 = handle.read(8) == b"\x89HDF\r\n\x1a\n"
    if hdf5 and not name.endswith(".h5ad"):
        import h5py

        with h5py.File(path, "r") as h5:
            is_10x = "matrix" in h5
        if is_10x:
            return sc.read_10x_h5(path)
    return sc.read_h5ad(path)


try:
    adata = read_cells(in_path)
except Exception as exc:  # noqa: BLE001 - any reader error is a data problem here
    fail(f"cannot read {in_path} as single-cell data: {exc}. Provide an .h5ad file written by anndata/scanpy, a "
         "10x MTX folder (matrix.mtx.gz, barcodes.tsv.gz, features.tsv.gz), a Cell Ranger .h5 matrix or a dense "
         "count table (genes x cells, cell barcodes as column names).")

if adata.n_obs == 0 or adata.n_vars == 0:
    fail(f"{in_path} holds an empty matrix ({adata.n_obs} cells x {adata.n_vars} genes).")
adata.var_names_make_unique()

X = adata.X
values = X.data if sparse.issparse(X) else np.asarray(X)
if values.size and (np.nanmin(values) < 0 or not np.all(np.isfinite(values))):
    fail(f"{in_path}: X holds negative or non-finite values; QC filtering needs raw counts in X.")
if values.size and not np.allclose(values, np.round(values)):
    LOG.warning("X of %s is not integer: QC metrics assume raw counts; results may be meaningless", in_path)

# Mitochondrial genes: the prefix follows the data (human "MT-", mouse "mt-").
names = adata.var_names.astype(str)
if not mt_prefix:
    upper = int(np.sum(names.str.startswith("MT-")))
    lower = int(np.sum(names.str.startswith("mt-")))
    mt_prefix = "MT-" if upper >= lower else "mt-"
    if upper == 0 and lower == 0:
        mt_prefix = ""
adata.var["mt"] = names.str.startswith(mt_prefix) if mt_prefix else np.zeros(adata.n_vars, dtype=bool)
n_mt = int(adata.var["mt"].sum())
if n_mt == 0:
    LOG.warning(
        "no mitochondrial genes found (no gene name starts with 'MT-' or 'mt-'); "
        "pct_counts_mt is 0 for every cell and max_pct_mt filters nothing. "
        "Set params.scanpy_qc.mt_prefix if your gene names use another prefix."
    )
LOG.info("mitochondrial prefix %r: %d genes", mt_prefix, n_mt)

sc.pp.calculate_qc_metrics(adata, qc_vars=["mt"], percent_top=None, log1p=True, inplace=True)
n_cells_in, n_genes_in = adata.n_obs, adata.n_vars


def mad_bounds(values, n):
    """(low, high): median -/+ n unscaled median absolute deviations; no bound when the MAD is 0."""
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    if mad == 0:
        return -np.inf, np.inf
    return median - n * mad, median + n * mad


obs = adata.obs
bounds = {
    "log1p_total_counts": mad_bounds(obs["log1p_total_counts"].to_numpy(), nmads),
    "log1p_n_genes_by_counts": mad_bounds(obs["log1p_n_genes_by_counts"].to_numpy(), nmads),
    "pct_counts_mt": (-np.inf, mad_bounds(obs["pct_counts_mt"].to_numpy(), nmads)[1]),
}
removed = {}  # reason -> cells it removes (a cell may have several)
outside = {}  # metric -> cells outside its MAD bounds
for metric, (low, high) in bounds.items():
    values = obs[metric].to_numpy()
    outside[metric] = (values < low) | (values > high)
    removed[f"{metric} outside [{low:.3g}, {high:.3g}] ({nmads:g} MADs)"] = outside[metric]
obs["outlier"] = outside["log1p_total_counts"] | outside["log1p_n_genes_by_counts"]
obs["mt_outlier"] = outside["pct_counts_mt"]
if min_genes > 0:
    removed[f"fewer than min_genes={min_genes} genes"] = obs["n_genes_by_counts"].to_numpy() < min_genes
if max_pct_mt < 100:
    removed[f"more than max_pct_mt={max_pct_mt:g} % mitochondrial counts"] = obs["pct_counts_mt"].to_numpy() > max_pct_mt
drop = np.logical_or.reduce(list(removed.values()))
for reason, mask in removed.items():
    LOG.info("QC: %d of %d cells have %s", int(mask.sum()), n_cells_in, reason)
adata = adata[~drop].copy()
LOG.info("cells: %d in, %d pass", n_cells_in, adata.n_obs)
if adata.n_obs < min_cells_kept:
    worst = max(removed, key=lambda r: int(removed[r].sum()))
    fail(
        f"only {adata.n_obs} of {n_cells_in} cells of {in_path} pass QC, fewer than min_cells_kept={min_cells_kept} "
        f"(clustering needs more); the bound removing most cells ({int(removed[worst].sum())}) is: {worst}. "
        "Check the input is a cells x genes count matrix; to keep more cells raise params.scanpy_qc.nmads or "
        "lower min_genes / raise max_pct_mt in config.yaml."
    )
sc.pp.filter_genes(adata, min_cells=min_cells)
LOG.info("genes: %d in, %d expressed in >= %d cells", n_genes_in, adata.n_vars, min_cells)
if adata.n_vars == 0:
    fail(f"no gene of {in_path} is expressed in >= {min_cells} cells; lower params.scanpy_qc.min_cells.")

# Metrics describe the kept cells over the kept genes.
sc.pp.calculate_qc_metrics(adata, qc_vars=["mt"], percent_top=None, log1p=True, inplace=True)
adata.uns["qc_filtering"] = {
    "nmads": nmads,
    "thresholds": {m: [float(lo), float(hi)] for m, (lo, hi) in bounds.items()},
    "min_cells_kept": min_cells_kept,
    "min_genes": min_genes,
    "min_cells": min_cells,
    "max_pct_mt": max_pct_mt,
    "mt_prefix": mt_prefix,
    "n_cells_before": n_cells_in,
    "n_cells_after": int(adata.n_obs),
    "n_genes_before": n_genes_in,
    "n_genes_after": int(adata.n_vars),
}
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s (%d cells x %d genes)", out_path, adata.n_obs, adata.n_vars)
