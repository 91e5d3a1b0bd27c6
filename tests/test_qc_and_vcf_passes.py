"""The IR passes after lowering a plan (issue 15): one MultiQC report of every QC report a workflow's
steps write (codegen/qc_report.py) and every plain VCF bgzipped and tabix-indexed
(codegen/vcf_outputs.py), in both targets."""

from __future__ import annotations

import re

import pytest

from bioplan.codegen.ir import intermediate_outputs
from bioplan.codegen.qc_report import qc_report_ports
from bioplan.compile import compile_request
from conftest import example_inputs

CLASSES = ("rnaseq_fastq", "variants", "metagenomics", "bulk_de", "single_cell")
# per class: (step, output) of the QC reports MultiQC reads, in step order (written out by hand)
QC_REPORTS = {
    "rnaseq_fastq": [("read_qc", "report"), ("read_trimming", "report"), ("read_alignment", "log"),
                     ("read_counting", "summary")],
    "variants": [("variant_annotation", "csv")],
    "metagenomics": [("taxonomic_classification", "classification")],
    "bulk_de": [],  # counts in, tables out: no QC report, no MultiQC
    "single_cell": [],
}


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """(class, target) -> the session's shared compile (read-only)."""
    return {(name, target): compiled_classes[name, target] for name in CLASSES for target in ("snakemake", "nextflow")}


def _multiqc(workflow):
    return [s for s in workflow.steps if s.tool == "multiqc"]


@pytest.mark.parametrize("name", CLASSES)
def test_multiqc_reads_every_qc_report(compiled, knowledge, name):
    workflow = compiled[name, "snakemake"].workflow
    found = [(step.id, port.name) for step, port in qc_report_ports(knowledge, workflow)]
    assert found == QC_REPORTS[name]
    steps = _multiqc(workflow)
    if not found:
        assert not steps
        return
    (step,) = steps
    assert workflow.steps[-1] == step and step.scope == "cohort" and step.operation == "qc_report_aggregation"
    made = {s.id: {p.name: p.ref for p in s.outputs} for s in workflow.steps}
    assert [(p.ref.path, p.ref.gathered) for p in step.inputs] == [
        (made[s][port].path, made[s][port].per_sample) for s, port in found]
    targets = {t.path for t in workflow.targets}
    # the report and its data, and every report it reads, are results; none is temp()
    assert {p.ref.path for p in step.outputs} <= targets
    assert {made[s][port].path for s, port in found} <= targets
    assert not intermediate_outputs(knowledge, workflow) & {made[s][port].path for s, port in found}


def test_a_requested_multiqc_is_the_one_report(workspace, knowledge, tmp_path):
    """'...summarise the reports in one MultiQC report': the plan's own step reads all the reports."""
    result = compile_request("QC the reads with FastQC, trim them with fastp and summarise the reports in one "
                             "MultiQC report", example_inputs(workspace, "rnaseq_fastq")[:4],
                             str(tmp_path / "Snakefile"), knowledge=knowledge, validate=False)
    (step,) = _multiqc(result.workflow)
    assert {p.ref.path.split("/")[1] for p in step.inputs} == {"read_qc", "read_trimming"}


def test_snakemake_rule_and_nextflow_module(compiled):
    rule = (compiled["rnaseq_fastq", "snakemake"].output_dir / "workflow/rules/qc_report_aggregation.smk").read_text()
    for name in ("read_qc_report", "read_trimming_report", "read_alignment_log", "read_counting_summary"):
        assert re.search(rf"^\s+{name}=", rule, re.M), name
    assert "multiqc --force" in rule and "{input:q}" in rule
    root = compiled["rnaseq_fastq", "nextflow"].output_dir
    module = (root / "modules/local/multiqc/main.nf").read_text()
    assert module.count("stageAs:") == 3 and "path(read_counting_summary)" in module
    # the reports, then the versions table of the other processes (tests/test_versions_table.py)
    assert ("[read_qc_report, read_trimming_report, read_alignment_log, read_counting_summary, software_versions]"
            ".flatten()") in module
    assert 'emit: data' in module and "val('multiqc')" in module
    wiring = (root / "workflows/bioplan.nf").read_text()
    call = wiring[wiring.index("QC_REPORT_AGGREGATION ("):]
    for source in ("READ_QC.out.report", "READ_TRIMMING.out.report", "READ_ALIGNMENT.out.log",
                   "READ_COUNTING.out.summary"):
        assert source in call, source


def test_plain_vcf_is_bgzipped_and_indexed(compiled):
    workflow = compiled["variants", "snakemake"].workflow
    steps = {s.id: s for s in workflow.steps}
    order = [s.id for s in workflow.steps]
    bgzip = steps["variant_annotation_bgzip"]
    assert order.index("variant_annotation_bgzip") == order.index("variant_annotation") + 1
    assert bgzip.tool == "tabix_bgziptabix" and [p.ref.path for p in bgzip.inputs] == [
        "results/variant_annotation/annotated.vcf"]
    gz, tbi = (p.ref.path for p in bgzip.outputs)
    assert (gz, tbi) == ("results/variant_annotation_bgzip/annotated.vcf.gz",
                         "results/variant_annotation_bgzip/annotated.vcf.gz.tbi")
    # the summary reads the compressed VCF; the compressed VCF and its index are results
    assert [p.ref.path for p in steps["variant_summary"].inputs if p.port == "vcf"] == [gz]
    assert {gz, tbi} <= {t.path for t in workflow.targets}
    # every VCF the workflow writes as a result is compressed
    formats = {p.ref.path: p.format for s in workflow.steps for p in s.outputs}
    assert all(formats[t.path] != "vcf" for t in workflow.targets if t.path in formats)
    # and the plain VCF the compressed copy replaces is not kept beside it (temp() in the rule)
    rules = compiled["variants", "snakemake"].output_dir / "workflow/rules"
    assert 'intermediate("results/variant_annotation/annotated.vcf")' in (rules / "variant_annotation.smk").read_text()
    root = compiled["variants", "nextflow"].output_dir
    module = (root / "modules/local/tabix/bgziptabix/main.nf").read_text()
    assert "tabix -p vcf ${vcf.baseName}.vcf.gz" in module and "emit: tbi" in module
    rule = (compiled["variants", "snakemake"].output_dir / "workflow/rules/variant_annotation_bgzip.smk").read_text()
    assert "tabix -f -p vcf {output.vcf:q}" in rule


def test_workflows_without_plain_vcf_are_unchanged(compiled):
    for name in ("rnaseq_fastq", "bulk_de", "metagenomics", "single_cell"):
        assert not [s for s in compiled[name, "snakemake"].workflow.steps if s.tool == "tabix_bgziptabix"], name
