"""The cohort summary pass on the Workflow IR: a tumour/normal cohort called per pair (group steps,
`pair`) gets one table of every pair's call set, the variants called and those passing every filter
(FILTER PASS), one row per pair: the overview nf-core/sarek users read before opening each pair's VCF.

One cohort step per kind of per-pair VCF result (the somatic calls; the annotated calls too when
SnpEff follows), reading that result gathered over the pairs; each target names the rows by pair
(Snakemake: the pair's results folder; Nextflow: the gathered ids).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bioplan.codegen.added_steps import tool_step, with_tool
from bioplan.codegen.ir import PAIR, FileRef, IOPort, Workflow
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype

COUNTER = "call_set_counts"


def _pair_vcfs(knowledge: Knowledge, workflow: Workflow) -> list[FileRef]:
    """The per-pair VCF results (bgzipped call sets), in target order."""
    return [t for t in workflow.targets if t.group == PAIR and t.path.endswith(".vcf.gz")
            and any(p.ref.path == t.path and is_subtype(knowledge, p.datatype, "variant_calls")
                    for s in workflow.steps for p in s.outputs)]


def add_call_set_summary(knowledge: Knowledge, workflow: Workflow) -> Workflow:
    """The workflow with a summary table of each kind of per-pair call set (unchanged without pairs)."""
    found = _pair_vcfs(knowledge, workflow)
    if not found:
        return workflow
    steps, targets = list(workflow.steps), list(workflow.targets)
    for vcf in found:
        producer = PurePosixPath(vcf.path).parts[1]  # results/<step>/{pair}/<file>
        step_id = f"{producer}_summary"
        datatype = next(p.datatype for s in steps for p in s.outputs if p.ref.path == vcf.path)
        reads = IOPort(name="vcfs", port="vcfs", datatype=datatype, format="vcf.gz",
                       ref=vcf.model_copy(update={"gathered": True}))
        table = IOPort(name="table", port="table", datatype="call_set_summary_table", format="tsv",
                       ref=FileRef(kind="result", path=f"results/{step_id}/call_set_summary.tsv"))
        step = tool_step(knowledge, workflow, COUNTER, step_id, "cohort", [reads], [table])
        steps.append(step)
        targets.append(table.ref)
        workflow = workflow.model_copy(update={"steps": tuple(steps), **with_tool(knowledge, workflow, step)})
    return workflow.model_copy(update={"steps": tuple(steps), "targets": tuple(targets)})
