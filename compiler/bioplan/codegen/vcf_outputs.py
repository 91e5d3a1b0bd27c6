"""The VCF output pass on the Workflow IR: every VCF a step writes uncompressed (SnpEff, freebayes)
is bgzipped and tabix-indexed by a step of its own, as nf-core's TABIX_BGZIPTABIX follows SNPEFF.

Later steps read the compressed file (every VCF reader of the knowledge takes vcf.gz), and the
workflow's results are the `.vcf.gz` with its `.tbi`, which bcftools, IGV and GATK read by region.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import FileRef, IOPort, Workflow, WorkflowStep
from bioplan.knowledge.models import Knowledge

COMPRESSOR = "tabix_bgziptabix"
PLAIN_VCF = "vcf"


def _compressed(knowledge: Knowledge, workflow: Workflow, producer: WorkflowStep, vcf: IOPort) -> WorkflowStep:
    """The bgzip + tabix step of one plain VCF output, named after its producer and port."""
    step_id = f"{producer.id}_bgzip" if vcf.port == PLAIN_VCF else f"{producer.id}_{vcf.name}_bgzip"
    stem = PurePosixPath(vcf.ref.path).name.removesuffix(".vcf")
    # one file per sample or per patient, as the producer's
    base = f"results/{step_id}/{{sample}}" if vcf.ref.per_sample else (
        f"results/{step_id}/{{{vcf.ref.group}}}" if vcf.ref.group else f"results/{step_id}")
    tool = knowledge.tools[COMPRESSOR]
    outputs = []
    for port, tp in tool.outputs.items():
        name = (tp.path or f"{{vcf}}.{tp.format}").replace("{vcf}", stem)
        ref = FileRef(kind="result", path=f"{base}/{name}", per_sample=vcf.ref.per_sample, group=vcf.ref.group)
        outputs.append(IOPort(name=port, port=port, datatype=vcf.datatype if port == "vcf" else "", format=tp.format,
                              ref=ref))
    reads = IOPort(name="vcf", port="vcf", datatype=vcf.datatype, format=vcf.format,
                   ref=vcf.ref.model_copy(update={"gathered": False}))
    return tool_step(knowledge, workflow, COMPRESSOR, step_id, producer.scope, [reads], outputs)


def _reading(step: WorkflowStep, plain: str, compressed: IOPort) -> WorkflowStep:
    """A tool step reading the compressed VCF where it read the plain one (checks keep the plain)."""
    if step.kind != "tool":
        return step
    inputs = tuple(p.model_copy(update={"format": compressed.format,
                                        "ref": compressed.ref.model_copy(update={"gathered": p.ref.gathered})})
                   if p.ref.kind == "result" and p.ref.path == plain else p for p in step.inputs)
    return step.model_copy(update={"inputs": inputs})


def compress_vcf_outputs(knowledge: Knowledge, workflow: Workflow) -> Workflow:
    """The workflow with every plain VCF output bgzipped and indexed (unchanged when there is none)."""
    plain = [(s, p) for s in workflow.steps if s.kind == "tool" and s.tool != COMPRESSOR
             for p in s.outputs if p.format == PLAIN_VCF and not p.ref.directory]
    if not plain:
        return workflow
    steps = list(workflow.steps)
    targets = list(workflow.targets)
    update: dict = {}
    for producer, vcf in plain:
        added = _compressed(knowledge, workflow, producer, vcf)
        gz = next(p for p in added.outputs if p.port == "vcf")
        steps = [_reading(s, vcf.ref.path, gz) for s in steps]
        steps.insert(steps.index(next(s for s in steps if s.id == producer.id)) + 1, added)
        # variant calls are records the user keeps: the compressed VCF and its index are results (in place
        # of the plain VCF when that was one), also when a later step reads them
        targets = [t for t in targets if t.path != vcf.ref.path]
        targets += [p.ref.model_copy(update={"gathered": p.ref.per_sample or p.ref.group is not None})
                    for p in added.outputs]
        workflow = workflow.model_copy(update={"steps": tuple(steps), **with_tool(knowledge, workflow, added)})
        update = {"steps": tuple(steps), "targets": tuple(targets)}
    return workflow.model_copy(update=update)
