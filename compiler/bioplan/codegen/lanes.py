"""The lane pass on the Workflow IR: a sample of several lanes (a sample sheet's `lane` column, as
nf-core/sarek's, or several rows of one sample, nf-core/rnaseq's technical replicates) has one sample
sheet row per lane. Two lowerings, as the nf-core pipelines do:

- variant calling (nf-core/sarek): an aligner of `PER_LANE_ALIGNERS` that reads the sheet's FASTQ
  files itself reads every lane's files and aligns each lane under its own read group (ID
  `<sample>.<lane>`, SM and LB the sample, PL the platform), then merges the lanes' BAMs with
  `samtools merge` (all @RG lines kept): lane effects stay visible to duplicate marking and base
  recalibration, and the VCF still has one column per sample (SM). The mates check guarding it
  checks every lane's pair. A trimmer of `PER_LANE_TRIMMERS` (fastp) between the sheet and that aligner,
  whose trimmed reads only the aligner reads, trims each lane apart as sarek's FASTP does (one job per
  sample, the lanes inside it): it writes a folder of the sample's trimmed lanes (`lane<i>_<mate>.fastq.gz`,
  i the lane's place in the sheet; an intermediate like trimmed files) and a folder of the lanes' reports
  (MultiQC's), and the aligner reads the folder (`reads_lanes`), each lane under its read group.
- everything else (nf-core/rnaseq's CAT_FASTQ): the lanes' FASTQ files are concatenated mate by mate,
  in the sheet's lane order, by one per-sample step before any other step reads them; a read group
  matters to no quantifier. Steps that read the sheet's FASTQ columns (their checks included) read
  the merged files instead. So does a trimmer between the lanes and a variant pipeline's aligner that
  cannot trim per lane (or whose trimmed reads another step reads too): its reads are then one read
  group per sample.

Only the steps that read the sheet's rows per lane carry `FileRef.lanes`; each target lowers that
(Snakemake: an input function over the sample's rows, and the `@lanes` param: the sample's lane
names; Nextflow: the rows grouped by sample, the lane names in `meta.lanes`).
"""

from __future__ import annotations

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import LANE, FileRef, IOPort, Workflow, WorkflowStep
from bioplan.errors import UnreadableInputError
from bioplan.knowledge.models import Knowledge

MERGER = "cat_fastq"
STEP_ID = "cat_fastq"
FASTQ_COLUMNS = ("fastq", "fastq_1", "fastq_2")
# aligners whose templates align each lane under its own read group and merge the lanes' BAMs
PER_LANE_ALIGNERS = frozenset({"bwa_mem"})
# a workflow doing one of these reads the read groups (duplicates per library, recalibration per lane,
# one VCF column per SM): its aligner keeps the lanes apart
READ_GROUP_OPERATIONS = frozenset({"variant_calling", "somatic_variant_calling", "gvcf_calling",
                                   "structural_variant_calling", "base_recalibration"})
# the step param the per-lane aligner reads its sample's lane names from (each target lowers it)
LANES_PARAM = ("lanes", "@lanes")
# trimmers whose templates trim each lane apart (nf-core/sarek's FASTP per lane) into a folder of the sample's
# trimmed lanes, `lane<i>_<mate>.fastq.gz` in sheet order, and their reports into another
PER_LANE_TRIMMERS = frozenset({"fastp"})
# the per-lane aligner's input of such a folder (its templates align each lane's files of it)
TRIMMED_LANES_PORT = "reads_lanes"


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


def _per_lane_aligners(workflow: Workflow) -> set[str]:
    """Ids of the aligners that align each lane apart: those of `PER_LANE_ALIGNERS` reading the sheet's
    FASTQ files themselves, in a workflow that calls variants (else the lanes are concatenated)."""
    if not any(s.operation in READ_GROUP_OPERATIONS for s in workflow.steps):
        return set()
    return {s.id for s in workflow.steps
            if s.tool in PER_LANE_ALIGNERS and any(_sheet_reads(p) for p in s.inputs)}


def _per_lane_trimmers(workflow: Workflow) -> dict[str, str]:
    """{trimmer id: aligner id}: a trimmer of `PER_LANE_TRIMMERS` reading the sheet's FASTQ files whose
    trimmed reads only a per-lane aligner reads, in a workflow that calls variants (sarek trims each lane,
    then aligns it under its own read group)."""
    if not any(s.operation in READ_GROUP_OPERATIONS for s in workflow.steps):
        return {}
    found = {}
    for trimmer in workflow.steps:
        if trimmer.tool not in PER_LANE_TRIMMERS or not any(_sheet_reads(p) for p in trimmer.inputs):
            continue
        trimmed = {p.ref.path for p in trimmer.outputs if p.port == "trimmed"}
        readers = [s for s in workflow.steps if any(p.ref.kind == "result" and p.ref.path in trimmed
                                                    for p in s.inputs)]
        if len(readers) == 1 and readers[0].tool in PER_LANE_ALIGNERS:
            found[trimmer.id] = readers[0].id
    return found


def _trimming_lanes(trimmer: WorkflowStep) -> WorkflowStep:
    """The trimmer writing a folder of its sample's trimmed lanes (`trimmed`) and one of their reports
    (`report`, which MultiQC reads), in place of one trimmed file per mate and one report."""
    base = trimmer.outputs[0].ref.path.rsplit("/", 1)[0]
    ports = {p.port: p for p in trimmer.outputs}
    outputs = tuple(ports[port].model_copy(update={"name": port, "ref": ports[port].ref.model_copy(update={
        "path": f"{base}/{{sample}}_{folder}", "directory": True})})
        for port, folder in (("trimmed", "trimmed_lanes"), ("report", "fastp_lanes")))
    return _reading_lanes(trimmer, True).model_copy(update={"outputs": outputs})


def _aligning_trimmed_lanes(aligner: WorkflowStep, trimmer: WorkflowStep) -> WorkflowStep:
    """The aligner reading the trimmer's folder of trimmed lanes where it read the trimmed mates."""
    trimmed = {p.ref.path for p in trimmer.outputs if p.port == "trimmed"}
    folder = next(p for p in _trimming_lanes(trimmer).outputs if p.port == "trimmed")
    kept = tuple(p for p in aligner.inputs if not (p.ref.kind == "result" and p.ref.path in trimmed))
    reads = IOPort(name=TRIMMED_LANES_PORT, port=TRIMMED_LANES_PORT, datatype=folder.datatype, format=folder.format,
                   ref=folder.ref)
    return aligner.model_copy(update={"inputs": (reads, *kept), "params": (*aligner.params, LANES_PARAM)})


def _reading_lanes(step: WorkflowStep, aligner: bool) -> WorkflowStep:
    """A step reading every lane's file of the sheet's FASTQ columns (the aligner, with its lane names)."""
    inputs = tuple(p.model_copy(update={"ref": p.ref.model_copy(update={"lanes": True})})
                   if _sheet_reads(p) else p for p in step.inputs)
    params = (*step.params, LANES_PARAM) if aligner else step.params
    return step.model_copy(update={"inputs": inputs, "params": params})


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
    aligners = _per_lane_aligners(workflow)
    trimmers = _per_lane_trimmers(workflow)
    apart = {s.id for s in workflow.steps if s.id in aligners or s.id in trimmers
             or (s.kind == "check" and (s.guards in aligners or s.guards in trimmers))}
    steps = tuple(_trimming_lanes(s) if s.id in trimmers else _reading_lanes(s, s.id in aligners)
                  if s.id in apart else s for s in workflow.steps)
    by_id = {s.id: s for s in workflow.steps}
    steps = tuple(next((_aligning_trimmed_lanes(s, by_id[t]) for t, a in trimmers.items() if a == s.id), s)
                  for s in steps)
    columns = list(dict.fromkeys(p.ref.path for s in steps if s.id not in apart for p in s.inputs
                                 if _sheet_reads(p)))
    if aligners or trimmers:
        # the trimmers' files that are no more (one trimmed file per mate, one report): their folders replace them
        gone = {p.ref.path for s in workflow.steps if s.id in trimmers for p in s.outputs}
        workflow = workflow.model_copy(update={"steps": steps,
                                               "targets": tuple(t for t in workflow.targets if t.path not in gone)})
    if not columns:
        return workflow
    _refuse_plain_lanes(workflow)
    columns = [c for c in FASTQ_COLUMNS if c in columns]
    added = _merge_step(knowledge, workflow, columns)
    merged = {c: p for c, p in zip(columns, added.outputs)}
    steps = (added, *(s if s.id in apart else _reading_merged(s, merged) for s in steps))
    return workflow.model_copy(update={"steps": steps, **with_tool(knowledge, workflow, added)})
