"""The QC report pass on the Workflow IR: every workflow whose steps write QC reports ends in one
MultiQC report of them all.

A tool output flagged `qc_report: true` in its tool file (FastQC's reports, fastp's JSON, STAR's
Log.final.out, a featureCounts summary, samtools stats, Kraken2 reports, ...) is what MultiQC reads.
The pass gathers every such output of the workflow into one cohort step, the `multiqc` tool of
the `qc_report_aggregation` operation: a new step, or the plan's own when the request asked for
MultiQC (its inputs then widen from the read QC reports to all of them). The reports become targets
too, so they are results the user keeps (never temp()) and the aggregate can be traced to them.
"""

from __future__ import annotations

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import FileRef, IOPort, Workflow, WorkflowStep
from bioplan.knowledge.models import Knowledge

AGGREGATOR = "multiqc"
OPERATION = "qc_report_aggregation"


def qc_report_ports(knowledge: Knowledge, workflow: Workflow) -> list[tuple[WorkflowStep, IOPort]]:
    """(step, output) of every QC report a tool step of the workflow writes, in step order."""
    found = []
    for step in workflow.steps:
        if step.kind != "tool" or step.tool is None or step.tool == AGGREGATOR:
            continue
        ports = knowledge.tools[step.tool].outputs
        found += [(step, out) for out in step.outputs if out.port in ports and ports[out.port].qc_report]
    return found


def _reads(step: WorkflowStep, report: IOPort) -> IOPort:
    """The aggregator's input for one report: named after the step and port that write it (one
    distinct name per report, in both targets), gathered over the samples when per sample."""
    name = f"{step.id}_{report.name}"
    ref = report.ref.model_copy(update={"gathered": report.ref.per_sample or report.ref.group is not None})
    return IOPort(name=name, port=name, datatype=report.datatype, format=report.format, ref=ref)


def _outputs(knowledge: Knowledge, step_id: str) -> list[IOPort]:
    """The report and its data folder, under results/<step>/."""
    tool = knowledge.tools[AGGREGATOR]
    made = knowledge.operations[OPERATION].outputs
    return [IOPort(name=port, port=port, datatype=made[port].datatype if port in made else "", format=tp.format,
                   ref=FileRef(kind="result", path=f"results/{step_id}/{tp.path}", directory=tp.directory))
            for port, tp in tool.outputs.items()]


def add_qc_report(knowledge: Knowledge, workflow: Workflow) -> Workflow:
    """The workflow ending in one MultiQC report of every QC report its steps write (unchanged when
    they write none)."""
    reports = qc_report_ports(knowledge, workflow)
    if not reports:
        return workflow
    inputs = [_reads(step, report) for step, report in reports]
    planned = next((s for s in workflow.steps if s.tool == AGGREGATOR), None)
    step_id = planned.id if planned else OPERATION
    step = tool_step(knowledge, workflow, AGGREGATOR, step_id, "cohort", inputs, _outputs(knowledge, step_id))
    steps = [s for s in workflow.steps if s.tool != AGGREGATOR] + [step]
    planned_outputs = {p.ref.path for p in planned.outputs} if planned else set()
    targets = [t for t in workflow.targets if t.path not in planned_outputs]
    kept = {t.path for t in targets}
    for _, report in reports:  # the reports are results too: kept, never temp()
        if report.ref.path not in kept:
            every = report.ref.per_sample or report.ref.group is not None  # every sample's or patient's
            targets.append(report.ref.model_copy(update={"gathered": every}))
            kept.add(report.ref.path)
    targets += [p.ref for p in step.outputs]
    return workflow.model_copy(update={"steps": tuple(steps), "targets": tuple(targets),
                                       **with_tool(knowledge, workflow, step)})
