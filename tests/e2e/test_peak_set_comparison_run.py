"""Comparing peak sets (bedtools intersect, jaccard and multiinter) on planted narrowPeak files.

Three samples' peaks on one chromosome: five sites bound in every sample, three in the two treated samples
only, two in the control only, and one treated sample calling one of its sites twice (overlapping calls,
merged into one peak). The compiled workflow must count, for every pair of sets, the peaks of each
overlapping the other and those unique to each, give the Jaccard index of the covered bases (as computed
here from the planted intervals), the symmetric Jaccard matrix, and the regions covered by every subset of
the sets (the common sites covered by all three, the control's own sites by it alone).
"""

from __future__ import annotations

import csv

import pytest
from e2e_support import compile_workflow, require_binaries, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "ChIP-seq: compare the peak sets of the samples (unique and common peaks, overlap and Jaccard index)"
COMMON = [(10_000 * i, 10_000 * i + 500) for i in range(1, 6)]
TREATED_ONLY = [(100_000 + 5_000 * i, 100_000 + 5_000 * i + 300) for i in range(3)]
CONTROL_ONLY = [(200_000, 200_800), (210_000, 210_400)]
SETS = {
    "ctrl_1": COMMON + CONTROL_ONLY,
    "treated_1": COMMON + TREATED_ONLY,
    # shifted by 100 bp, and its first treated site called twice (overlapping calls: one peak)
    "treated_2": [(s + 100, e + 100) for s, e in COMMON + TREATED_ONLY] + [(100_050, 100_350)],
}


def covered(intervals) -> set[int]:
    return {p for s, e in intervals for p in range(s, e)}


def jaccard(a, b) -> float:
    ca, cb = covered(SETS[a]), covered(SETS[b])
    return len(ca & cb) / len(ca | cb)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    require_binaries("bedtools", "snakemake")
    base = tmp_path_factory.mktemp("peaksets")
    paths = []
    for sample, intervals in SETS.items():
        path = base / f"{sample}.narrowPeak"
        path.write_text("".join(f"chr1\t{s}\t{e}\t{sample}_peak_{i}\t500\t.\t9.1\t7.2\t5.3\t{(e - s) // 2}\n"
                                for i, (s, e) in enumerate(sorted(intervals), 1)))
        paths.append(str(path))
    workdir = compile_workflow(REQUEST, paths, base / "out")
    run_ok(workdir)
    return workdir / "results/peak_set_comparison"


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_every_pair_counts_overlapping_and_unique_peaks(compared):
    pairs = {(r["set_a"], r["set_b"]): r for r in _rows(compared / "peak_overlaps.tsv")}
    assert set(pairs) == {("ctrl_1", "treated_1"), ("ctrl_1", "treated_2"), ("treated_1", "treated_2")}
    ctrl_treated = pairs["ctrl_1", "treated_1"]
    assert (int(ctrl_treated["peaks_a"]), int(ctrl_treated["peaks_b"])) == (7, 8)
    assert (int(ctrl_treated["a_overlapping_b"]), int(ctrl_treated["unique_a"])) == (5, 2)
    assert (int(ctrl_treated["b_overlapping_a"]), int(ctrl_treated["unique_b"])) == (5, 3)
    treated = pairs["treated_1", "treated_2"]  # the twice-called site is one peak
    assert (int(treated["peaks_b"]), int(treated["unique_a"]), int(treated["unique_b"])) == (8, 0, 0)
    for (a, b), row in pairs.items():
        assert float(row["jaccard"]) == pytest.approx(jaccard(a, b), abs=1e-4), (a, b)


def test_the_jaccard_matrix_is_symmetric_with_ones_on_the_diagonal(compared):
    matrix = {r["set"]: r for r in _rows(compared / "peak_jaccard.tsv")}
    assert sorted(matrix) == sorted(SETS)
    for a in SETS:
        assert float(matrix[a][a]) == 1
        for b in SETS:
            if a != b:
                assert float(matrix[a][b]) == pytest.approx(jaccard(a, b), abs=1e-4)


def test_the_regions_of_each_subset_of_the_sets(compared):
    pieces = _rows(compared / "peak_multiinter.tsv")
    shared_by_all = {(int(r["start"]), int(r["end"])) for r in pieces if r["num"] == "3"}
    assert shared_by_all == {(s + 100, e) for s, e in COMMON}  # the common sites, where all three overlap
    control_alone = {(int(r["start"]), int(r["end"])) for r in pieces if r["list"] == "ctrl_1"}
    assert set(CONTROL_ONLY) <= control_alone
