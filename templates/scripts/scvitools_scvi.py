"""scVI batch integration (scvi-tools): a latent space of the cells with the batch regressed out.

Snakemake `script:` step of tool `scvitools_scvi` (operation batch_correction).

input.adata    AnnData (.h5ad): log-normalised X, raw counts in layers["counts"] (the
               normalisation step keeps them), var["highly_variable"], obs[batch_key]
output.adata   the same AnnData with obsm["X_scVI"] (the latent space, which the clustering step's
               neighbour graph then uses: uns["batch_integration"]["use_rep"]) and
               uns["batch_integration"] (method, batch key, batches, latent size, epochs)
params         batch_key ("sample"), n_latent (30), n_layers (2), gene_likelihood ("nb"),
               max_epochs (400; fewer for large data), random_state (0)

scVI (Lopez et al. 2018) models the counts of the highly variable genes with a variational
autoencoder conditioned on the batch, as in the scverse best-practice integration chapter.
scvi-tools needs PyTorch: the rule's container or conda env holds it. Deterministic on CPU with a
fixed scvi.settings.seed.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np

try:
    import scvi
except ImportError as exc:
    fail(f"scVI integration needs scvi-tools (and PyTorch): {exc}; run the rule's container or conda env "
         "(snakemake --sdm conda), or pip install scvi-tools.")

TOOL = "scvitools_scvi"
params = snakemake.params
in_path = snakemake.input.adata
batch_key = str(getattr(params, "batch_key", "sample") or "sample")
likelihood = str(getattr(params, "gene_likelihood", "nb") or "nb")
try:
    n_latent = int(params.n_latent)
    n_layers = int(params.n_layers)
    max_epochs = int(params.max_epochs)
    seed = int(getattr(params, "random_state", 0) or 0)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.n_latent, n_layers, max_epochs and random_state must be whole numbers (config.yaml)")
if likelihood not in {"nb", "zinb", "poisson"}:
    fail(f"params.{TOOL}.gene_likelihood must be nb, zinb or poisson (got {likelihood!r}).")
scvi.settings.seed = seed
scvi.settings.num_threads = THREADS

adata = read_h5ad(in_path)
if batch_key not in adata.obs:
    fail(f"{in_path} has no obs column {batch_key!r} naming each cell's batch (columns: "
         f"{', '.join(map(str, adata.obs.columns))}); set params.{TOOL}.batch_key in config.yaml.")
batches = adata.obs[batch_key].astype(str)
if batches.nunique() < 2:
    fail(f"obs[{batch_key!r}] of {in_path} holds one batch: there is nothing to integrate; name the column that "
         f"tells the batches apart (params.{TOOL}.batch_key).")
if "counts" not in adata.layers:
    fail(f"{in_path} has no layers['counts']: scVI models raw counts, which the normalisation step keeps there.")

genes = adata.var["highly_variable"].to_numpy(dtype=bool) if "highly_variable" in adata.var else None
if genes is None or not genes.any():
    LOG.warning("no var['highly_variable'] in %s: the model uses all %d genes", in_path, adata.n_vars)
    genes = np.ones(adata.n_vars, dtype=bool)
model_data = adata[:, genes].copy()
model_data.obs[batch_key] = batches.to_numpy()
scvi.model.SCVI.setup_anndata(model_data, layer="counts", batch_key=batch_key)
model = scvi.model.SCVI(model_data, n_latent=n_latent, n_layers=n_layers, gene_likelihood=likelihood)
model.train(max_epochs=max_epochs, accelerator="cpu")
adata.obsm["X_scVI"] = np.asarray(model.get_latent_representation(), dtype=np.float32)
LOG.info("scVI latent space of %d dimensions from %d genes, %d batches, %d epochs", n_latent, int(genes.sum()),
         batches.nunique(), max_epochs)

adata.uns["batch_integration"] = {
    "method": "scvi",
    "batch_key": batch_key,
    "batches": sorted(batches.unique().tolist()),
    "n_latent": n_latent,
    "max_epochs": max_epochs,
    "random_state": seed,
    "use_rep": "X_scVI",
}
adata.write_h5ad(snakemake.output.adata, compression="gzip")
LOG.info("wrote %s (%d cells)", snakemake.output.adata, adata.n_obs)
