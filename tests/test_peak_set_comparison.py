"""Comparing peak sets (bedtools intersect / jaccard / multiinter), once refused by name: the phrasings people use,
several peak files given read as each sample's peaks, and what stays a cohort peak set. Plans only; the run with a
science check is tests/e2e/test_peak_set_comparison_run.py."""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.errors import AmbiguousInputError


def _steps(result) -> dict[str, str]:
    return {s.operation: s.tool for s in result.plans[0].steps}


def _peaks(folder, *names: str) -> list[str]:
    paths = []
    for name in names:
        path = folder / name
        path.write_text("chr1\t100\t600\tp1\t500\t.\t9.1\t7.2\t5.3\t250\nchr1\t9000\t9400\tp2\t300\t.\t6.0\t5.0\t4.0\t200\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("query", [
    "Determine unique/common TAL1 binding sites from G1E and Megakaryocytes",
    "ChIP-seq: compare the peak sets of the two conditions (overlap and Jaccard index)",
    "find the shared and unique peaks between the samples",
    "intersect the peak sets of the replicates",
    "比较两个条件的峰集，找出共有峰和特有峰",
])
def test_the_phrasings_compare_the_peak_sets_with_bedtools(knowledge, query):
    assert _steps(plan_request(query, [], knowledge))["peak_set_comparison"] == "bedtools_peak_overlap"


def test_several_peak_files_are_each_samples_peaks_named_by_the_file(knowledge, tmp_path):
    inputs = _peaks(tmp_path, "G1E_peaks.narrowPeak", "Megakaryocytes_peaks.narrowPeak", "HPC.bed")
    result = plan_request("compare the peak sets: unique and common peaks", inputs, knowledge)
    assert _steps(result) == {"peak_set_comparison": "bedtools_peak_overlap"}
    assert result.spec.input_types == ("replicate_peak_calls",)
    said = next(w for w in result.warnings if "3 peak files read as each sample's peaks" in w)
    assert "'G1E', 'HPC', 'Megakaryocytes'" in said  # the samples named by the files, suffixes dropped


def test_a_request_reading_one_peak_set_keeps_the_files_a_cohort_set(knowledge, tmp_path):
    # the signal over the peaks reads one peak set: two files are not two samples' peaks there
    with pytest.raises(AmbiguousInputError):
        plan_request("annotate the peaks with HOMER", _peaks(tmp_path, "a_peaks.narrowPeak", "b_peaks.narrowPeak"),
                     knowledge)
