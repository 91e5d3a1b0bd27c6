"""Harmony batch integration (issue 18) on the single-cell example with a planted batch effect.

The single_cell example's 300 cells come from two donors (obs["sample"]: donor_A, donor_B) and
three planted cell types. The test plants a batch effect on a copy of it: in donor_B's cells, 40
genes that mark no cell type are counted 8 times higher (a donor-specific technical shift). The
compiled workflow normalises, integrates the donors with Harmony, clusters with Leiden on the
corrected embedding, draws a UMAP and finds marker genes:
- the batches mix better after Harmony: among each cell's 15 nearest neighbours, the share from
  the other donor is higher in obsm["X_pca_harmony"] than in the uncorrected obsm["X_pca"], and
  the step's own mixing table says the same against perfect mixing;
- the clusters follow the cell types, not the donors: each cell type's cells fall mostly in one
  cluster, and every large cluster holds both donors.
"""

from __future__ import annotations

import csv
import os
import shutil

import numpy as np
import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, generate, keep_intermediates, run_ok, truth

pytestmark = pytest.mark.e2e

QUERY = ("Correct the batch effect between the donors with Harmony, then cluster the cells with Leiden, "
         "draw a UMAP and find marker genes")
SHIFTED_GENES = 40
SHIFT = 8


def _plant_batch_effect(src, dst, markers: set[str]) -> list[str]:
    import anndata

    adata = anndata.read_h5ad(src)
    candidates = sorted(g for g in adata.var_names if g not in markers and not g.startswith("MT-"))
    rng = np.random.default_rng(7)
    shifted = sorted(rng.choice(candidates, size=SHIFTED_GENES, replace=False).tolist())
    columns = np.flatnonzero(adata.var_names.isin(shifted))
    rows = np.flatnonzero((adata.obs["sample"] == "donor_B").to_numpy())
    x = adata.X.toarray()
    x[np.ix_(rows, columns)] = x[np.ix_(rows, columns)] * SHIFT + rng.poisson(3.0, (len(rows), len(columns)))
    adata.X = type(adata.X)(x.astype(np.float32))
    adata.write_h5ad(dst)
    return shifted


def _other_batch_share(embedding: np.ndarray, batches: np.ndarray, k: int = 15) -> float:
    d = ((embedding[:, None, :] - embedding[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
    return float((batches[nearest] != batches[:, None]).mean())


@pytest.fixture(scope="module")
def integrated(tmp_path_factory):
    pytest.importorskip("anndata")
    missing = [m for m in ("harmonypy", "scanpy") if not _importable(m)]
    if missing or shutil.which("snakemake", path=env()["PATH"]) is None:
        message = f"{', '.join(missing) or 'snakemake'} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("harmony")
    d = generate(base, "single_cell") / "single_cell"
    t = truth(base / "data", "single_cell")
    markers = {g for genes in t["markers"].values() for g in genes}
    shifted = d / "pbmc_two_batches.h5ad"
    _plant_batch_effect(d / "pbmc_tiny.h5ad", shifted, markers)
    workdir = compile_workflow(QUERY, [str(shifted)], base / "out")
    keep_intermediates(workdir)  # the clustered .h5ad is read below
    run_ok(workdir)
    return workdir, t


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _clustered(workdir):
    import anndata

    return anndata.read_h5ad(workdir / "results/cell_clustering/clustered.h5ad")


def test_batches_mix_better_after_harmony(integrated):
    workdir, _ = integrated
    adata = _clustered(workdir)
    batches = adata.obs["sample"].astype(str).to_numpy()
    before = _other_batch_share(np.asarray(adata.obsm["X_pca"]), batches)
    after = _other_batch_share(np.asarray(adata.obsm["X_pca_harmony"]), batches)
    assert before < 0.15, before  # the planted shift separates the donors
    assert after > 0.3 and after > 2 * before, (before, after)
    with open(workdir / "results/batch_correction/batch_mixing.tsv") as fh:
        rows = {r["embedding"]: r for r in csv.DictReader(fh, delimiter="\t")}
    # the step's own report: far below perfect mixing before, close to it after
    assert float(rows["pca"]["mixing_ratio"]) < 0.3, rows
    assert float(rows["pca_harmony"]["mixing_ratio"]) > 0.6, rows
    assert adata.uns["batch_integration"]["batch_key"] == "sample"


def test_clusters_follow_cell_types_not_donors(integrated):
    workdir, t = integrated
    adata = _clustered(workdir)
    types = np.array([t["cell_type_of"][c] for c in adata.obs_names])
    clusters = adata.obs["leiden"].astype(str).to_numpy()
    for cell_type in sorted(set(types)):
        _, counts = np.unique(clusters[types == cell_type], return_counts=True)
        assert counts.max() >= 0.8 * counts.sum(), (cell_type, counts)
    batches = adata.obs["sample"].astype(str).to_numpy()
    for cluster in sorted(set(clusters)):
        members = batches[clusters == cluster]
        if len(members) >= 30:
            share_b = float((members == "donor_B").mean())
            assert 0.2 < share_b < 0.8, (cluster, share_b)
