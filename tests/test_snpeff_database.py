"""The SnpEff database is the genome's: built once per workflow from the genome FASTA and the GTF, never once
per sample or per tumour/normal pair (a human database takes about 16 GB and an hour to build).

Two patients' tumour/normal pairs annotated with SnpEff (nf-core/sarek's SNPEFF_DOWNLOAD and nf-core/viralrecon's
SNPEFF_BUILD run once per genome too): the IR pass codegen/annotation_database.py moves the genome and the GTF
to a reference-scope `<step>_build_db` step (tool snpeff_build), whose database both pairs' annotation jobs
read. Snakemake: a rule without wildcards; Nextflow: a process without meta, its output a value channel every
annotation task reads. Compiled only; no Snakemake process runs here (tests/e2e/test_tumour_normal_run.py
annotates for real).
"""

from __future__ import annotations

import re

import pytest

from bioplan.codegen.generator import NO_OPTIONS
from bioplan.codegen.ir import synthesize
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from test_lanes import sarek_sheet

QUERY = "call somatic variants with Mutect2 for each patient's tumour/normal pair and annotate with snpEff"
PAIRS = [("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "1"), ("p2", "p2_n", "0")]


@pytest.fixture(scope="module")
def compiled(knowledge, tmp_path_factory):
    base = tmp_path_factory.mktemp("snpeff_pairs")
    result = plan_request(QUERY, sarek_sheet(base / "in", lanes=("L001",), rows=PAIRS), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out"))
    return workflow, SnakemakeGenerator(knowledge).files(workflow), NextflowGenerator(knowledge).emit(workflow,
                                                                                                      NO_OPTIONS)


def _rule(text: str, name: str) -> str:
    start = text.index(f"rule {name}:")
    end = text.find("\nrule ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_ir_builds_the_database_in_a_reference_step(compiled):
    workflow = compiled[0]
    annotate = next(s for s in workflow.steps if s.tool == "snpeff")
    build = next(s for s in workflow.steps if s.tool == "snpeff_build")
    assert annotate.group_by == "pair"  # one annotation job per tumour/normal pair
    assert (build.id, build.scope, build.operation) == (f"{annotate.id}_build_db", "reference",
                                                        "variant_annotation_database_build")
    assert [s.id for s in workflow.steps].index(build.id) < [s.id for s in workflow.steps].index(annotate.id)
    # the genome and the GTF (and their checks) moved to the build; the annotation reads the VCF and the database
    assert {p.port for p in build.inputs if not p.port.startswith("check_")} == {"genome", "annotation"}
    assert {p.port for p in annotate.inputs} == {"vcf", "db"}
    db = next(p for p in annotate.inputs if p.port == "db")
    assert db.ref == build.outputs[0].ref
    assert (db.ref.path, db.ref.directory, db.ref.per_sample, db.ref.group) == (
        f"results/{build.id}/snpeff_db", True, False, None)
    checks = {p.port for p in build.inputs if p.port.startswith("check_")}
    assert checks and all(any(c.port in ("genome", "annotation") or c.ref.kind == "config_reference"
                              for c in s.inputs) for s in workflow.steps if s.id in checks)
    # one genome name, the build's (the annotation reads it from the database's snpEff.config)
    assert ("genome_name", "params.snpeff_build.genome_name") in build.params
    assert workflow.params["snpeff_build"] == {"genome_name": "custom_genome"} and "genome_name" not in workflow.params[
        "snpeff"]


def test_snakemake_builds_the_database_in_one_job(compiled):
    build = _rule(compiled[1]["workflow/rules/variant_annotation_build_db.smk"], "variant_annotation_build_db")
    output = re.search(r"output:\n\s+database=(.+),\n\s+log:\n\s+(.+),\n", build)
    assert output is not None, build
    assert output.groups() == ('directory("results/variant_annotation_build_db/snpeff_db")',
                               '"logs/variant_annotation_build_db.log"')
    assert "{pair}" not in build and "{sample}" not in build and "wildcards." not in build
    assert "snpEff -Xmx$(({resources.mem_mb} * 4 / 5))m build -gtf22" in build


def test_snakemake_annotates_every_pair_with_that_database(compiled):
    annotate = _rule(compiled[1]["workflow/rules/variant_annotation.smk"], "variant_annotation")
    assert 'db="results/variant_annotation_build_db/snpeff_db",' in annotate
    assert '"logs/variant_annotation/{pair}.log"' in annotate  # the annotation stays one job per pair
    assert " build " not in annotate and "genome=" not in annotate
    assert "sed -n 's/\\\\.genome : .*$//p' {input.db:q}/snpEff.config" in annotate


def test_nextflow_builds_the_database_in_one_process_every_task_reads(compiled):
    emitted = compiled[2]
    assert emitted.problems == ()
    build = emitted.files["modules/local/snpeff/build/main.nf"]
    assert "tuple val(meta)" not in build and 'path("snpeff_db"), emit: database' in build
    assert "snpEff \\\\\n        -Xmx${avail_mem}m \\\\\n        build" in build
    annotate = emitted.files["modules/local/snpeff/snpeff/main.nf"]
    assert " build" not in annotate and "-c ${db}/snpEff.config" in annotate
    wf = emitted.files["workflows/bioplan.nf"]
    # called once, outside any per-pair channel; its output read by the per-pair annotation as a value
    assert wf.count("VARIANT_ANNOTATION_BUILD_DB (") == 1
    assert "VARIANT_ANNOTATION_BUILD_DB.out.database" in wf


def test_a_requested_build_is_the_one_the_annotation_reads(knowledge, workspace):
    """'build a SnpEff database, then annotate with SnpEff': the plan's build step is the database, no second
    build is added, and the annotation comes after it (a Nextflow process is called before its output is read)."""
    data = workspace / "data" / "variants"
    result = plan_request("build a SnpEff database from the genome and the GTF, then annotate the variants with "
                          "SnpEff", [str(data / n) for n in ("genome.fa", "genes.gtf", "calls.vcf")], knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(workspace / "out_snpeff"))
    builds = [s for s in workflow.steps if s.tool == "snpeff_build"]
    assert [s.id for s in builds] == ["variant_annotation_database_build"]
    ids = [s.id for s in workflow.steps]
    annotate = next(s for s in workflow.steps if s.tool == "snpeff")
    assert ids.index(builds[0].id) < ids.index(annotate.id)
    assert {p.port: p.ref for p in annotate.inputs if p.port != "vcf"} == {"db": builds[0].outputs[0].ref}


def test_the_checks_moved_with_the_sources_guard_the_build(compiled):
    """A check the build reads runs before the build, so it names the build as the step it guards (the DAG's
    check -> guarded step edge, the READMEs' "guards" lines and the check's guarded_step param), never the
    annotation step that no longer reads it."""
    workflow = compiled[0]
    build = next(s for s in workflow.steps if s.tool == "snpeff_build")
    annotate = next(s for s in workflow.steps if s.tool == "snpeff")
    gated = {p.port for p in build.inputs if p.port.startswith("check_")}
    checks = {s.id: s for s in workflow.steps if s.kind == "check"}
    assert gated and {checks[c].guards for c in gated} == {build.id}
    assert not any(c.guards == annotate.id for c in checks.values() if c.id in gated)
