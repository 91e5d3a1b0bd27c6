"""The five reference task classes compile from their examples; emitted workflows pass
`snakemake -n`, `snakemake --lint` and `snakefmt --check`; golden files; determinism."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bioplan.compile import compile_request
from bioplan.validate.snakemake_checks import validate_workflow
from conftest import GOLDEN, REFERENCE_CLASSES, example_inputs, example_request

# The operations a bioinformatician would build each class from (and the motif's branch-join).
EXPECTED_OPERATIONS = {
    "bulk_de": {"differential_expression", "gene_filtering", "gene_id_conversion", "kegg_enrichment",
                "go_enrichment", "pathway_merge", "csv_export"},
    "rnaseq_fastq": {"read_qc", "read_trimming", "genome_indexing", "read_alignment", "read_counting"},
    "variants": {"variant_filtering", "variant_annotation", "variant_summary"},
    "single_cell": {"sc_quality_filtering", "sc_normalization", "cell_clustering", "embedding_visualization",
                    "marker_gene_detection", "marker_enrichment"},
    "metagenomics": {"host_read_removal", "genome_indexing", "taxonomic_database_build", "taxonomic_classification",
                     "abundance_table_merge", "differential_abundance"},
}
EXPECTED_EDGES = {
    "bulk_de": {("differential_expression", "gene_filtering"), ("gene_filtering", "gene_id_conversion"),
                ("gene_id_conversion", "kegg_enrichment"),
                ("kegg_enrichment", "pathway_merge"), ("go_enrichment", "pathway_merge")},
    "rnaseq_fastq": {("read_trimming", "read_alignment"), ("genome_indexing", "read_alignment"),
                     ("read_alignment", "read_counting")},
    "variants": {("variant_filtering", "variant_annotation"), ("variant_annotation", "variant_summary")},
    "single_cell": {("cell_clustering", "marker_gene_detection"), ("marker_gene_detection", "marker_enrichment")},
    "metagenomics": {("host_read_removal", "taxonomic_classification"),
                     ("taxonomic_database_build", "taxonomic_classification"),
                     ("abundance_table_merge", "differential_abundance")},
}


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """Each reference class compiled for Snakemake (the session's shared trees: read-only)."""
    return {name: compiled_classes[name, "snakemake"] for name in REFERENCE_CLASSES}


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_reference_class_plan(compiled, name):
    plan = compiled[name].plan
    ops = {s.operation for s in plan.steps}
    assert EXPECTED_OPERATIONS[name] <= ops, sorted(ops)
    assert EXPECTED_EDGES[name] <= set(plan.edges), plan.edges
    if name == "bulk_de":  # the GO library is in Entrez ids: GO runs on the converted gene list
        assert ("gene_id_conversion", "go_enrichment") in set(plan.edges)


def _with_placeholder_references(workdir: Path) -> None:
    import yaml

    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for path in (config.get("references") or {}).values():
        (workdir / path).parent.mkdir(parents=True, exist_ok=True)
        (workdir / path).touch()


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_emitted_workflow_passes_dry_run_lint_and_snakefmt(compiled, workspace, knowledge, name):
    """Compile's own pre-check passes on each class; then the emitted workflow, with its references
    in place, passes `snakemake -n`, `snakemake --lint` and `snakefmt --check`."""
    result = compile_request(example_request(name), example_inputs(workspace, name),
                             str(workspace / "out" / name / "Snakefile"), force=True, knowledge=knowledge)
    assert result.checks and all(c.ok for c in result.checks), [c.output[-3000:] for c in result.checks]
    assert _tree(result.output_dir) == _tree(compiled[name].output_dir)  # the files the other tests read
    workdir = result.output_dir
    _with_placeholder_references(workdir)
    for check in validate_workflow(workdir):
        assert check.ok, f"{check.name} failed for {name}:\n{check.output[-3000:]}"


def _tree(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".snakemake", "resources", *skip} & set(p.relative_to(root).parts)
    }


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_golden_files(compiled, name):
    """Emitted workflows match tests/golden/<class>/ (BIOPLAN_UPDATE_GOLDEN=1 rewrites them)."""
    # scripts/ are verbatim copies of templates/scripts/, checked by the determinism test
    produced = _tree(compiled[name].output_dir, skip=("scripts",))
    golden_dir = GOLDEN / name
    if os.environ.get("BIOPLAN_UPDATE_GOLDEN"):
        shutil.rmtree(golden_dir, ignore_errors=True)
        for rel, data in produced.items():
            (golden_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden_dir / rel).write_bytes(data)
    expected = _tree(golden_dir, skip=("scripts",))
    assert sorted(produced) == sorted(expected)
    for rel in expected:
        assert produced[rel] == expected[rel], f"{name}/{rel} differs from the golden file"


def test_two_compiles_are_byte_identical(workspace, knowledge):
    name = "bulk_de"
    trees = []
    for run in ("a", "b"):
        out = workspace / f"det_{run}" / "wf" / "Snakefile"
        compile_request(example_request(name), example_inputs(workspace, name), str(out), validate=False,
                        knowledge=knowledge)
        trees.append(_tree(out.parent))
    assert trees[0] == trees[1]


def test_chinese_requests_plan_the_same_operations(workspace, knowledge):
    from bioplan.compile import plan_request

    for name in REFERENCE_CLASSES:
        en = plan_request(example_request(name), example_inputs(workspace, name), knowledge)
        zh = plan_request(example_request(name, "zh"), example_inputs(workspace, name), knowledge)
        assert {s.operation for s in zh.plans[0].steps} == {s.operation for s in en.plans[0].steps}, name


def test_hostile_names_compile_and_pass_checks(workspace, knowledge):
    """Sample and file names with spaces, quotes, $() and ; stay data: quoted everywhere, nothing runs."""
    data = workspace / "data" / "hostile"
    reads = sorted(str(p) for p in (data / "reads").glob("*.fastq.gz"))
    out = workspace / "out" / "hostile_fastq" / "Snakefile"
    result = compile_request("Mouse paired-end RNA-seq: trim the reads with fastp, align them to the genome and "
                             "count reads per gene", reads + [str(data / "genome (copy).fa"),
                                                              str(data / "genes (copy).gtf")],
                             str(out), force=True, knowledge=knowledge)
    workdir = result.output_dir
    sheet = (workdir / "config" / "samples.tsv").read_text()
    assert "treated 'x'&touch INJECTED" in sheet and "treated;touch INJECTED_SEMI" in sheet and "ctrl '2' b" in sheet
    for rule_file in (workdir / "workflow" / "rules").glob("*.smk"):
        text = rule_file.read_text()
        # every file reference in a shell command is quoted by Snakemake's :q
        assert "{input.reads_1}" not in text and "{output.bam}" not in text
    for check in validate_workflow(workdir):
        assert check.ok, f"{check.name}:\n{check.output[-2000:]}"
    counts = workspace / "out" / "hostile_de" / "Snakefile"
    compile_request(example_request("hostile"), example_inputs(workspace, "hostile"), str(counts), force=True,
                    knowledge=knowledge)
    assert not [p for p in workspace.rglob("INJECTED*")]


def test_precheck_failure_falls_back_to_the_next_plan_once(workspace, knowledge, monkeypatch, tmp_path):
    from bioplan.codegen.snakemake import SnakemakeGenerator
    from bioplan.errors import ValidationFailedError
    from bioplan.validate.snakemake_checks import CheckResult

    calls = []

    def failing_first(self, stage, workflow, *where):  # where: the real -o, for inputs inside it
        calls.append(stage)
        return CheckResult("dry_run", len(calls) > 1, "MissingInputException: planted failure")

    monkeypatch.setattr(SnakemakeGenerator, "precheck", failing_first)
    name = "rnaseq_fastq"  # has a second-ranked plan
    res = compile_request(example_request(name), example_inputs(workspace, name), str(tmp_path / "a" / "Snakefile"),
                          knowledge=knowledge)
    assert res.plan.rank == 2 and len(calls) == 2
    assert any("plan 1" in n and "planted failure" in n for n in res.notes)

    monkeypatch.setattr(SnakemakeGenerator, "precheck",
                        lambda self, stage, wf, *where: CheckResult("dry_run", False, "planted failure"))
    with pytest.raises(ValidationFailedError) as info:
        compile_request(example_request(name), example_inputs(workspace, name), str(tmp_path / "b" / "c" / "Snakefile"),
                        knowledge=knowledge)
    assert len(info.value.details["attempts"]) == 2
    assert not (tmp_path / "b").exists()
