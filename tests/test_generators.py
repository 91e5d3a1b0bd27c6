"""The generators on their own: the registry, and each target's emit() on a small hand-built
Workflow IR (one per-sample FastQC step on paired reads, guarded by the paired-mates check), so a
failure names the generator and the file, not "a golden file differs"."""

from __future__ import annotations

import os

import pytest

from bioplan.codegen.generator import EmitOptions, Emitted, generator_class, make_generator, target_names
from bioplan.codegen.ir import FileRef, IOPort, Software, Workflow, WorkflowStep
from bioplan.errors import TargetUnsupportedError

FASTQC_IMAGE = "quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0"
CHECK_IMAGE = "quay.io/biocontainers/pandas:2.2.1"


def _reads(per_sample: bool = True) -> tuple[IOPort, IOPort]:
    return tuple(IOPort(name=f"reads_{m}", port="reads", datatype="paired_end_reads", format="fastq.gz",
                        ref=FileRef(kind="samplesheet", path=f"fastq_{m}", per_sample=per_sample))
                 for m in (1, 2))  # type: ignore[return-value]


def fastqc_workflow(samples: tuple[str, ...] = ("ctrl_1", "treated_1")) -> Workflow:
    """The IR of 'FastQC on paired FASTQs', written out by hand."""
    ok = FileRef(kind="result", path="results/checks/check_paired_mates/{sample}.ok", per_sample=True)
    check = WorkflowStep(
        id="check_paired_mates", kind="check", operation=None, tool=None, scope="sample", inputs=_reads(),
        outputs=(IOPort(name="ok", port="ok", datatype="", format="txt", ref=ok),),
        log="logs/checks/check_paired_mates/{sample}.log", benchmark=None, threads=1, mem_mb=1000, runtime=10,
        params=(("constraint", "paired_end_reads"), ("guarded_step", "read_qc"), ("datatypes", "@datatypes")),
        env="bioplan_checks.yaml", container=CHECK_IMAGE, script="check_paired_mates.py",
        constraint="paired_end_reads", guards="read_qc", paired=True)
    report = FileRef(kind="result", path="results/read_qc/{sample}/fastqc", per_sample=True, directory=True)
    fastqc = WorkflowStep(
        id="read_qc", kind="tool", operation="read_qc", tool="fastqc", scope="sample",
        inputs=(*_reads(), IOPort(name="check_paired_mates", port="check_paired_mates", datatype="", format="txt",
                                  ref=ok)),
        outputs=(IOPort(name="report", port="report", datatype="read_qc_report", format="zip", ref=report),),
        log="logs/read_qc/{sample}.log", benchmark="benchmarks/read_qc/{sample}.tsv", threads=2, mem_mb=2000,
        runtime=60, params=(("extra", "params.fastqc.extra"),), env="fastqc.yaml", container=FASTQC_IMAGE,
        paired=True)
    return Workflow(
        name="bioplan_workflow", query="FastQC on my paired reads", layout="paired", organism=None,
        steps=(check, fastqc), targets=(report.model_copy(update={"gathered": True}),), config_inputs=(),
        params={"fastqc": {"extra": ""}},
        software=(Software(env="bioplan_checks.yaml", conda=("conda-forge::python=3.12",), container=CHECK_IMAGE),
                  Software(env="fastqc.yaml", conda=("bioconda::fastqc=0.12.1",), container=FASTQC_IMAGE)),
        samples=tuple({"sample": s, "fastq_1": f"data/{s}_R1.fastq.gz", "fastq_2": f"data/{s}_R2.fastq.gz"}
                      for s in samples),
        sample_columns=("sample", "fastq_1", "fastq_2"), condition_column=None,
        scripts=("check_paired_mates.py",), has_samples=True)


@pytest.fixture(scope="module")
def emitted(knowledge) -> dict[str, Emitted]:
    workflow = fastqc_workflow()
    return {name: make_generator(name, knowledge).emit(workflow, EmitOptions()) for name in target_names()}


def test_registry_names_each_target_with_its_entry_file():
    assert target_names() == ("snakemake", "nextflow")  # the first is the default target
    assert {name: generator_class(name).entry_file for name in target_names()} == {
        "snakemake": "workflow/Snakefile", "nextflow": "main.nf"}
    for name in target_names():
        assert generator_class(name).name == name


def test_an_unknown_target_is_refused_naming_the_known_ones():
    with pytest.raises(TargetUnsupportedError) as info:
        generator_class("cwl")
    assert "'cwl'" in info.value.message and "snakemake, nextflow" in " ".join(info.value.hints)


def test_every_generator_writes_its_entry_file_and_finds_no_problem(emitted):
    for name, out in emitted.items():
        assert generator_class(name).entry_file in out.files, name
        assert out.problems == (), (name, out.problems)


def test_snakemake_lowers_the_step_to_a_rule(emitted):
    files = emitted["snakemake"].files
    assert {"workflow/Snakefile", "workflow/rules/common.smk", "workflow/rules/read_qc.smk",
            "workflow/envs/fastqc.yaml", "workflow/envs/bioplan_checks.yaml", "workflow/scripts/check_paired_mates.py",
            "config/samples.tsv", "profiles/slurm/config.yaml"} <= set(files)
    rule = files["workflow/rules/read_qc.smk"]
    # the check guarding the step lives in the step's rule file, before it
    assert rule.index("rule check_paired_mates:") < rule.index("rule read_qc:")
    assert 'reads_1=sample_file("fastq_1")' in rule and 'reads_2=sample_file("fastq_2")' in rule
    assert 'report=directory("results/read_qc/{sample}/fastqc")' in rule
    assert 'config["params"]["fastqc"]["extra"]' in rule
    # the IR holds the image reference; Snakemake's container directive takes a docker:// URI
    assert f'"docker://{FASTQC_IMAGE}"' in rule and f'"docker://{CHECK_IMAGE}"' in rule
    assert "mem_mb=lambda wildcards, attempt: 2000 * attempt" in rule
    assert "runtime=lambda wildcards, attempt: 60 * attempt" in rule
    assert files["config/samples.tsv"].splitlines() == [
        "sample\tfastq_1\tfastq_2", "ctrl_1\tdata/ctrl_1_R1.fastq.gz\tdata/ctrl_1_R2.fastq.gz",
        "treated_1\tdata/treated_1_R1.fastq.gz\tdata/treated_1_R2.fastq.gz"]
    assert "bioconda::fastqc=0.12.1" in files["workflow/envs/fastqc.yaml"]


def test_nextflow_lowers_the_step_to_a_module_and_a_call(emitted):
    files = emitted["nextflow"].files
    assert {"main.nf", "workflows/bioplan.nf", "modules/local/fastqc/main.nf", "modules/local/fastqc/meta.yml",
            "modules/local/bioplan/check_paired_mates/main.nf", "bin/check_paired_mates.py", "bin/bioplan_run.py",
            "nextflow.config", "conf/modules.config", "assets/samplesheet.csv"} <= set(files)
    wf = files["workflows/bioplan.nf"]
    assert "include { FASTQC as READ_QC } from '../modules/local/fastqc/main'" in wf
    # the step waits for its check: the check's ok output is joined on meta, then dropped
    assert ".join(CHECK_PAIRED_MATES.out.ok, failOnMismatch: true)" in wf
    module = files["modules/local/fastqc/main.nf"]
    # nf-core's biocontainer ternary: Singularity depot image or the Docker image, from the same reference
    assert "https://depot.galaxyproject.org/singularity/fastqc:0.12.1--hdfd78af_0" in module
    assert "'biocontainers/fastqc:0.12.1--hdfd78af_0'" in module
    assert "docker://" not in module
    assert "label 'process_low'" in module  # 2 threads, 2000 MB
    assert files["assets/samplesheet.csv"].splitlines()[0] == "sample,fastq_1,fastq_2"


def test_scheduler_settings_come_from_the_emit_options(knowledge):
    options = EmitOptions(partition="short", account="lab42")
    smk = make_generator("snakemake", knowledge).emit(fastqc_workflow(), options).files
    nf = make_generator("nextflow", knowledge).emit(fastqc_workflow(), options).files
    assert 'slurm_partition: "\\"short\\""' in smk["profiles/slurm/config.yaml"]  # a Python literal in YAML
    assert 'slurm_account: "\\"lab42\\""' in smk["profiles/slurm/config.yaml"]
    assert "process.queue = 'short'" in nf["nextflow.config"]
    assert "process.clusterOptions = '--account=lab42'" in nf["nextflow.config"]
    unset = make_generator("snakemake", knowledge).emit(fastqc_workflow(), EmitOptions()).files
    assert "# slurm_partition: " in unset["profiles/slurm/config.yaml"]  # the marked placeholder


def test_what_a_target_runs_as_a_program_is_written_executable(knowledge, tmp_path):
    from bioplan.compile import _make_executable, _write_tree

    for name in target_names():
        files = make_generator(name, knowledge).emit(fastqc_workflow(), EmitOptions()).files
        root = tmp_path / name
        _write_tree(root, files)
        _make_executable(root, files, generator_class(name).executable_dirs)
        executable = {rel for rel in files if os.access(root / rel, os.X_OK)}
        assert executable == ({rel for rel in files if rel.startswith("bin/")} if name == "nextflow" else set())
        assert name != "nextflow" or "bin/bioplan_run.py" in executable


def test_a_generator_instance_keeps_no_state_between_workflows(knowledge):
    """compile.py may reuse a generator for the next-ranked plan: emitting another workflow in between
    changes nothing, and each emit returns everything (files and problems) it produced."""
    for name in target_names():
        generator = make_generator(name, knowledge)
        first = generator.emit(fastqc_workflow(), EmitOptions())
        generator.emit(fastqc_workflow(samples=("a", "b", "c")), EmitOptions(partition="other"))
        again = generator.emit(fastqc_workflow(), EmitOptions())
        assert dict(again.files) == dict(first.files), name
        assert "c" not in {row.split(",")[0] for row in first.files.get("assets/samplesheet.csv", "").splitlines()}


def test_nextflow_emit_reports_what_its_structural_checks_find(knowledge, monkeypatch):
    from bioplan.codegen.nextflow import NextflowGenerator

    real = NextflowGenerator.module_source

    def without_stub(self, workflow, step):
        source = real(self, workflow, step)
        return source.replace("stub:", "// stub removed:") if step.tool == "fastqc" else source

    monkeypatch.setattr(NextflowGenerator, "module_source", without_stub)
    out = make_generator("nextflow", knowledge).emit(fastqc_workflow(), EmitOptions())
    assert any("[stubs]" in p and "modules/local/fastqc/main.nf" in p for p in out.problems), out.problems


@pytest.mark.parametrize(("target", "sample", "said"), [("snakemake", "ctrl{1}", "braces"),
                                                        ("nextflow", "-ctrl", "leading '-'")])
def test_each_generator_refuses_the_names_its_target_cannot_carry(knowledge, target, sample, said):
    workflow = fastqc_workflow(samples=(sample,))
    with pytest.raises(TargetUnsupportedError) as info:
        make_generator(target, knowledge).emit(workflow, EmitOptions())
    assert repr(sample) in info.value.message and said in info.value.message


def test_a_leading_dash_is_fine_for_snakemake(knowledge):
    files = make_generator("snakemake", knowledge).emit(fastqc_workflow(samples=("-ctrl",)), EmitOptions()).files
    assert "-ctrl\tdata/-ctrl_R1.fastq.gz" in files["config/samples.tsv"]


def test_every_precheck_started_ahead_names_a_target_and_two_functions():
    import importlib

    from bioplan.codegen import PRECHECK_AHEAD, REGISTRY

    for target, pair in PRECHECK_AHEAD.items():
        assert target in REGISTRY, target
        for where in pair:
            module, _, name = where.partition(":")
            assert callable(getattr(importlib.import_module(module), name)), where


@pytest.mark.parametrize(("target", "refused"), [("snakemake", True), ("nextflow", False)])
def test_each_generator_says_which_output_folders_its_target_cannot_run_from(target, refused):
    """Snakemake's SLURM jobs name the workflow's folder on an `sbatch --wrap` command line, where '$(...)'
    runs; Nextflow submits the script it writes. compile.py asks the generator, never the target's name."""
    folder = "/tmp/runs/$(touch pwned)"
    if not refused:
        assert generator_class(target).refuse_output_folder(folder) is None
        return
    with pytest.raises(TargetUnsupportedError) as info:
        generator_class(target).refuse_output_folder(folder)
    assert repr(folder) in info.value.message and "to resolve" in info.value.hints[0]


def test_compile_names_no_target():
    """The registry is the one place that knows the targets: compile.py reaches a target's own checks through
    its Generator, so a new target needs no change there (issue 11)."""
    import ast
    from pathlib import Path

    import bioplan.compile
    from bioplan.codegen import REGISTRY
    from conftest import source_nodes

    targets = set(REGISTRY)
    modules = {where.partition(":")[0] for where in REGISTRY.values()}
    named = []
    for node in source_nodes(Path(bioplan.compile.__file__)):
        if isinstance(node, ast.Compare):
            named += [c.value for c in (node.left, *node.comparators)
                      if isinstance(c, ast.Constant) and c.value in targets]
        elif isinstance(node, ast.ImportFrom) and node.module in modules:
            named.append(node.module)
    assert named == [], f"compile.py branches on or imports a target: {named}"
