"""The Nextflow target: the five reference classes compile to nf-core-shaped pipelines that pass
Nextflow's strict parser (scripts/nf-lint.sh) and bioplan's structural checks, whose
process graph equals the Snakemake rule graph of the same plan; golden files; refusals."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from bioplan.compile import compile_request
from bioplan.errors import TargetUnsupportedError
from bioplan.validate.nextflow_checks import check_pipeline
from conftest import GOLDEN, REFERENCE_CLASSES, example_inputs, example_request
from helpers import snakemake_rule_graph_edges


@pytest.fixture(scope="module")
def nf_compiled(compiled_classes):
    """Each reference class compiled for Nextflow (the session's shared trees: read-only)."""
    return {name: compiled_classes[name, "nextflow"] for name in REFERENCE_CLASSES}


def test_reference_pipelines_pass_the_strict_parser_and_a_broken_one_fails(nf_compiled, nf_lint, tmp_path):
    """One parser run (Java starts once) over the five pipelines and a broken copy of one: each of the
    five is OK, the broken one fails naming its file and line."""
    broken = tmp_path / "broken"
    shutil.copytree(nf_compiled["bulk_de"].output_dir, broken)
    wf = broken / "workflows" / "bioplan.nf"
    wf.write_text(wf.read_text().replace("workflow BIOPLAN {", "workflow BIOPLAN {\n    main:\n    def x = \n", 1))
    pipelines = [r.output_dir for r in nf_compiled.values()]
    proc = nf_lint(*pipelines, broken)
    for pipeline in pipelines:
        assert re.search(rf"^nf-lint: {re.escape(str(pipeline))}: OK \(", proc.stdout, re.M), proc.stdout
    # exit 1 is "lint errors" (2 would be "could not run"); the error names the file and line, of the
    # broken copy only
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [line for line in proc.stdout.splitlines() if not line.startswith("nf-lint: ")]
    assert errors and all(line.startswith(str(broken.resolve())) for line in errors), proc.stdout
    assert re.search(r"workflows/bioplan\.nf:\d+:\d+: Unexpected input", proc.stdout), proc.stdout
    assert re.search(rf"^nf-lint: {re.escape(str(broken))}: \d+ error", proc.stdout, re.M), proc.stdout


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nf_core_layout_and_structure(nf_compiled, name):
    root = nf_compiled[name].output_dir
    files = _files(root)
    for required in ("main.nf", "workflows/bioplan.nf", "nextflow.config", "nextflow_schema.json",
                     "conf/base.config", "conf/modules.config", "conf/test.config", "assets/schema_input.json"):
        assert required in files, required
    modules = [f for f in files if f.startswith("modules/local/") and f.endswith("/main.nf")]
    assert modules
    for m in modules:
        d = m.removesuffix("main.nf")
        assert f"{d}meta.yml" in files and f"{d}environment.yml" in files
        src = files[m]
        assert re.search(r"^\s*tag ", src, re.M) and re.search(r"label 'process_(single|low|medium|high)'", src)
        assert 'conda "${moduleDir}/environment.yml"' in src and "stub:" in src and "emit: versions_" in src
        # MultiQC reads the versions topic (its Software Versions section), so its own is emitted off it
        assert ("topic: versions" in src) == (not m.startswith("modules/local/multiqc/")), m
    assert check_pipeline(files, []) == []
    config = files["nextflow.config"]
    for profile in ("test", "conda", "docker", "singularity", "apptainer", "slurm"):
        assert re.search(rf"^\s*{profile} \{{", config, re.M), profile
    assert "resourceLimits" in files["conf/base.config"] and "task.attempt" in files["conf/base.config"]


def test_structural_check_catches_a_wrong_emit_and_a_missing_stub(nf_compiled):
    files = _files(nf_compiled["bulk_de"].output_dir)
    wf = files["workflows/bioplan.nf"]
    m = re.search(r"([A-Z_]+)\.out\.(\w+)", wf)
    files["workflows/bioplan.nf"] = wf.replace(m.group(0), f"{m.group(1)}.out.no_such_emit", 1)
    module = next(f for f in files if f.startswith("modules/local/") and f.endswith("main.nf"))
    files[module] = files[module].replace("stub:", "// no stub")
    problems = {p.check for p in check_pipeline(files, [])}
    assert {"emits", "stubs"} <= problems


def _nf_edges(workflow_source: str) -> set[tuple[str, str]]:
    edges = set()
    for call in re.finditer(r"^    ([A-Z][A-Z0-9_]*) \(\n(.*?)\n    \)", workflow_source, re.M | re.S):
        consumer = call.group(1).lower()
        for producer in re.findall(r"\b([A-Z][A-Z0-9_]*)\.out\.", call.group(2)):
            edges.add((producer.lower(), consumer))
    return edges


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_process_graph_equals_snakemake_rule_graph(nf_compiled, compiled_classes, name):
    smk = compiled_classes[name, "snakemake"]
    workdir = compiled_classes.copy((name, "snakemake"), "out_graph")  # the references are put beside it
    import yaml

    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for path in (config.get("references") or {}).values():
        (workdir / path).parent.mkdir(parents=True, exist_ok=True)
        (workdir / path).touch()
    nf_edges = _nf_edges((nf_compiled[name].output_dir / "workflows" / "bioplan.nf").read_text())
    assert nf_edges == snakemake_rule_graph_edges(workdir, {s.id for s in smk.workflow.steps})


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_nextflow_golden_files(nf_compiled, name):
    root = nf_compiled[name].output_dir
    produced = {k: v for k, v in _files(root).items() if not k.startswith("bin/")}
    golden_dir = GOLDEN / f"nextflow_{name}"
    if os.environ.get("BIOPLAN_UPDATE_GOLDEN"):
        shutil.rmtree(golden_dir, ignore_errors=True)
        for rel, text in produced.items():
            (golden_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden_dir / rel).write_text(text)
    expected = {k: v for k, v in _files(golden_dir).items()}
    assert sorted(produced) == sorted(expected)
    for rel in expected:
        assert produced[rel] == expected[rel], f"nextflow_{name}/{rel} differs from the golden file"


def test_shell_unsafe_names_are_refused_for_nextflow(workspace, knowledge, tmp_path):
    with pytest.raises(TargetUnsupportedError) as info:
        compile_request(example_request("hostile"), example_inputs(workspace, "hostile"),
                        str(tmp_path / "nf" / "main.nf"), target="nextflow", knowledge=knowledge)
    assert "snakemake" in " ".join(info.value.hints).lower()
    assert not (tmp_path / "nf").exists()
