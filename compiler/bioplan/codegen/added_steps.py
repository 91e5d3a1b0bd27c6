"""Tool steps an IR pass adds after the plan is lowered (the MultiQC report, VCF compression): each is
built like synthesize builds a plan step (env, container, params backed by config, log, benchmark,
resources), and the workflow's software and params gain the tool's."""

from __future__ import annotations

from typing import Any

from bioplan.codegen.ir import PAIR, IOPort, Scope, Software, Workflow, WorkflowStep
from bioplan.knowledge.models import Knowledge


def _same_container_form(workflow: Workflow, image: str) -> str:
    """The image written the way the workflow's other steps write theirs (with or without the engine
    prefix), so both targets lower it as they lower every other step."""
    prefixed = any(s.container.startswith("docker://") for s in workflow.steps)
    return f"docker://{image}" if prefixed else image


def tool_step(knowledge: Knowledge, workflow: Workflow, tool_id: str, step_id: str, scope: Scope,
              inputs: list[IOPort], outputs: list[IOPort]) -> WorkflowStep:
    tool = knowledge.tools[tool_id]
    wildcard = {"sample": "/{sample}", "group": f"/{{{PAIR}}}"}.get(scope, "")  # one job per sample / pair
    # the IR before templates moved out of it names the step's Snakemake template
    legacy: dict[str, Any] = {}
    if "template" in WorkflowStep.model_fields:
        legacy["template"] = tool.templates["snakemake"]
    return WorkflowStep(
        id=step_id, kind="tool", operation=tool.implements, tool=tool.id, scope=scope, inputs=tuple(inputs),
        outputs=tuple(outputs),
        log=f"logs/{step_id}{wildcard}.log", benchmark=f"benchmarks/{step_id}{wildcard}.tsv",
        threads=tool.resources.threads, mem_mb=tool.resources.mem_mb, runtime=tool.resources.runtime,
        local=tool.resources.local,
        params=tuple((name, f"params.{tool.id}.{name}") for name in tool.params), env=f"{tool.id}.yaml",
        container=_same_container_form(workflow, tool.software.container), paired=workflow.layout == "paired",
        group_by=PAIR if scope == "group" else None, **legacy)


def with_tool(knowledge: Knowledge, workflow: Workflow, step: WorkflowStep) -> dict:
    """The workflow's `software` and `params` with the added step's tool (a model_copy update)."""
    assert step.tool is not None, step.id  # only tool steps are added
    tool = knowledge.tools[step.tool]
    software = {sw.env: sw for sw in workflow.software}
    software[step.env] = Software(env=step.env, conda=tool.software.conda, container=step.container)
    params = {**workflow.params, tool.id: dict(tool.params)}
    return {"software": tuple(sorted(software.values(), key=lambda x: x.env)),
            "params": dict(sorted(params.items()))}
