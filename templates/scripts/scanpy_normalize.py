"""Library-size normalisation, log1p and highly variable genes (scanpy).

Snakemake `script:` step of tool `scanpy_normalize` (operation sc_normalization).

input.adata   AnnData (.h5ad), QC-filtered, raw counts in X
output.adata  AnnData (.h5ad): X = log1p(counts / total * target_sum) for all genes,
              layers["counts"] = the raw counts, var["highly_variable"] flags the HVGs
params        target_sum (1e4), n_top_genes (2000), hvg_flavor ("seurat")
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

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

try:
    target_sum = float(params.target_sum)
    n_top_genes = int(params.n_top_genes)
except (TypeError, ValueError):
    fail("params.scanpy_normalize.target_sum and n_top_genes must be numbers (config.yaml)")
flavor = str(getattr(params, "hvg_flavor", "seurat") or "seurat")

adata = read_h5ad(in_path)
if adata.n_obs < 3 or adata.n_vars < 3:
    fail(f"{in_path} is too small to normalise ({adata.n_obs} cells x {adata.n_vars} genes).")

X = adata.X
values = X.data if sparse.issparse(X) else np.asarray(X)
if values.size and np.nanmin(values) < 0:
    fail(f"{in_path}: X holds negative values; normalisation needs raw counts (run QC on the count matrix).")
if values.size and not np.allclose(values, np.round(values)):
    LOG.warning("X of %s is not integer: is it already normalised? Normalising again anyway.", in_path)
if "log1p" in adata.uns:
    fail(f"{in_path} is already log-transformed (uns['log1p'] is set); this step expects raw counts.")

adata.layers["counts"] = adata.X.copy()
sc.pp.normalize_total(adata, target_sum=target_sum)
sc.pp.log1p(adata)

if n_top_genes >= adata.n_vars:
    LOG.warning("n_top_genes=%d >= %d genes: every gene is flagged highly variable", n_top_genes, adata.n_vars)
    n_top_genes = adata.n_vars
hvg_kwargs = {"n_top_genes": n_top_genes, "flavor": flavor}
if flavor == "seurat_v3":  # seurat_v3 works on counts
    hvg_kwargs["layer"] = "counts"
try:
    sc.pp.highly_variable_genes(adata, **hvg_kwargs)
except ImportError as exc:
    fail(f"highly_variable_genes flavor {flavor!r} needs a package that is missing: {exc}. Use flavor 'seurat'.")
LOG.info(
    "normalised %d cells x %d genes (target_sum=%g); %d highly variable genes (%s)",
    adata.n_obs,
    adata.n_vars,
    target_sum,
    int(adata.var["highly_variable"].sum()),
    flavor,
)
adata.write_h5ad(out_path, compression="gzip")
LOG.info("wrote %s", out_path)
