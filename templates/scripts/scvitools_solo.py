"""Doublet detection with SOLO (scvi-tools), per sample.

Snakemake `script:` step of tool `scvitools_solo` (operation doublet_detection).

input.adata    AnnData (.h5ad), QC-filtered, raw counts in X
output.adata   the same AnnData without the cells SOLO calls doublets (remove_doublets true), obs
               doublet_score (SOLO's doublet probability) and predicted_doublet for the cells kept
output.scores  TSV, one row per input cell: cell, batch, doublet_score, predicted_doublet
params         batch_key ("sample": one SOLO classifier per sample, since doublets form within one
               droplet library; a missing column means one library), max_epochs (400 for the
               scVI model; SOLO trains until its validation loss stops improving), random_state (0),
               remove_doublets (true)

SOLO (Bernstein et al. 2020) trains a classifier on the latent space of an scVI model to tell
observed cells from simulated doublets. scvi-tools needs PyTorch: the rule's container or conda
env holds it. Deterministic on CPU with a fixed scvi.settings.seed.
"""

import bioplan_step
from bioplan_step import LOG, fail, read_h5ad

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)
THREADS = bioplan_step.limit_threads(snakemake.threads)  # before numpy starts its thread pools

import numpy as np
import pandas as pd
from scipy import sparse

try:
    import scvi
    from scvi.external import SOLO
    from scvi.model import SCVI
except ImportError as exc:
    fail(f"SOLO doublet detection needs scvi-tools (and PyTorch): {exc}; run the rule's container or conda env "
         "(snakemake --sdm conda), or pip install scvi-tools.")

TOOL = "scvitools_solo"
params = snakemake.params
in_path = snakemake.input.adata
batch_key = str(getattr(params, "batch_key", "sample") or "")
remove = str(getattr(params, "remove_doublets", True)).strip().lower() in {"true", "yes", "1"}
try:
    max_epochs = int(params.max_epochs)
    seed = int(getattr(params, "random_state", 0) or 0)
except (TypeError, ValueError):
    fail(f"params.{TOOL}.max_epochs and random_state must be whole numbers (config.yaml)")
scvi.settings.seed = seed
scvi.settings.num_threads = THREADS

adata = read_h5ad(in_path)
values = adata.X.data if sparse.issparse(adata.X) else np.asarray(adata.X)
if "log1p" in adata.uns or (values.size and (values.min() < 0 or not np.allclose(values, np.round(values)))):
    fail(f"{in_path}: X is not raw counts; SOLO's scVI model and its simulated doublets need the QC-filtered "
         "counts, before normalisation.")
batches = adata.obs[batch_key].astype(str) if batch_key and batch_key in adata.obs else None
if batches is None:
    LOG.warning("no obs column %r: all %d cells are scored as one droplet library", batch_key, adata.n_obs)

SCVI.setup_anndata(adata, batch_key=batch_key if batches is not None else None)
vae = SCVI(adata)
vae.train(max_epochs=max_epochs, accelerator="cpu", datasplitter_kwargs={"drop_last": True})

scores = pd.Series(np.nan, index=adata.obs_names, dtype=float)
calls = pd.Series(False, index=adata.obs_names, dtype=bool)
for batch in (sorted(batches.unique()) if batches is not None else [None]):
    solo = SOLO.from_scvi_model(vae, restrict_to_batch=batch)
    solo.train(accelerator="cpu", datasplitter_kwargs={"drop_last": True})
    soft = solo.predict(soft=True)
    hard = solo.predict(soft=False)
    scores.loc[soft.index] = soft["doublet"].to_numpy(dtype=float)
    calls.loc[hard.index] = (hard == "doublet").to_numpy()
    LOG.info("batch %s: %d of %d cells called doublets", batch if batch is not None else "all",
             int((hard == "doublet").sum()), len(hard))

pd.DataFrame({
    "cell": adata.obs_names.astype(str),
    "batch": batches.to_numpy() if batches is not None else "all",
    "doublet_score": scores.to_numpy(),
    "predicted_doublet": calls.to_numpy(),
}).to_csv(snakemake.output.scores, sep="\t", index=False, float_format="%.5g")

adata.obs["doublet_score"] = scores.to_numpy()
adata.obs["predicted_doublet"] = calls.to_numpy()
for key in [k for k in adata.uns if k.startswith("_scvi")]:  # scvi-tools' registry ids, not data
    del adata.uns[key]
if remove:
    adata = adata[~calls.to_numpy()].copy()
adata.uns["doublet_detection"] = {"method": "solo", "batch_key": batch_key if batches is not None else "",
                                  "n_doublets": int(calls.sum()), "removed": remove, "random_state": seed}
adata.write_h5ad(snakemake.output.adata, compression="gzip")
LOG.info("wrote %s (%d cells) and %s", snakemake.output.adata, adata.n_obs, snakemake.output.scores)
