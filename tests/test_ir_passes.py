"""Each synthesize pass (codegen/passes.py) on a small hand-made plan: FastQC and fastp on one
paired-end sample, and a HISAT2 index of a genome nobody passed (a reference the user supplies).

A pass is run on the draft the passes before it filled in (`upto`), so a failure names the pass."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bioplan.codegen import passes
from bioplan.codegen.ir import CHECK_ENV, synthesize
from bioplan.codegen.passes import PASSES, Draft, SynthesisOptions
from bioplan.models import Plan, PlanStep, SpecInput, TargetOutput, TaskSpec

R1, R2 = "data/s1_R1.fastq.gz", "data/s1_R2.fastq.gz"


def _spec(**update) -> TaskSpec:
    spec = TaskSpec(
        query="QC and trim my reads, and index the genome", input_types=("raw_reads",),
        inputs=(SpecInput(path=R1, datatype="raw_reads", format="fastq.gz", sample="s1", mate=1),
                SpecInput(path=R2, datatype="raw_reads", format="fastq.gz", sample="s1", mate=2)),
        target_output=TargetOutput(semantic_type="read_qc_report"), constraints={"layout": "paired"})
    return spec.model_copy(update=update)


QC = PlanStep(id="read_qc", operation="read_qc", tool="fastqc", inputs={"reads": "raw_reads"},
              outputs={"report": "read_qc_report"}, preconditions=("paired_end_reads",),
              sources={"reads": f"input:{R1}"})
TRIM = PlanStep(id="read_trimming", operation="read_trimming", tool="fastp", inputs={"reads": "raw_reads"},
                outputs={"trimmed": "trimmed_reads", "report": "read_qc_report"},
                preconditions=("paired_end_reads",), sources={"reads": f"input:{R1}"})
INDEX = PlanStep(id="genome_indexing", operation="genome_indexing", tool="hisat2_build",
                 inputs={"genome": "reference_genome"}, outputs={"index": "genome_index"},
                 sources={"genome": "config:reference_genome"})


def _plan(*steps: PlanStep) -> Plan:
    return Plan(steps=steps, edges=())


@pytest.fixture
def draft(knowledge) -> Draft:
    return Draft(knowledge=knowledge, spec=_spec(), plan=_plan(TRIM, INDEX, QC),
                 options=SynthesisOptions(workdir=None))


def upto(draft: Draft, until) -> Draft:
    """The draft as `until` receives it: every pass before it has run."""
    for run in PASSES[:PASSES.index(until)]:
        draft = run(draft)
    return draft


def test_passes_run_in_one_listed_order_each_once():
    names = [p.__name__ for p in PASSES]
    assert len(names) == len(set(names))
    # what each pass reads is filled by one listed before it
    for earlier, later in (("order_steps", "assign_scopes"), ("assign_scopes", "lay_out_outputs"),
                           ("lay_out_outputs", "wire_inputs"), ("wire_inputs", "add_checks"),
                           ("add_checks", "build_steps"), ("build_steps", "collect_software"),
                           ("build_steps", "fill_sample_sheet"), ("build_steps", "resolve_references")):
        assert names.index(earlier) < names.index(later), (earlier, later)


def test_order_steps_puts_producers_first_and_breaks_ties_by_id(knowledge):
    align = PlanStep(id="a_align", operation="read_alignment", tool="hisat2", inputs={"reads": "trimmed_reads"},
                     outputs={"bam": "aligned_reads"}, sources={"reads": "read_trimming"})
    draft = Draft(knowledge=knowledge, spec=_spec(), plan=_plan(align, TRIM, QC))
    assert [s.id for s in passes.order_steps(draft).order] == ["read_qc", "read_trimming", "a_align"]


def test_assign_scopes_from_what_each_step_makes(draft):
    scopes = passes.assign_scopes(upto(draft, passes.assign_scopes)).scopes
    assert scopes == {"read_qc": "sample", "read_trimming": "sample", "genome_indexing": "reference"}


def test_lay_out_outputs_per_sample_with_mates(draft):
    outputs = passes.lay_out_outputs(upto(draft, passes.lay_out_outputs)).outputs
    trimmed = {p.name: p.ref.path for p in outputs["read_trimming"]}
    assert trimmed == {"trimmed_1": "results/read_trimming/{sample}/trimmed_1.fastq.gz",
                       "trimmed_2": "results/read_trimming/{sample}/trimmed_2.fastq.gz",
                       "report": "results/read_trimming/{sample}/fastp.json",
                       "html": "results/read_trimming/{sample}/fastp.html"}
    assert all(p.ref.per_sample for p in outputs["read_trimming"])
    (index,) = outputs["genome_indexing"]
    assert index.ref.path == "results/genome_indexing/hisat2_index" and index.ref.directory
    assert not index.ref.per_sample


def test_lay_out_outputs_single_end_has_no_mates(knowledge):
    draft = Draft(knowledge=knowledge, spec=_spec(constraints={"layout": "single"}), plan=_plan(TRIM))
    outputs = passes.lay_out_outputs(upto(draft, passes.lay_out_outputs)).outputs
    assert [p.name for p in outputs["read_trimming"]] == ["trimmed", "report", "html"]


def test_wire_inputs_reads_mates_from_the_sheet_and_references_from_config(draft):
    wired = passes.wire_inputs(upto(draft, passes.wire_inputs))
    reads = wired.inputs["read_trimming"]
    assert [(p.name, p.ref.kind, p.ref.path) for p in reads] == [
        ("reads_1", "samplesheet", "fastq_1"), ("reads_2", "samplesheet", "fastq_2")]
    (genome,) = wired.inputs["genome_indexing"]
    assert (genome.ref.kind, genome.ref.path) == ("config_reference", "reference_genome")
    entry = wired.config_inputs["reference_genome"]
    assert entry.section == "references" and entry.path == "" and entry.format == "fasta"


def test_wire_inputs_gathers_per_sample_files_for_a_cohort_step(knowledge):
    multiqc = PlanStep(id="qc_report_aggregation", operation="qc_report_aggregation", tool="multiqc",
                       inputs={"reports": "read_qc_report"}, outputs={"report": "aggregated_qc_report"},
                       sources={"reports": "read_qc"})
    draft = Draft(knowledge=knowledge, spec=_spec(), plan=_plan(QC, multiqc))
    wired = passes.wire_inputs(upto(draft, passes.wire_inputs))
    (reports,) = wired.inputs["qc_report_aggregation"]
    assert reports.ref.path == "results/read_qc/{sample}/fastqc" and reports.ref.per_sample and reports.ref.gathered
    (qc_reads, _) = wired.inputs["read_qc"]
    assert not qc_reads.ref.gathered  # a per-sample step reads one sample's files


def test_add_checks_shares_one_check_between_steps_reading_the_same_files(draft):
    checked = passes.add_checks(upto(draft, passes.add_checks))
    # read_qc comes first in the order: it gets the check; read_trimming waits for the same one
    (check,) = checked.checks["read_qc"]
    assert checked.checks["read_trimming"] == () and checked.checks["genome_indexing"] == ()
    assert check.id == "check_paired_end_reads" and check.scope == "sample" and check.guards == "read_qc"
    assert [p.name for p in check.inputs] == ["reads_1", "reads_2"]
    assert check.script == "check_paired_mates.py" and check.container == CHECK_ENV.container
    assert [g.name for g in checked.gates["read_qc"]] == [check.id]
    assert checked.gates["read_trimming"] == checked.gates["read_qc"]
    assert checked.gates["genome_indexing"] == ()


def test_build_steps_puts_each_check_before_the_step_it_gates(draft):
    steps = passes.build_steps(upto(draft, passes.build_steps)).steps
    assert [s.id for s in steps] == ["genome_indexing", "check_paired_end_reads", "read_qc", "read_trimming"]
    trim = steps[-1]
    assert trim.inputs[-1].name == "check_paired_end_reads"  # the gate comes after the tool's own inputs
    assert (trim.threads, trim.mem_mb, trim.runtime) == (4, 4000, 60)
    assert trim.log == "logs/read_trimming/{sample}.log" and trim.benchmark == "benchmarks/read_trimming/{sample}.tsv"
    assert trim.container == "quay.io/biocontainers/fastp:0.23.4--h5f740d0_0"  # the image reference, no scheme
    assert ("extra", "params.fastp.extra") in trim.params


def test_collect_software_one_env_per_tool_and_the_checks_env(draft):
    collected = passes.collect_software(upto(draft, passes.collect_software))
    assert [s.env for s in collected.software] == ["bioplan_checks.yaml", "fastp.yaml", "fastqc.yaml",
                                                   "hisat2_build.yaml"]
    assert "check_paired_mates.py" in collected.scripts and list(collected.scripts) == sorted(collected.scripts)


def test_collect_params_leaves_the_condition_column_to_the_workflow(knowledge):
    deseq = next(t for t in knowledge.tools.values() if "condition_column" in t.params)
    step = PlanStep(id="de", operation=deseq.implements, tool=deseq.id, inputs={}, outputs={})
    draft = Draft(knowledge=knowledge, spec=_spec(condition_column="group"), plan=_plan(step))
    params = passes.collect_params(passes.order_steps(draft)).params
    assert "condition_column" not in params[deseq.id]
    bare = Draft(knowledge=knowledge, spec=_spec(inputs=()), plan=_plan(step))
    assert "condition_column" in passes.collect_params(passes.order_steps(bare)).params[deseq.id]


def test_pick_targets_are_the_outputs_nothing_reads(draft):
    targets = passes.pick_targets(upto(draft, passes.pick_targets)).targets
    paths = {t.path for t in targets}
    assert "results/read_qc/{sample}/fastqc" in paths and "results/genome_indexing/hisat2_index" in paths
    assert all(t.gathered == t.per_sample for t in targets)  # a target is every sample's file


def test_fill_sample_sheet_from_the_inputs(draft):
    filled = passes.fill_sample_sheet(upto(draft, passes.fill_sample_sheet))
    assert filled.has_samples and filled.sample_columns == ("sample", "fastq_1", "fastq_2")
    assert filled.samples == ({"sample": "s1", "fastq_1": R1, "fastq_2": R2},)


def test_fill_sample_sheet_without_files_keeps_the_header_the_steps_read(knowledge):
    step = TRIM.model_copy(update={"sources": {"reads": "input:raw_reads"}})
    draft = Draft(knowledge=knowledge, spec=_spec(inputs=()), plan=_plan(step))
    filled = passes.fill_sample_sheet(upto(draft, passes.fill_sample_sheet))
    assert filled.has_samples and filled.samples == ()
    assert filled.sample_columns == ("sample", "fastq_1", "fastq_2")


def test_find_organism_from_the_spec_constraints(draft):
    assert passes.find_organism(draft).organism is None
    human = replace(draft, spec=_spec(constraint_ids=("organism_human",)))
    organism = passes.find_organism(human).organism
    assert organism is not None and organism["id"] == "organism_human" and organism["scientific_name"]


def test_resolve_references_names_the_file_and_its_readers(draft):
    resolved = passes.resolve_references(upto(draft, passes.resolve_references))
    (ref,) = resolved.references
    assert ref.key == "reference_genome" and ref.read_by == ("genome_indexing",)
    assert resolved.config_inputs["reference_genome"].path == ref.path  # config points where the reference goes


def test_synthesize_is_the_passes_folded_then_frozen(draft, knowledge):
    workflow = synthesize(knowledge, draft.spec, draft.plan)
    folded = draft
    for run in PASSES:
        folded = run(folded)
    assert workflow.steps[:len(folded.steps)] == folded.steps
    assert [s.id for s in folded.steps] == ["genome_indexing", "check_paired_end_reads", "read_qc", "read_trimming"]
    # then the passes on the IR: the QC reports of FastQC and fastp end in one MultiQC report
    assert [s.tool for s in workflow.steps[len(folded.steps):]] == ["multiqc"]
    assert workflow.layout == "paired" and workflow.has_samples
    assert workflow.model_dump() == synthesize(knowledge, draft.spec, draft.plan).model_dump()  # deterministic
