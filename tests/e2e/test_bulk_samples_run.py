"""Sample-level exploration of the bulk example's counts, run with the real tools (engineer B): DESeq2's
variance-stabilising transformation (blind), the PCA of the samples and their distance heatmap with
hierarchical clustering, as nf-core/rnaseq's deseq2_qc draws them. Three short jobs on the example's
600 genes x 6 samples (about 15 CPU-seconds, most of it loading DESeq2).

The example plants 40 genes changed between treated and control (truth.json): PC1 separates the two
conditions and carries the largest share of the variance; each sample's nearest neighbour in the
distance matrix is a replicate of its own condition, and the clustering's first split is the
conditions. The VST is on a log2-like scale: it tracks log2 of the size-factor-normalised counts.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from e2e_support import compile_workflow, generate, require_tools, run_ok, truth

pytestmark = pytest.mark.e2e

QUERY = ("mouse bulk RNA-seq counts: check that the replicates cluster together with a PCA plot of the samples and "
         "a sample distance heatmap with hierarchical clustering")


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    require_tools("bulk_de")
    base = tmp_path_factory.mktemp("bulk_samples")
    data = generate(base, "bulk_de")
    files = [str(data / "bulk_de" / "counts.csv"), str(data / "bulk_de" / "samples.tsv")]
    workdir = compile_workflow(QUERY, files, base / "out")
    run_ok(workdir)
    return workdir, truth(data, "bulk_de"), data / "bulk_de"


def test_the_plan_is_vst_then_pca_and_sample_distances(explored):
    workdir, _, _ = explored
    rules = sorted(p.stem for p in (workdir / "workflow" / "rules").glob("*.smk"))
    assert {"count_normalization", "sample_pca", "sample_clustering"} <= set(rules), rules
    assert "differential_expression" not in rules and "heatmap_plotting" not in rules, rules


def test_the_vst_tracks_log2_of_the_normalised_counts(explored):
    workdir, t, data = explored
    vst = pd.read_csv(workdir / "results/count_normalization/vst.tsv", sep="\t", index_col=0)
    counts = pd.read_csv(data / "counts.csv", index_col=0)
    assert list(vst.columns) == list(t["samples"]), vst.columns
    # the planted size factors divide the counts; well-expressed genes' VST is close to log2 of the result
    normalised = counts[vst.columns] / pd.Series(t["size_factors"])
    strong = normalised.index[normalised.mean(axis=1) > 500]
    assert len(strong) > 20
    gap = (vst.loc[strong] - normalised.loc[strong].map(math.log2)).abs()
    assert gap.median().median() < 0.5, gap.describe()


def test_pc1_separates_the_conditions(explored):
    workdir, t, _ = explored
    pca = pd.read_csv(workdir / "results/sample_pca/sample_pca.tsv", sep="\t", index_col=0, dtype={"condition": str})
    share = pca.loc["percent_variance"]
    scores = pca.drop(index="percent_variance")
    members = {c: [s for s, g in t["samples"].items() if g == c] for c in ("control", "treated")}
    control, treated = scores.loc[members["control"], "PC1"], scores.loc[members["treated"], "PC1"]
    assert control.max() < treated.min() or treated.max() < control.min(), scores
    assert float(share["PC1"]) > float(share["PC2"]) and float(share["PC1"]) > 30, share
    assert (workdir / "results/sample_pca/sample_pca.png").read_bytes()[:4] == b"\x89PNG"


def test_replicates_are_nearest_neighbours_and_the_first_split_is_the_conditions(explored):
    workdir, t, _ = explored
    distances = pd.read_csv(workdir / "results/sample_clustering/sample_distances.tsv", sep="\t", index_col=0)
    assert sorted(distances.index) == sorted(t["samples"]) and list(distances.index) == list(distances.columns)
    for sample in distances.index:
        nearest = distances.loc[sample].drop(sample).idxmin()
        assert t["samples"][nearest] == t["samples"][sample], (sample, nearest, distances)
    # the leaf order keeps each condition together, and the tree's two top clades are the conditions
    groups = [t["samples"][s] for s in distances.index]
    assert groups[:3] == [groups[0]] * 3 and groups[3:] == [groups[3]] * 3 and groups[0] != groups[3], groups
    tree = (workdir / "results/sample_clustering/sample_clustering.nwk").read_text().strip()
    clades = {frozenset(re.findall(r"(\w+):", c)) for c in _top_clades(tree)}
    assert clades == {frozenset(s for s, g in t["samples"].items() if g == c) for c in ("control", "treated")}, tree
    assert (workdir / "results/sample_clustering/sample_distances.png").read_bytes()[:4] == b"\x89PNG"


def _top_clades(newick: str) -> list[str]:
    """The two subtrees under the root of a Newick tree '(A,B);'."""
    body, depth, start, out = newick.rstrip(";")[1:], 0, 0, []
    body = body[:body.rindex(")")]
    for i, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            out.append(body[start:i])
            start = i + 1
    return [*out, body[start:]]
