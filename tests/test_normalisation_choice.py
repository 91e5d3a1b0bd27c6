"""A normalisation method the request names chooses the tools that honour it when no tool is named: a lexicon
setting with `unlike` (its step's other tools do not honour it) ranks the tools that do first in the binding
(planner/bind.py). "TMM normalization and DE analysis" runs edgeR (TMM is edgeR's normalisation; DESeq2 uses its
own median-of-ratios size factors) and the report says edgeR was chosen for it over DESeq2; "median of ratios"
keeps DESeq2; a tool the user names still runs, with the conflict said."""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.models import RequestedSetting, TaskSpec
from bioplan.planner.bind import setting_takers


def _tools(result):
    return {s.operation: s.tool for s in result.plans[0].steps}


def _said(result, start):
    return [w for w in result.warnings if w.startswith(start)]


@pytest.mark.parametrize("query", [
    "normalise with TMM, then differential expression",
    "TMM normalization and DE analysis",
    "differential expression analysis after trimmed mean of M values normalisation",
    "用TMM标准化后做差异表达",
    "TMM标准化后进行差异表达分析",
])
def test_tmm_named_without_a_test_runs_edger_and_says_why(knowledge, query):
    result = plan_request(query, [], knowledge)
    assert _tools(result)["differential_expression"] == "edger"
    chosen = [w for w in _said(result, "set from the request: a normalisation method (TMM)")
              if "edgeR (quasi-likelihood) does it (chosen for the differential expression analysis" in w]
    assert len(chosen) == 1 and "over DESeq2" in chosen[0], result.warnings
    assert not _said(result, "not honoured"), result.warnings


@pytest.mark.parametrize("query", [
    "median of ratios normalization, then differential expression",
    "normalise by median of ratios and find differentially expressed genes",
])
def test_median_of_ratios_keeps_deseq2(knowledge, query):
    result = plan_request(query, [], knowledge)
    assert _tools(result)["differential_expression"] == "deseq2"
    done = _said(result, "set from the request: a normalisation method (median of ratios)")
    assert len(done) == 1 and "DESeq2 does it" in done[0] and "chosen" not in done[0], result.warnings


@pytest.mark.parametrize(("query", "test", "conflict"), [
    ("normalise with TMM and run DESeq2", "deseq2", "not honoured by DESeq2"),
    ("normalise by median of ratios and run edgeR", "edger", "not honoured by edgeR"),
])
def test_a_named_test_still_runs_and_the_conflict_is_said(knowledge, query, test, conflict):
    result = plan_request(query, [], knowledge)
    assert _tools(result)["differential_expression"] == test
    assert len(_said(result, conflict)) == 1, result.warnings


def test_two_methods_for_one_step_leave_it_to_the_quality(knowledge):
    """TMM and VST both named for the normalisation: each honoured by one tool, DESeq2 VST (the better ranked)
    runs and TMM is said as not honoured."""
    result = plan_request("normalise the counts with TMM and then VST", [], knowledge)
    assert _tools(result)["count_normalization"] == "deseq2_vst"
    assert any("'tmm'" in w for w in _said(result, "not honoured: a normalisation method")), result.warnings


def test_only_settings_with_unlike_rank_tools(knowledge):
    """A threshold every DE tool takes (no `unlike`) prefers none; TMM its honouring tools, once each."""
    base = plan_request("differential expression", [], knowledge).spec
    fdr = RequestedSetting(id="significance_threshold", text="fdr 0.01", params={"deseq2": {"alpha": 0.01}})
    tmm = RequestedSetting(id="normalisation_tmm", text="tmm", params={})
    assert setting_takers(knowledge, TaskSpec.model_validate({**base.model_dump(), "settings": [fdr]})) == []
    takers = setting_takers(knowledge, TaskSpec.model_validate({**base.model_dump(), "settings": [tmm, tmm]}))
    assert sorted(takers) == ["edger", "edger_cpm", "limma_voom"]
