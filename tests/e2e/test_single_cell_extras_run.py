"""The scverse best-practice steps beyond clustering (issue 18), run end to end on planted data.

Cohort run (the single-cell motif: QC -> doublets -> normalise -> cluster -> markers -> annotate ->
pseudobulk DE between conditions). The single_cell example's 300 cells (two donors, three planted
cell types) become four samples, two per condition (each donor's cells split in two, one half
"control", one "treated"), with two things planted on top:
- 6 doublets per sample: the summed counts of a T cell and a monocyte of that sample;
- in the treated samples' T cells, 10 genes that mark no cell type are counted 4 times higher.
The CellTypist model is trained in the test on a different dataset, scanpy's bundled
pbmc68k_reduced (real PBMCs, offline), on the genes it shares with the example, its T, B and
CD14+ monocyte labels renamed to the example's.
- Scrublet scores the planted doublets above the singlets (AUC) and calls most of them;
- CellTypist labels at least 90 % of the singlets with their planted cell type;
- pseudobulk DE finds the planted genes in the T cells (padj < 0.05, log2 fold change > 1) and
  not in the other cell types.

Trajectory run: 300 cells along a planted continuum (time 0 to 1: early genes fall, late genes
rise, middle genes peak halfway). PAGA connects the clusters, and the diffusion pseudotime orders
the cells as the planted time does (|Spearman rho| > 0.8).
"""

from __future__ import annotations

import csv
import os
import shutil

import numpy as np
import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, generate, run_ok, set_param, truth

pytestmark = pytest.mark.e2e

COHORT_QUERY = ("single-cell RNA-seq of treated and control samples: QC the cells, remove doublets with Scrublet, "
                "normalise, cluster the cells, find marker genes, annotate cell types with CellTypist, then "
                "pseudobulk differential expression between conditions per cell type")
TRAJECTORY_QUERY = ("single-cell RNA-seq of a differentiation time course: QC the cells, normalise, cluster the cells "
                    "and infer the trajectory with PAGA and diffusion pseudotime")
DOUBLETS_PER_SAMPLE = 6
PLANTED_GENES = 10
FOLD = 4
REFERENCE_LABELS = {"CD14+ Monocyte": "Monocyte", "CD19+ B": "B_cell", "CD4+/CD25 T Reg": "T_cell",
                    "CD8+ Cytotoxic T": "T_cell", "CD8+/CD45RA+ Naive Cytotoxic": "T_cell",
                    "CD4+/CD45RO+ Memory": "T_cell", "CD4+/CD45RA+/CD25- Naive T": "T_cell"}


def _require(*modules: str) -> None:
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing or shutil.which("snakemake", path=env()["PATH"]) is None:
        message = f"{', '.join(missing) or 'snakemake'} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


def _cohort(src, dst, t: dict) -> dict:
    """Four samples, two per condition, planted doublets and planted treated-T-cell genes."""
    import anndata
    from scipy import sparse

    adata = anndata.read_h5ad(src)
    x = adata.X.toarray().astype(np.float64)
    types = np.array([t["cell_type_of"][c] for c in adata.obs_names])
    donors = adata.obs["sample"].astype(str).to_numpy()
    half = np.arange(adata.n_obs) % 2
    samples = np.array([f"{d}_{'ctrl' if h == 0 else 'treated'}" for d, h in zip(donors, half)])
    rng = np.random.default_rng(11)
    markers = {g for genes in t["markers"].values() for g in genes}
    t_cells = types == "T_cell"
    candidates = [g for g in adata.var_names if g not in markers and not g.upper().startswith("MT-")]
    means = {g: x[t_cells, adata.var_names.get_loc(g)].mean() for g in candidates}
    planted = sorted(sorted(candidates, key=lambda g: (-means[g], g))[:PLANTED_GENES])
    cols = [adata.var_names.get_loc(g) for g in planted]
    rows = np.flatnonzero(t_cells & np.char.endswith(samples.astype(str), "treated"))
    x[np.ix_(rows, cols)] = x[np.ix_(rows, cols)] * FOLD + rng.poisson(1.0, (len(rows), len(cols)))
    extra, names, extra_samples = [], [], []
    for sample in sorted(set(samples)):
        ts = np.flatnonzero((samples == sample) & (types == "T_cell"))
        ms = np.flatnonzero((samples == sample) & (types == "Monocyte"))
        for i in range(DOUBLETS_PER_SAMPLE):
            extra.append(x[rng.choice(ts)] + x[rng.choice(ms)])
            names.append(f"DOUBLET{i}-{sample}")
            extra_samples.append(sample)
    x = np.vstack([x, np.array(extra)])
    obs_names = list(adata.obs_names) + names
    all_samples = np.concatenate([samples, np.array(extra_samples)])
    out = anndata.AnnData(sparse.csr_matrix(x.astype(np.float32)), var=adata.var.copy())
    out.obs_names = obs_names
    out.obs["sample"] = all_samples
    out.obs["condition"] = ["treated" if s.endswith("treated") else "control" for s in all_samples]
    out.write_h5ad(dst)
    return {"planted_genes": planted, "doublets": names, "types": dict(zip(adata.obs_names, types))}


def _train_reference_model(path, genes) -> None:
    """A CellTypist model from scanpy's pbmc68k_reduced on the shared genes, its expression brought to
    CellTypist's scale first (log1p of 10,000 counts per cell, as the workflow's query). Built as
    celltypist.train builds it (a scaler and a logistic regression with the genes as `features`),
    by hand: celltypist 1.7.1's train passes LogisticRegression a `multi_class` argument that
    scikit-learn >= 1.8 no longer takes."""
    import anndata
    import scanpy as sc
    from celltypist.models import Model
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    raw = sc.datasets.pbmc68k_reduced().raw.to_adata()
    raw = raw[raw.obs["bulk_labels"].isin(list(REFERENCE_LABELS))]
    ref = anndata.AnnData(np.expm1(raw.X.toarray()), obs=raw.obs.copy(), var=raw.var.copy())
    sc.pp.normalize_total(ref, target_sum=1e4)
    sc.pp.log1p(ref)
    shared = sorted(set(ref.var_names) & set(genes))
    x = np.asarray(ref[:, shared].X)
    labels = ref.obs["bulk_labels"].map(REFERENCE_LABELS).astype(str).to_numpy()
    scaler = StandardScaler().fit(x)
    classifier = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(x), labels)
    classifier.features = np.array(shared)
    Model(classifier, scaler, {"date": "", "details": "pbmc68k_reduced, T/B/monocytes", "url": "", "source": "",
                               "version": "", "number_celltypes": len(classifier.classes_)}).write(str(path))


@pytest.fixture(scope="module")
def cohort_run(tmp_path_factory):
    _require("anndata", "scanpy", "skimage", "celltypist", "pydeseq2")
    base = tmp_path_factory.mktemp("sc_extras")
    d = generate(base, "single_cell") / "single_cell"
    t = truth(base / "data", "single_cell")
    h5ad = d / "pbmc_conditions.h5ad"
    planted = _cohort(d / "pbmc_tiny.h5ad", h5ad, t)
    import anndata

    _train_reference_model(base / "pbmc_reference.pkl", anndata.read_h5ad(h5ad, backed="r").var_names)
    workdir = compile_workflow(COHORT_QUERY, [str(h5ad)], base / "out")
    set_param(workdir, "celltypist", "model", str(base / "pbmc_reference.pkl"))
    # three cell types over 250 genes: Scrublet's PCA needs few components (30 blur the doublets)
    set_param(workdir, "scanpy_scrublet", "n_prin_comps", 10)
    run_ok(workdir)
    return workdir, planted


def _rows(path) -> list[dict]:
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_scrublet_scores_planted_doublets_above_singlets(cohort_run):
    workdir, planted = cohort_run
    rows = _rows(workdir / "results/doublet_detection/doublet_scores.tsv")
    doublet = {r["cell"] for r in rows} & set(planted["doublets"])
    assert len(doublet) >= 0.8 * len(planted["doublets"]), "QC removed most planted doublets before scoring"
    scores_d = [float(r["doublet_score"]) for r in rows if r["cell"] in doublet]
    scores_s = [float(r["doublet_score"]) for r in rows if r["cell"] not in doublet]
    auc = np.mean([[d > s for s in scores_s] for d in scores_d])
    assert auc > 0.85, auc
    called = [r["cell"] for r in rows if r["predicted_doublet"] == "True"]
    assert len(set(called) & doublet) >= 0.5 * len(doublet), (len(called), len(doublet))


def test_celltypist_labels_the_planted_populations(cohort_run):
    workdir, planted = cohort_run
    rows = _rows(workdir / "results/cell_type_annotation/cell_types_per_cell.tsv")
    singlets = [r for r in rows if r["cell"] in planted["types"]]
    right = sum(r["cell_type"] == planted["types"][r["cell"]] for r in singlets)
    assert right >= 0.9 * len(singlets), (right, len(singlets))
    clusters = _rows(workdir / "results/cell_type_annotation/cluster_cell_types.tsv")
    assert {r["cell_type"] for r in clusters} == {"B_cell", "Monocyte", "T_cell"}, clusters


def test_pseudobulk_finds_the_planted_condition_genes_in_t_cells(cohort_run):
    workdir, planted = cohort_run
    rows = _rows(workdir / "results/pseudobulk_differential_expression/pseudobulk_de.tsv")
    hits = {(r["cell_type"], r["gene_id"]) for r in rows
            if r["padj"] != "NA" and float(r["padj"]) < 0.05 and abs(float(r["log2FoldChange"])) > 1}
    found = {g for ct, g in hits if ct == "T_cell" and g in planted["planted_genes"]}
    assert len(found) >= PLANTED_GENES - 2, sorted(found)
    up = [float(r["log2FoldChange"]) for r in rows if r["cell_type"] == "T_cell" and r["gene_id"] in found]
    assert min(up) > 1, up  # treated vs control: up
    elsewhere = {g for ct, g in hits if ct != "T_cell" and g in planted["planted_genes"]}
    assert not elsewhere, sorted(elsewhere)
    false_hits = {g for ct, g in hits if g not in planted["planted_genes"]}
    assert len(false_hits) <= 3, sorted(false_hits)
    assert {r["cell_type"] for r in rows} <= {"B_cell", "Monocyte", "T_cell"}


def _continuum(dst, n_cells: int = 300, n_genes: int = 90) -> np.ndarray:
    """Cells along a planted time 0..1: a third of the genes fall, a third peak halfway, a third rise."""
    import anndata
    from scipy import sparse

    rng = np.random.default_rng(5)
    time = np.sort(rng.uniform(0, 1, n_cells))
    third = n_genes // 3
    early = 8 * (1 - time)[:, None] * np.ones(third)
    middle = 8 * np.exp(-((time - 0.5) ** 2) / 0.02)[:, None] * np.ones(third)
    late = 8 * time[:, None] * np.ones(n_genes - 2 * third)
    rate = np.hstack([early, middle, late]) + 0.3
    counts = rng.poisson(rate * rng.uniform(0.8, 1.2, (n_cells, 1)))
    adata = anndata.AnnData(sparse.csr_matrix(counts.astype(np.float32)))
    adata.obs_names = [f"cell{i:03d}" for i in range(n_cells)]
    adata.var_names = [f"GENE{i:03d}" for i in range(n_genes)]
    adata.obs["sample"] = "timecourse"
    adata.write_h5ad(dst)
    return time


@pytest.fixture(scope="module")
def trajectory_run(tmp_path_factory):
    _require("anndata", "scanpy")
    base = tmp_path_factory.mktemp("sc_trajectory")
    time = _continuum(base / "timecourse.h5ad")
    workdir = compile_workflow(TRAJECTORY_QUERY, [str(base / "timecourse.h5ad")], base / "out")
    run_ok(workdir)
    return workdir, time


def test_pseudotime_orders_cells_as_the_planted_time(trajectory_run):
    from scipy.stats import spearmanr

    workdir, time = trajectory_run
    rows = _rows(workdir / "results/trajectory_inference/pseudotime.tsv")
    by_cell = {r["cell"]: float(r["dpt_pseudotime"]) for r in rows}
    cells = sorted(by_cell)
    planted = [time[int(c[4:])] for c in cells]
    rho = spearmanr([by_cell[c] for c in cells], planted).statistic
    assert abs(rho) > 0.8, rho
    edges = _rows(workdir / "results/trajectory_inference/paga_connectivities.tsv")
    assert edges and any(r["tree"] == "True" for r in edges), edges
