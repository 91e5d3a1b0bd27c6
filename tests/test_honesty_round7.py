"""Honesty round 7: never a different pipeline without saying so; every word accounted for; a setting asked
for is honoured or said not honoured.

- The compared levels ("KO vs WT", "treated versus control", "KO against WT", "compare mutant to wild type")
  are set as the DE tools' reference_level / test_level (the control-like level, else the second named, is
  the reference; the report says which), checked against the sample sheet's condition column when one is
  given and said as not honoured, naming the level, when it lacks one.
- A fold-change threshold alone ("|log2FC| > 1", "fold change of 2", "FC>=1.5") is set on the DE step itself
  (DESeq2/PyDESeq2 lfcThreshold, edgeR glmTreat, limma treat), both targets (one params file).
- A normalisation named beside another tool's test ("normalise with TMM and run DESeq2") never replaces the
  test, and the conflict is said (DESeq2 uses its own size factors); TMM with edgeR is edgeR's.
- VST re-checks at run time the raw counts it models (a check step before it).
- Without input files, the inputs a plan assumes are said, and data named as what to use is no result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import NoOperationRecognizedError
from bioplan.models import InputProfile
from bioplan.report import report
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec
from helpers import require_r_packages, run_r_session

ROOT = Path(__file__).resolve().parents[1]
RUNNER_R = ROOT / "templates" / "nextflow" / "bin" / "bioplan_run.R"
DE_TOOLS = ("deseq2", "pydeseq2", "edger", "limma_voom")


def _plan(query, knowledge, inputs=()):
    return plan_request(query, list(inputs), knowledge)


def _params(knowledge, result):
    return synthesize(knowledge, result.spec, result.plans[0]).params


def _warnings(result, start):
    return [w for w in result.warnings if w.startswith(start)]


def _tools(result):
    return {s.operation: s.tool for s in result.plans[0].steps}


def _study(tmp_path: Path, levels: tuple[str, str]) -> list[str]:
    """A mouse count matrix (Ensembl ids, integer counts) and its sample sheet, three samples per level."""
    samples = [f"{lv.replace(' ', '_')}_{i}" for lv in levels for i in (1, 2, 3)]
    rows = ["gene_id," + ",".join(samples)]
    rows += [f"ENSMUSG{g:011d}," + ",".join(str(10 + (g * (k + 1)) % 41) for k in range(6)) for g in range(1, 31)]
    counts = tmp_path / "counts.csv"
    counts.write_text("\n".join(rows) + "\n")
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{lv}\n" for lv in levels for s in samples
                                                     if s.startswith(lv.replace(" ", "_") + "_")))
    return [str(counts), str(sheet)]


# --------------------------------------------------------------------------- the compared levels


@pytest.mark.parametrize(("query", "test", "reference"), [
    ("differential expression with DESeq2, KO vs WT", "ko", "wt"),
    ("differential expression with DESeq2, WT vs KO", "ko", "wt"),  # the control-like level is the reference
    ("differential expression of treated versus control with DESeq2", "treated", "control"),
    ("DESeq2 differential expression of KO against WT", "ko", "wt"),
    ("compare mutant to wild type with DESeq2 differential expression", "mutant", "wild type"),
    ("differential expression with DESeq2, tumour compared with normal", "tumour", "normal"),
    ("differential expression with DESeq2, day7 vs day0", "day7", "day0"),  # neither control-like: the second
    ("用DESeq2做差异表达分析，KO vs WT", "ko", "wt"),
])
def test_the_compared_levels_are_set_on_the_de_step(knowledge, query, test, reference):
    result = _plan(query, knowledge)
    params = _params(knowledge, result)["deseq2"]
    assert (params["test_level"], params["reference_level"]) == (test, reference)
    said = _warnings(result, "the contrast ")
    assert len(said) == 1 and f"{test} against the reference {reference}" in said[0], result.warnings
    assert "matched to its condition column at run time" in said[0]
    assert any("compared levels" in w and f"reference_level {reference}" in w
               for w in _warnings(result, "set from the request: "))
    assert not any("compared levels" in w for w in _warnings(result, "not honoured"))
    assert set(said) <= set(report(result)["warnings"])


@pytest.mark.parametrize("tool", ["edgeR", "limma-voom", "PyDESeq2"])
def test_every_de_tool_takes_the_contrast(knowledge, tool):
    result = _plan(f"differential expression with {tool}, KO vs WT", knowledge)
    params = _params(knowledge, result)
    planned = [t for t in DE_TOOLS if t in params]
    assert len(planned) == 1
    assert (params[planned[0]]["test_level"], params[planned[0]]["reference_level"]) == ("ko", "wt")


@pytest.mark.parametrize(("levels", "query", "test", "reference"), [
    (("WT", "KO"), "differential expression, KO vs WT", "KO", "WT"),  # the sheet's spelling
    (("wild_type", "mutant"), "differential expression: compare mutants to wild type", "mutant", "wild_type"),
    (("control", "treated"), "differential expression of treated against control", "treated", "control"),
    (("ctrl", "knockout"), "DE, KO versus control", "knockout", "ctrl"),  # aliases of one level
])
def test_the_levels_are_the_sample_sheets(knowledge, tmp_path, levels, query, test, reference):
    result = _plan(query, knowledge, _study(tmp_path, levels))
    tool = _tools(result)["differential_expression"]
    params = _params(knowledge, result)[tool]
    assert (params["test_level"], params["reference_level"]) == (test, reference)
    said = _warnings(result, "the contrast ")
    assert said and "of the condition column 'condition'" in said[0] and "samples.tsv" in said[0]


@pytest.mark.parametrize(("query", "missing"), [
    ("differential expression, KO vs WT", "'ko' and 'wt' are not levels"),
    ("differential expression of treated samples vs untreated", "'untreated' is not a level"),
    ("DESeq2: compare mutant with wild type", "'mutant' and 'wild type' are not levels"),
])
def test_a_level_the_sheet_lacks_is_said_by_name(knowledge, tmp_path, query, missing):
    result = _plan(query, knowledge, _study(tmp_path, ("control", "treated")))
    params = _params(knowledge, result)[_tools(result)["differential_expression"]]
    assert params["reference_level"] is None and params["test_level"] is None  # the run-time default
    notes = [w for w in _warnings(result, "not honoured: ") if "compared levels" in w]
    assert len(notes) == 1 and missing in notes[0] and "(control, treated)" in notes[0], result.warnings
    assert not any("compared levels" in w for w in _warnings(result, "set from the request: "))


def test_a_second_contrast_is_said_not_set(knowledge):
    result = _plan("differential expression with DESeq2: KO vs WT, and HET vs WT", knowledge)
    params = _params(knowledge, result)["deseq2"]
    assert (params["test_level"], params["reference_level"]) == ("ko", "wt")
    notes = [w for w in _warnings(result, "not honoured: ") if "compared levels" in w]
    assert len(notes) == 1 and "'het vs wt'" in notes[0] and "'ko vs wt'" in notes[0], result.warnings
    assert len([w for w in _warnings(result, "set from the request: ") if "compared levels" in w]) == 1


@pytest.mark.parametrize("query", [
    "compare salmon vs kallisto for differential expression",  # tools, not levels
    "differential expression vs differential splicing",
])
def test_words_of_the_knowledge_are_no_levels(knowledge, query):
    spec = build_spec(parse_request(query, knowledge), InputProfile(), knowledge, substitute=True, allow_partial=True)
    assert not any(s.id == "contrast" for s in spec.settings)


def test_a_contrast_outside_de_is_no_contrast(knowledge):
    result = _plan("call CNVs with CNVkit, tumour vs normal", knowledge)
    assert not any("contrast" in w or "compared levels" in w for w in result.warnings)


# --------------------------------------------------------------------------- a fold-change threshold alone


@pytest.mark.parametrize(("query", "tool", "value"), [
    ("differential expression with DESeq2, fold change of 2", "deseq2", 1.0),
    ("differential expression with DESeq2 and |log2FC| > 1", "deseq2", 1.0),
    ("DE with edgeR, FC>=1.5", "edger", 0.584963),
    ("differential expression with limma-voom, log2 fold change above 0.5", "limma_voom", 0.5),
    ("differential expression with PyDESeq2 and a fold change threshold of 4", "pydeseq2", 2.0),
    ("用DESeq2做差异表达分析, |log2FC| > 1", "deseq2", 1.0),
])
def test_a_fold_change_alone_is_set_on_the_de_step(knowledge, query, tool, value):
    result = _plan(query, knowledge)
    assert _params(knowledge, result)[tool]["lfc_threshold"] == value
    assert any("fold-change threshold" in w and f"lfc_threshold {value}" in w
               for w in _warnings(result, "set from the request: ")), result.warnings
    assert not _warnings(result, "not honoured")
    assert not {"log2fc", "fc"} & set(result.spec.unrecognized)


@pytest.mark.parametrize(("query", "tool", "param", "value"), [
    ("differential expression with DESeq2, adjusted p < 0.01", "deseq2", "alpha", 0.01),
    ("differential expression with DESeq2, adj.p < 0.01", "deseq2", "alpha", 0.01),
    ("differential expression with edgeR, p.adj < 0.1", "edger", "alpha", 0.1),
    ("differential expression with DESeq2, q < 0.01", "deseq2", "alpha", 0.01),
    ("differential expression with DESeq2, BH-adjusted p < 0.01", "deseq2", "alpha", 0.01),
    ("call peaks with MACS2, q < 0.01", "macs2_callpeak", "qvalue", 0.01),
])
def test_adjusted_p_value_thresholds_in_short_forms_are_set(knowledge, query, tool, param, value):
    """Short forms of an adjusted p-value were words no setting read: accounted as filler, silently dropped."""
    result = _plan(query, knowledge)
    assert _params(knowledge, result)[tool][param] == value
    assert any(f"{param} {value}" in w for w in _warnings(result, "set from the request: ")), result.warnings
    assert not set(result.spec.unrecognized) & {"bh", "adj", "q"}


def test_without_a_fold_change_the_de_tools_test_against_zero(knowledge):
    result = _plan("differential expression with DESeq2", knowledge)
    assert _params(knowledge, result)["deseq2"]["lfc_threshold"] == 0.0
    for tool in DE_TOOLS:
        assert knowledge.tools[tool].params["lfc_threshold"] == 0.0


def test_a_fold_change_with_a_filter_sets_both(knowledge):
    result = _plan("differential expression with DESeq2, keep significant genes with log2FC > 1.5", knowledge)
    params = _params(knowledge, result)
    assert params["deseq2"]["lfc_threshold"] == 1.5 and params["de_filter"]["lfc_threshold"] == 1.5


# --------------------------------------------------------------------------- a normalisation beside a test


@pytest.mark.parametrize("query", [
    "normalise with TMM and run DESeq2",
    "normalize the counts with TMM; then DESeq2",
    "TMM normalisation, then differential expression with DESeq2",
])
def test_tmm_beside_deseq2_keeps_the_test_and_says_the_conflict(knowledge, tmp_path, query):
    result = _plan(query, knowledge, _study(tmp_path, ("control", "treated")))
    tools = _tools(result)
    assert tools["differential_expression"] == "deseq2"
    conflict = _warnings(result, "not honoured by DESeq2")
    assert len(conflict) == 1 and "TMM" in conflict[0] and "size factors" in conflict[0], result.warnings


@pytest.mark.parametrize(("query", "test"), [
    ("normalize with TMM and run edgeR", "edger"),
    ("normalise the counts with TMM and test with limma-voom", "limma_voom"),
])
def test_tmm_with_a_tmm_test_is_that_tests(knowledge, tmp_path, query, test):
    result = _plan(query, knowledge, _study(tmp_path, ("control", "treated")))
    assert _tools(result)["differential_expression"] == test
    assert not _warnings(result, "not honoured")


@pytest.mark.parametrize(("query", "normaliser"), [
    ("normalise and run DESeq2", "deseq2_vst"),
    ("normalise the counts and then run DESeq2", "deseq2_vst"),
])
def test_a_tool_named_alone_after_a_normalisation_runs_its_own_step(knowledge, tmp_path, query, normaliser):
    result = _plan(query, knowledge, _study(tmp_path, ("control", "treated")))
    tools = _tools(result)
    assert tools["differential_expression"] == "deseq2" and tools["count_normalization"] == normaliser


def test_a_tool_named_for_the_normalisation_is_its_normaliser(knowledge, tmp_path):
    result = _plan("normalise the counts with DESeq2", knowledge, _study(tmp_path, ("control", "treated")))
    assert _tools(result) == {"count_normalization": "deseq2_vst"}


# --------------------------------------------------------------------------- VST re-checks its counts


@pytest.mark.parametrize(("query", "tool"), [
    ("variance stabilising transformation of the counts", "deseq2_vst"),
    ("normalise the counts with PyDESeq2", "pydeseq2_vst"),
])
def test_vst_checks_the_raw_counts_at_run_time(knowledge, query, tool):
    result = _plan(query, knowledge)
    step = next(s for s in result.plans[0].steps if s.tool == tool)
    assert "requires_raw_integer_counts" in step.preconditions
    workflow = synthesize(knowledge, result.spec, result.plans[0])
    checks = [s for s in workflow.steps if s.kind == "check"]
    assert any("integer" in (s.script or "") for s in checks), [s.script for s in checks]


# --------------------------------------------------------------------------- without inputs


@pytest.mark.parametrize(("query", "assumed"), [
    ("differential expression", "raw count matrix"),
    ("call variants", "aligned reads"),
    ("差异表达分析", "raw count matrix"),
])
def test_the_inputs_assumed_without_files_are_said(knowledge, query, assumed):
    result = _plan(query, knowledge)
    notes = _warnings(result, "no input files were given")
    assert len(notes) == 1 and assumed in notes[0].lower() and "-i FILE" in notes[0], result.warnings


def test_data_the_request_names_itself_is_not_said_as_assumed(knowledge):
    result = _plan("align the FASTQ reads with STAR", knowledge)
    assert not any("raw" in w and "reads" in w for w in _warnings(result, "no input files were given"))


# ("给我直接用reads比,给我表达量" names a result, expression values from the reads: transcript
# quantification, the dev-set case r7.zh.salmon_goal)
@pytest.mark.parametrize("query", [
    "直接用reads,给我结果",
    "use the reads",
])
def test_data_named_to_use_is_no_result(knowledge, query):
    with pytest.raises(NoOperationRecognizedError) as err:
        _plan(query, knowledge)
    assert any("-i FILE" in h for h in err.value.hints)


# --------------------------------------------------------------------------- the R scripts take the settings


def _run_r_cases(tmp_path: Path, script: str, cases: list[tuple[str, dict, tuple[str, str]]]) -> tuple[int, str]:
    """Run `script` on each (folder, params, levels) case of `cases` in one R session (helpers.run_r_session: each
    case through the Nextflow runner, the script's package loading once); (0 if every case ended, else the first
    other exit status, -1 for a case never run; terminal)."""
    runs = []
    for folder, params, levels in cases:
        work = tmp_path / folder
        work.mkdir(parents=True, exist_ok=True)
        inputs = _study(work, levels)
        (work / "params.json").write_text(json.dumps({"condition_column": "condition", "alpha": 0.05, **params}))
        runs.append([str(ROOT / "templates" / "scripts" / script), "--input", f"counts={inputs[0]}", "--input",
                     f"samples={inputs[1]}", "--output", f"table={work / 'de.tsv'}", "--params",
                     str(work / "params.json"), "--log", str(work / "step.log"), "--rule", "step"])
    done = run_r_session(tmp_path, RUNNER_R, runs, timeout=300)
    codes = [-1 if code is None else code for code, _ in done]  # -1: never run
    return next((code for code in codes if code != 0), 0), "".join(terminal for _, terminal in done)


def _log(folder: Path) -> str:
    return (folder / "step.log").read_text() if (folder / "step.log").exists() else ""


def assert_threshold_and_levels(thresholded_log: str, thresholded_table: Path, plain_log: str, plain_table: Path,
                                said: str) -> None:
    """A DE script's two runs on _study(("WT", "KO")): with lfc_threshold 1 and the levels wt/ko it tests against the
    threshold (naming how: `said`) and contrasts KO vs WT; with 0 it tests no threshold; the threshold never gives a
    smaller p-value (column 6) than testing against 0."""
    assert f"testing |log2FoldChange| > 1 ({said}" in thresholded_log, thresholded_log
    assert "contrast condition: KO vs WT" in thresholded_log, thresholded_log
    assert "testing |log2FoldChange|" not in plain_log  # each case its own log: the threshold of its own
    thresholded = {r.split("\t")[0]: r.split("\t") for r in thresholded_table.read_text().splitlines()[1:]}
    plain = {r.split("\t")[0]: r.split("\t") for r in plain_table.read_text().splitlines()[1:]}
    # testing against |log2FC| > 1 never gives a smaller p-value than testing against 0
    both = [g for g in plain if plain[g][5] != "NA" and thresholded[g][5] != "NA"]
    assert both and all(float(thresholded[g][5]) >= float(plain[g][5]) - 1e-12 for g in both)


# DESeq2's and PyDESeq2's cases run in tests/test_step_scripts.py, in the DESeq2 R session and the process that
# imports PyDESeq2 there (test_deseq2_de_r_tests_against_the_threshold_and_takes_the_levels,
# test_pydeseq2_tests_against_the_threshold_and_takes_the_levels): a Bioconductor load (~10 CPU-s) and two Python
# starts importing PyDESeq2 fewer
@pytest.mark.e2e
@pytest.mark.parametrize(("script", "package", "said"), [
    ("edger_de.R", "edgeR", "glmTreat"),
    ("limma_voom_de.R", "limma", "treat"),
])
def test_the_de_scripts_test_against_the_threshold_and_take_the_levels(tmp_path, script, package, said):
    require_r_packages(package, "edgeR")
    code, terminal = _run_r_cases(tmp_path, script, [
        ("a", {"lfc_threshold": 1.0, "reference_level": "wt", "test_level": "ko"}, ("WT", "KO")),
        ("b", {"lfc_threshold": 0.0}, ("WT", "KO"))])
    assert code == 0, terminal + _log(tmp_path / "a") + _log(tmp_path / "b")
    assert_threshold_and_levels(_log(tmp_path / "a"), tmp_path / "a" / "de.tsv", _log(tmp_path / "b"),
                                tmp_path / "b" / "de.tsv", said)
