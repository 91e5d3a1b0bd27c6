"""The lane pass on the Workflow IR: a sample of several lanes (a sample sheet's `lane` column, as
nf-core/sarek's, or several rows of one sample, nf-core/rnaseq's technical replicates) has one sample
sheet row per lane; its lanes' FASTQ files are concatenated mate by mate, in the sheet's lane order,
by one per-sample step before any other step reads them (nf-core/rnaseq's CAT_FASTQ).

Every step that read the sample sheet's FASTQ columns (precondition checks included) reads the
merged files instead, so a sample is one sample everywhere after: one read group (ID and SM the
sample) in the aligners that write one, one sample column in a VCF. Only the added step reads the
sheet's rows per lane (`FileRef.lanes`); each target lowers that (Snakemake: an input function over
the sample's rows; Nextflow: the rows grouped by sample before the step).
"""

from __future__ import annotations

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import LANE, FileRef, IOPort, Workflow, WorkflowStep
from bioplan.errors import UnreadableInputError
from bioplan.knowledge.models import Knowledge

MERGER = "cat_fastq"
STEP_ID = "cat_fastq"
FASTQ_COLUMNS = ("fastq", "fastq_1", "fastq_2")


def _sheet_reads(port: IOPort) -> bool:
    return port.ref.kind == "samplesheet" and port.ref.path in FASTQ_COLUMNS


def _refuse_plain_lanes(workflow: Workflow) -> None:
    """cat joins gzip members into one gzip file; plain FASTQ lanes would be a plain file named .gz."""
    plain = sorted({row[c] for row in workflow.samples for c in FASTQ_COLUMNS if row.get(c)
                    and not row[c].endswith(".gz")})
    if plain:
        raise UnreadableInputError(
            f"the lanes of a sample are merged by concatenating gzipped FASTQ files, and these are not gzipped: "
            f"{', '.join(repr(p) for p in plain[:6])}",
            ["to resolve, gzip them (gzip FILE.fastq) and give the .fastq.gz files"], {"paths": plain})


def _merge_step(knowledge: Knowledge, workflow: Workflow, columns: list[str]) -> WorkflowStep:
    """One job per sample: every lane's file of each FASTQ column, concatenated per column."""
    inputs, outputs = [], []
    for column in columns:
        mate = column.removeprefix("fastq").removeprefix("_")
        name = f"reads_{mate}" if mate else "reads"
        inputs.append(IOPort(name=name, port="reads", datatype="raw_reads", format="fastq.gz",
                             ref=FileRef(kind="samplesheet", path=column, per_sample=True, lanes=True)))
        stem = f"{{sample}}_{mate}" if mate else "{sample}"
        outputs.append(IOPort(name=name, port="reads", datatype="raw_reads", format="fastq.gz",
                              ref=FileRef(kind="result", path=f"results/{STEP_ID}/{{sample}}/{stem}.fastq.gz",
                                          per_sample=True)))
    return tool_step(knowledge, workflow, MERGER, STEP_ID, "sample", inputs, outputs)


def _reading_merged(step: WorkflowStep, merged: dict[str, IOPort]) -> WorkflowStep:
    """The step reading the merged file of a sheet column where it read the column (gathered as before)."""
    inputs = tuple(p.model_copy(update={"ref": merged[p.ref.path].ref.model_copy(
                       update={"gathered": p.ref.gathered})})
                   if _sheet_reads(p) else p for p in step.inputs)
    return step.model_copy(update={"inputs": inputs})


def merge_lanes(knowledge: Knowledge, workflow: Workflow) -> Workflow:
    """The workflow with each sample's lanes concatenated before its first step (unchanged when no sample
    has several lanes, or no step reads the sheet's FASTQ files)."""
    if LANE not in workflow.meta_columns:
        return workflow
    asked = next((s for s in workflow.steps if s.tool == MERGER), None)
    if asked is not None:  # the request's own lane merging ("merge the lanes"): it reads every lane
        lanes = asked.model_copy(update={"inputs": tuple(
            p.model_copy(update={"ref": p.ref.model_copy(update={"lanes": True})}) if _sheet_reads(p) else p
            for p in asked.inputs)})
        _refuse_plain_lanes(workflow)
        return workflow.model_copy(update={"steps": tuple(lanes if s is asked else s for s in workflow.steps)})
    columns = list(dict.fromkeys(p.ref.path for s in workflow.steps for p in s.inputs if _sheet_reads(p)))
    if not columns:
        return workflow
    _refuse_plain_lanes(workflow)
    columns = [c for c in FASTQ_COLUMNS if c in columns]
    added = _merge_step(knowledge, workflow, columns)
    merged = {c: p for c, p in zip(columns, added.outputs)}
    steps = (added, *(_reading_merged(s, merged) for s in workflow.steps))
    return workflow.model_copy(update={"steps": steps, **with_tool(knowledge, workflow, added)})
