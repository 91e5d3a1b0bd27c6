"""`bioplan eval`: the development set against its committed baseline (the CI gate), the case
format, the scoring of a plan against expectations, the metrics and the baseline gate."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.evaluate import (
    BASELINE,
    CaseFileError,
    baseline_from,
    check_baseline,
    load_baseline,
    load_cases,
    run_eval,
    text_report,
)
from bioplan.evaluate.cases import Case
from bioplan.evaluate.fixtures import write_fixtures
from bioplan.evaluate.runner import check_plan, percentile
from bioplan.models import Plan, PlanResult, PlanStep, TargetOutput, TaskSpec

REFERENCE_TAGS = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")


# --------------------------------------------------------------------------- the development set (CI gate)


@pytest.fixture(scope="module")
def dev_report(workspace, knowledge):
    return run_eval(data_dir=workspace / "data", knowledge=knowledge)


def test_dev_set_meets_the_committed_baseline(dev_report):
    result = check_baseline(dev_report, load_baseline(BASELINE), str(BASELINE))
    assert result["ok"], ("regression against compiler/bioplan/evaluate/baseline.json (run `bioplan eval` to see the "
                          "failing cases):\n  " + "\n  ".join(result["regressions"]))


def test_dev_set_runs_without_crashes_or_missing_fixtures(dev_report):
    assert dev_report.metrics["crashes"] == 0, [c.crash for c in dev_report.cases if c.crash]
    assert dev_report.metrics["fixture_problems"] == 0, [c.fixture_problem for c in dev_report.cases
                                                         if c.fixture_problem]
    assert dev_report.metrics["cases"] == len(dev_report.cases)
    assert "pass_rate" in text_report(dev_report)


def test_dev_set_covers_the_vocabulary_languages_and_refusals(knowledge):
    cases = load_cases(None, knowledge).cases
    assert len(cases) >= 120
    assert 3 * sum(c.language == "zh" for c in cases) >= len(cases)
    tags = {t for c in cases for t in c.tags}
    assert set(REFERENCE_TAGS) | {"chip_atac", "variant_calling", "salmon", "gsea", "plots", "id_conversion",
                                  "single_step", "paraphrase", "typo", "tool_pref", "no_inputs", "refusal"} <= tags
    for tag in REFERENCE_TAGS:  # each reference class in both languages
        assert {c.language for c in cases if tag in c.tags and "reference_example" in c.tags} == {"en", "zh"}, tag
    codes = {c.expect.error for c in cases if c.expect.error}
    assert {"empty_query", "no_operation_recognized", "unsatisfiable", "unreadable_input",
            "constraint_violation"} <= codes
    plan_cases = [c for c in cases if not c.expects_error]
    assert any(c.inputs for c in plan_cases) and any(not c.inputs for c in plan_cases)
    assert any(c.expect.tools_absent for c in cases) and any(c.expect.tools for c in cases)
    # every operation of the knowledge base is expected by some case
    expected_ops = {op for c in cases for op in c.expect.operations}
    assert not set(knowledge.operations) - expected_ops, sorted(set(knowledge.operations) - expected_ops)


# --------------------------------------------------------------------------- scoring one plan


def _result(steps: list[tuple[str, str, str, dict, dict]], edges, target="kegg_enrichment_table", fmt=None,
            constraint_ids=("organism_mouse",), workflow_type="linear") -> PlanResult:
    spec = TaskSpec(query="q", input_types=("raw_count_matrix", "sample_metadata"),
                    target_output=TargetOutput(semantic_type=target, format=fmt),
                    constraint_ids=tuple(constraint_ids), workflow_type=workflow_type)
    plan = Plan(rank=1, steps=tuple(PlanStep(id=i, operation=op, tool=tool, inputs=ins, outputs=outs)
                                    for i, op, tool, ins, outs in steps), edges=tuple(edges))
    return PlanResult(spec=spec, anchors=(), plans=(plan,))


_DE_KEGG = _result(
    [("de", "differential_expression", "deseq2", {"counts": "raw_count_matrix"},
      {"table": "differential_expression_table"}),
     ("filt", "gene_filtering", "de_filter", {"table": "differential_expression_table"},
      {"genes": "significant_gene_list"}),
     ("conv", "gene_id_conversion", "idmap_table", {"genes": "gene_list"}, {"entrez": "entrez_gene_list"}),
     ("kegg", "kegg_enrichment", "gseapy_enrich_kegg", {"genes": "entrez_gene_list"},
      {"table": "kegg_enrichment_table"})],
    [("de", "filt"), ("filt", "conv"), ("conv", "kegg")])


def _case(**expect) -> Case:
    return Case.model_validate({"id": "t", "request": "r", "expect": expect})


def test_check_plan_accepts_what_the_plan_shows(knowledge):
    case = _case(operations=["differential_expression", "kegg_enrichment"], absent=["gsea"],
                 order=[["differential_expression", "kegg_enrichment"], ["gene_filtering", "gene_id_conversion"]],
                 target="kegg_enrichment_table", constraints=["organism_mouse"], constraints_absent=["organism_human"],
                 tools={"differential_expression": "deseq2"}, tools_absent=["edger"], workflow_type="linear",
                 input_types=["raw_count_matrix"])
    checks, failures = check_plan(case, _DE_KEGG, knowledge)
    assert failures == [] and all(checks.values())
    assert set(checks) == {"operations", "absent", "order", "target", "constraints", "tools", "workflow_type",
                           "input_types"}


def test_check_plan_names_every_unmet_expectation(knowledge):
    case = _case(operations=["differential_expression", "go_enrichment"], absent=["gene_filtering"],
                 order=[["kegg_enrichment", "differential_expression"]], target="merged_pathway_table",
                 target_format="csv", constraints=["requires_entrez_id"], tools={"differential_expression": "edger"},
                 tools_absent=["deseq2"], workflow_type="multi_branch_join", input_types=["raw_reads"])
    checks, failures = check_plan(case, _DE_KEGG, knowledge)
    assert not any(checks.values())
    text = "\n".join(failures)
    for needle in ("operations: missing go_enrichment", "absent: has gene_filtering",
                   "order: kegg_enrichment does not feed differential_expression",
                   "target: target kegg_enrichment_table, expected merged_pathway_table",
                   "target format None, expected csv", "constraints: missing requires_entrez_id",
                   "tools: differential_expression bound to deseq2, expected edger", "tools: uses deseq2",
                   "workflow_type: linear, expected multi_branch_join", "input_types: missing raw_reads"):
        assert needle in text, needle


def test_order_follows_edges_not_step_listing(knowledge):
    # the steps are listed kegg-first, but the edges say DE feeds KEGG
    result = _result([("kegg", "kegg_enrichment", "t", {}, {"table": "kegg_enrichment_table"}),
                      ("de", "differential_expression", "t", {}, {"table": "differential_expression_table"})],
                     [("de", "kegg")])
    assert check_plan(_case(order=[["differential_expression", "kegg_enrichment"]]), result, knowledge)[1] == []
    assert check_plan(_case(order=[["kegg_enrichment", "differential_expression"]]), result, knowledge)[1]


def test_target_must_be_produced_by_the_plan(knowledge):
    result = _result([("de", "differential_expression", "t", {}, {"table": "differential_expression_table"})], [])
    _, failures = check_plan(_case(target="kegg_enrichment_table"), result, knowledge)
    assert failures == ["target: no step of the plan produces kegg_enrichment_table"]


# --------------------------------------------------------------------------- a run: metrics and refusals


def _write_cases(path: Path, cases: list[dict], **extra) -> Path:
    path.write_text(yaml.safe_dump({"version": 1, **extra, "cases": cases}, allow_unicode=True), encoding="utf-8")
    return path


_SMALL = [
    {"id": "de", "request": "differential expression", "expect": {"operations": ["differential_expression"]}},
    {"id": "de_wrong", "request": "differential expression",
     "expect": {"operations": ["differential_expression", "kegg_enrichment"], "absent": ["differential_expression"]}},
    {"id": "refused", "request": "hello world", "expect": {"error": "no_operation_recognized"}},
    {"id": "false_refusal", "request": "hello world", "expect": {"operations": ["differential_expression"]}},
    {"id": "wrong_code", "request": "", "expect": {"error": "unsatisfiable"}},
]


def test_metrics_of_a_small_run(tmp_path, knowledge):
    rep = run_eval(_write_cases(tmp_path / "c.yaml", _SMALL), data_dir=tmp_path / "data", knowledge=knowledge)
    by_id = {c.id: c for c in rep.cases}
    assert [c.id for c in rep.cases if c.passed] == ["de", "refused"]
    assert by_id["de_wrong"].recall_at_1 == 0.5 and by_id["false_refusal"].recall_at_1 == 0.0
    assert by_id["wrong_code"].failures[0].startswith("error: expected unsatisfiable, got empty_query")
    assert by_id["false_refusal"].failures[0].startswith("refused: no_operation_recognized")
    m = rep.metrics
    assert (m["cases"], m["plan_cases"], m["error_cases"], m["passed"]) == (5, 3, 2, 2)
    assert m["pass_rate"] == 0.4 and m["plan_pass_rate"] == round(1 / 3, 4)
    assert m["error_case_accuracy"] == 0.5 and m["false_refusal_rate"] == round(1 / 3, 4)
    assert m["operation_recall_at_1"] == 0.5 and m["operation_recall_at_k"] == 0.5
    assert m["latency_p95_ms"] >= m["latency_mean_ms"] > 0
    assert rep.breakdown["language"]["en"]["cases"] == 5
    assert json.loads(json.dumps(rep.to_json()))["metrics"] == m


def test_select_by_pattern(tmp_path, knowledge):
    rep = run_eval(_write_cases(tmp_path / "c.yaml", _SMALL), select_ids=["de*"], data_dir=tmp_path / "d",
                   knowledge=knowledge)
    assert [c.id for c in rep.cases] == ["de", "de_wrong"] and rep.filtered


def test_percentile_is_nearest_rank():
    assert percentile(list(range(1, 21)), 95) == 19
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 95) is None


# --------------------------------------------------------------------------- the case file


@pytest.mark.parametrize("case, problem", [
    ({"id": "x", "request": "r", "expect": {"operations": ["differential_expresion"]}},
     "unknown operation 'differential_expresion'"),
    ({"id": "x", "request": "r", "expect": {"tools": {"read_alignment": "edger"}}},
     "'edger' implements 'differential_expression', not 'read_alignment'"),
    ({"id": "x", "request": "r", "expect": {"error": "no_such_code"}}, "unknown error code 'no_such_code'"),
    ({"id": "x", "request": "r", "inputs": ["{fixtures}/nope.csv"], "expect": {"operations": ["read_qc"]}},
     "names no fixture"),
    ({"id": "x", "request": "r", "expect": {"error": "unsatisfiable", "operations": ["read_qc"]}},
     "no other expectations"),
    ({"id": "x", "request": "r", "expect": {}}, "holds no expectation"),
    ({"id": "x", "request": "r", "inputs": ["@nope"], "expect": {"operations": ["read_qc"]}}, "unknown input set"),
    ({"id": "x", "request": "r", "expect": {"order": [["read_qc"]]}}, "[A, B] pairs"),
    ({"id": "x", "request": "r", "expect": {"operation": ["read_qc"]}}, "Extra inputs are not permitted"),
])
def test_bad_case_files_are_refused_with_the_problem(tmp_path, knowledge, case, problem):
    with pytest.raises(CaseFileError) as err:
        load_cases(_write_cases(tmp_path / "c.yaml", [case]), knowledge)
    assert problem in err.value.message and err.value.code == "invalid_cases"


def test_duplicate_ids_are_refused(tmp_path, knowledge):
    case = {"id": "x", "request": "r", "expect": {"operations": ["read_qc"]}}
    with pytest.raises(CaseFileError, match="duplicate id"):
        load_cases(_write_cases(tmp_path / "c.yaml", [case, case]), knowledge)


def test_input_sets_and_language(tmp_path, knowledge):
    cf = load_cases(_write_cases(tmp_path / "c.yaml", [
        {"id": "a", "request": "差异表达", "inputs": ["@pair", "{data}/x.txt"], "expect": {"operations": ["read_qc"]}},
        {"id": "b", "request": "DE", "expect": {"operations": ["read_qc"]}}],
        input_sets={"pair": ["{data}/bulk_de/counts.csv", "{data}/bulk_de/samples.tsv"]}), knowledge)
    assert cf.cases[0].inputs == ("{data}/bulk_de/counts.csv", "{data}/bulk_de/samples.tsv", "{data}/x.txt")
    assert [c.language for c in cf.cases] == ["zh", "en"]


def test_fixtures_are_written_from_text_gzip_base64_and_generated_files(tmp_path, knowledge):
    data = tmp_path / "data"
    (data / "bulk_de").mkdir(parents=True)
    (data / "bulk_de" / "counts.csv").write_bytes(b"0123456789")
    one = [{"id": "a", "request": "r", "expect": {"operations": ["read_qc"]}}]
    cf = load_cases(_write_cases(tmp_path / "c.yaml", one,
                                 fixtures={"t.txt": {"text": "hi\n"}, "g/z.txt.gz": {"text": "zz", "gzip": True},
                                           "b.bin": {"base64": base64.b64encode(b"\x00\x01").decode()},
                                           "cut.csv": {"from": "{data}/bulk_de/counts.csv", "head_bytes": 4}}),
                    knowledge)
    out = tmp_path / "fx"
    write_fixtures(cf, out, data)
    assert (out / "t.txt").read_text() == "hi\n"
    assert gzip.decompress((out / "g" / "z.txt.gz").read_bytes()) == b"zz"
    assert (out / "b.bin").read_bytes() == b"\x00\x01"
    assert (out / "cut.csv").read_bytes() == b"0123"


def test_a_wildcard_matching_nothing_fails_the_case(tmp_path, knowledge):
    rep = run_eval(_write_cases(tmp_path / "c.yaml", [
        {"id": "a", "request": "read QC", "inputs": [f"{tmp_path}/none/*.fastq.gz"],
         "expect": {"operations": ["read_qc"]}}]), data_dir=tmp_path / "d", knowledge=knowledge)
    assert not rep.cases[0].passed and "matches no file" in rep.cases[0].fixture_problem
    assert rep.metrics["fixture_problems"] == 1


# --------------------------------------------------------------------------- the baseline gate and the CLI


@pytest.fixture(scope="module")
def small_report(tmp_path_factory, knowledge):
    tmp = tmp_path_factory.mktemp("small")
    return run_eval(_write_cases(tmp / "c.yaml", _SMALL), data_dir=tmp / "d", knowledge=knowledge)


def test_baseline_floors_ceilings_and_must_pass(small_report):
    ok = check_baseline(small_report, {"pass_rate": 0.4, "latency_p95_ms": 1e9, "must_pass": ["de"]}, "b.json")
    assert ok["ok"] and ok["checked"] == 2
    bad = check_baseline(small_report, {"pass_rate": 0.5, "latency_mean_ms": 0.0, "false_refusal_rate": 0.0,
                                        "must_pass": ["de_wrong", "gone"]}, "b.json")
    assert not bad["ok"]
    text = "\n".join(bad["regressions"])
    assert "pass_rate 0.400 < 0.500" in text and "latency_mean_ms" in text and "(ceiling)" in text
    assert "false_refusal_rate" in text and "case de_wrong must pass" in text and "case gone" in text


def test_baseline_skips_compile_metrics_without_compile_and_refuses_unknown_metrics(small_report):
    res = check_baseline(small_report, {"snakemake_dry_run_pass_rate": 0.9}, "b.json")
    assert res["ok"] and "needs --compile" in res["notes"][0]
    with pytest.raises(CaseFileError, match="unknown metric 'pass_rte'"):
        check_baseline(small_report, {"pass_rte": 0.9}, "b.json")


def test_written_baseline_is_met_by_the_run_that_wrote_it(small_report):
    b = baseline_from(small_report)
    assert b["must_pass"] == ["de", "refused"] and b["latency_p95_ms"] >= 2000
    assert check_baseline(small_report, b, "b.json")["ok"]


def test_committed_baseline_is_valid(dev_report):
    b = load_baseline(BASELINE)
    assert {"plan_pass_rate", "error_case_accuracy", "operation_recall_at_1", "target_accuracy",
            "constraint_accuracy", "latency_p95_ms", "must_pass"} <= set(b)
    assert set(b["must_pass"]) <= {c.id for c in dev_report.cases}


def test_cli_eval_exits_3_naming_the_metric_below_the_baseline(tmp_path):
    cases = _write_cases(tmp_path / "c.yaml", _SMALL)
    (tmp_path / "b.json").write_text(json.dumps({"plan_pass_rate": 0.9}))
    res = CliRunner().invoke(main, ["eval", str(cases), "--json", "--baseline", str(tmp_path / "b.json"),
                                    "--data", str(tmp_path / "d"), "--write-baseline", str(tmp_path / "new.json")])
    assert res.exit_code == 3, res.output
    out = json.loads(res.stdout)
    assert out["metrics"]["passed"] == 2 and out["baseline"]["ok"] is False
    assert "plan_pass_rate 0.333 < 0.900" in res.stderr
    assert json.loads((tmp_path / "new.json").read_text())["must_pass"] == ["de", "refused"]
    res = CliRunner().invoke(main, ["eval", str(cases), "--baseline", str(tmp_path / "new.json"),
                                    "--data", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    assert "baseline" in res.stdout and ": ok" in res.stdout and "FAIL" in res.stdout


def test_cli_eval_bad_case_file_exits_2(tmp_path):
    bad = _write_cases(tmp_path / "c.yaml", [{"id": "x", "request": "r", "expect": {"operations": ["nope"]}}])
    res = CliRunner().invoke(main, ["eval", str(bad)])
    assert res.exit_code == 2 and "invalid_cases" in res.stderr and "unknown operation 'nope'" in res.stderr


@pytest.mark.slow
def test_compile_runs_snakemake_dry_run(tmp_path, workspace, knowledge):
    cases = _write_cases(tmp_path / "c.yaml", [
        {"id": "de", "request": "differential expression between treated and control",
         "inputs": ["{data}/bulk_de/counts.csv", "{data}/bulk_de/samples.tsv"],
         "expect": {"operations": ["differential_expression"]}},
        {"id": "refused", "request": "hello world", "expect": {"error": "no_operation_recognized"}}])
    rep = run_eval(cases, compile=True, data_dir=workspace / "data", knowledge=knowledge)
    de = rep.cases[0]
    assert de.compile is not None and de.compile["ok"], de.compile
    assert rep.cases[1].compile is None  # refusals are not compiled
    assert rep.metrics["compiled"] == 1 and rep.metrics["snakemake_dry_run_pass_rate"] == 1.0
    assert "snakemake -n" in text_report(rep)


def test_the_example_data_needs_no_extra(tmp_path):
    """A plain install generates every class, the single-cell .h5ad included, without anndata or
    scanpy (h5py writes AnnData's on-disk format)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['anndata'] = sys.modules['scanpy'] = sys.modules['scipy'] = None\n"
            "from bioplan.evaluate import example_data\n"
            "example_data.generate(sys.argv[1], ['single_cell'])")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import anndata

    adata = anndata.read_h5ad(tmp_path / "single_cell" / "pbmc_tiny.h5ad")
    truth = json.loads((tmp_path / "single_cell" / "truth.json").read_text())
    assert adata.shape == (300, 250) and list(adata.obs["sample"].cat.categories) == ["donor_A", "donor_B"]
    assert adata.X.sum() > 0 and adata.var["gene_ids"].str.startswith("ENSG").all()
    assert truth


def test_cli_k_selecting_only_hand_written_cases_reports_them_without_a_traceback(tmp_path):
    """`bioplan eval -k ID` on the default sets: a pattern that matches hand-written cases only must
    not fail on the from-others set (it once raised CaseFileError as a traceback)."""
    result = CliRunner().invoke(main, ["eval", "-k", "bulk.de_only.en", "--data", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    assert "bulk_de 1.00 (1/1)" in result.stdout
    assert "from-others set" not in result.stdout
    missing = CliRunner().invoke(main, ["eval", "-k", "no.such.case.anywhere", "--data", str(tmp_path / "data")])
    assert missing.exit_code == 2 and "no case id matches" in missing.output
