"""The annotation database pass on the Workflow IR: a variant effect predictor that reads a database it
builds from the workflow's genome and GTF (SnpEff) gets that build as a step of its own, once per genome,
as nf-core/sarek's SNPEFF_DOWNLOAD (and nf-core/viralrecon's SNPEFF_BUILD) is one task whose database every
annotation task reads.

The planner plans variant annotation from the VCF, the genome and the GTF (what every annotator reads);
this pass moves the genome and the GTF, with the precondition checks guarding only them, from the
annotation step to a reference-scope build step (`<step>_build_db`), and the annotation step reads the
build's database instead: one build job however many samples or tumour/normal pairs are annotated
(Snakemake: a rule without wildcards; Nextflow: a process without meta, a value channel).
"""

from __future__ import annotations

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import FileRef, IOPort, Workflow, WorkflowStep
from bioplan.knowledge.models import Knowledge

# annotator tool -> the tool building the database it reads
BUILDERS = {"snpeff": "snpeff_build"}
# the annotator's ports the database is built from, and its port reading the database
SOURCE_PORTS = ("genome", "annotation")
DATABASE_PORT = "db"


def _build_step(knowledge: Knowledge, workflow: Workflow, annotator: WorkflowStep,
                sources: list[IOPort], gates: list[IOPort]) -> WorkflowStep:
    """The reference-scope build step reading the annotator's genome and GTF, gated by their checks."""
    tool = knowledge.tools[BUILDERS[annotator.tool or ""]]
    step_id = f"{annotator.id}_build_db"
    outputs = [IOPort(name=port, port=port, datatype=knowledge.operations[tool.implements].outputs[port].datatype,
                      format=out.format,
                      ref=FileRef(kind="result", path=f"results/{step_id}/{out.path}", directory=out.directory))
               for port, out in tool.outputs.items()]
    inputs = [p.model_copy(update={"ref": p.ref.model_copy(update={"gathered": False})}) for p in sources]
    return tool_step(knowledge, workflow, tool.id, step_id, "reference", [*inputs, *gates], outputs)


def _gates_of(workflow: Workflow, step: WorkflowStep, sources: list[IOPort]) -> list[IOPort]:
    """The step's check inputs whose checks read only the database's sources (the genome, the GTF)."""
    paths = {(p.ref.kind, p.ref.path) for p in sources}
    checks = {s.id: s for s in workflow.steps if s.kind == "check"}
    return [p for p in step.inputs if p.port in checks
            and all((c.ref.kind, c.ref.path) in paths for c in checks[p.port].inputs)]


def _regated(step: WorkflowStep, moved_checks: set[str], build_id: str) -> WorkflowStep:
    """A check whose gate moved to the build step guards the build now (it runs before the build)."""
    if step.kind == "check" and step.id in moved_checks:
        return step.model_copy(update={"guards": build_id})
    return step


def build_annotation_databases(knowledge: Knowledge, workflow: Workflow) -> Workflow:
    """The workflow with each database-building annotator's build as a step of its own (unchanged when
    there is none)."""
    for annotator in [s for s in workflow.steps if s.kind == "tool" and s.tool in BUILDERS]:
        sources = [p for p in annotator.inputs if p.port in SOURCE_PORTS]
        gates = _gates_of(workflow, annotator, sources)
        # the plan's own build ("build a SnpEff database and annotate with SnpEff") of the same genome and GTF
        planned = next((s for s in workflow.steps if s.tool == BUILDERS[annotator.tool or ""] and
                        {(p.port, p.ref) for p in s.inputs if p.port in SOURCE_PORTS} ==
                        {(p.port, p.ref) for p in sources}), None)
        build = (planned.model_copy(update={"inputs": (*planned.inputs, *(
            g for g in gates if g.port not in {p.port for p in planned.inputs}))})
            if planned else _build_step(knowledge, workflow, annotator, sources, gates))
        database = build.outputs[0]
        reads = IOPort(name=DATABASE_PORT, port=DATABASE_PORT, datatype=database.datatype, format=database.format,
                       ref=database.ref)
        moved = {id(p) for p in (*sources, *gates)}
        annotated = annotator.model_copy(update={"inputs": (
            *(p for p in annotator.inputs if id(p) not in moved), reads)})
        steps = [_regated(s, {g.port for g in gates}, build.id) for s in workflow.steps]
        if planned:
            steps[steps.index(planned)] = build
        at = steps.index(annotator)
        steps[at:at + 1] = [] if planned else [build]
        # after the build (Nextflow calls a process before reading its output)
        at = max(at, steps.index(build) + 1)
        steps.insert(at, annotated)
        # the genome and the GTF are read by the build now
        references = tuple(r.model_copy(update={"read_by": tuple(dict.fromkeys(
            build.id if s == annotator.id else s for s in r.read_by))}) for r in workflow.references)
        workflow = workflow.model_copy(update={"steps": tuple(steps), "references": references,
                                               **with_tool(knowledge, workflow, build)})
    return workflow
