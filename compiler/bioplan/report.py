"""The plan report (`bioplan plan --json`): a public contract, documented key by key in docs/plan-report.md."""

from __future__ import annotations

from typing import Any

from bioplan import __version__
from bioplan.errors import one_line
from bioplan.models import Plan, PlanResult, TaskSpec


def reference_json(workflow: Any) -> list[dict[str, Any]]:
    """compile --json `references`: every file the workflow reads that the user did not pass."""
    if workflow is None:
        return []
    return [{"name": r.key, "config_key": f"references.{r.key}", "datatype": r.datatype, "format": r.format,
             "why": r.why, "read_by": list(r.read_by), "path": r.path, "file_name": r.file_name,
             "where": r.hint, "genome_build": workflow.genome_build,
             "downloads": [d.model_dump() for d in r.downloads]} for r in workflow.references]


def plan_json(plan: Plan) -> dict[str, Any]:
    return {
        "rank": plan.rank,
        "score": plan.score,
        "cost": plan.cost,
        "depth": plan.depth,
        "motif": plan.motif,
        "score_terms": plan.score_terms,
        "config_inputs": list(plan.config_inputs),
        "steps": [
            {
                "id": s.id,
                "operation": s.operation,
                "tool": s.tool,
                "inputs": dict(s.inputs),
                "outputs": dict(s.outputs),
                "preconditions": list(s.preconditions),
                "sources": dict(s.sources),
            }
            for s in plan.steps
        ],
        "edges": [list(e) for e in plan.edges],
    }


def report(result: PlanResult) -> dict[str, Any]:
    spec = result.spec
    return {
        "bioplan_version": __version__,
        "query": spec.query,
        "task_spec": {
            "input_types": list(spec.input_types),
            "inputs": [
                {"path": i.path, "datatype": i.datatype, "format": i.format, "evidence": list(i.evidence),
                 **({"sample": i.sample} if i.sample else {}), **({"mate": i.mate} if i.mate else {}),
                 **({"lane": i.lane} if i.lane else {})}
                for i in spec.inputs
            ],
            "target_output": {"semantic_type": spec.target_output.semantic_type, "format": spec.target_output.format},
            "constraints": dict(spec.constraints),
            "constraint_ids": list(spec.constraint_ids),
            "required_operations": list(spec.required_operations),
            "preferred_tools": list(spec.preferred_tools),
            "excluded_tools": list(spec.excluded_tools),
            "excluded_operations": list(spec.excluded_operations),
            "workflow_type": spec.workflow_type,
            "max_hops": spec.max_hops,
            # a tumour/normal cohort: each sample's patient and status (steps of one individual run per patient)
            **({"patients": [{"sample": s.sample, "patient": s.patient, "status": s.status} for s in spec.patients]}
               if spec.patients else {}),
            "evidence": [
                {"kind": m.kind, "id": m.id, "text": m.text, "span": [m.start, m.end], "how": m.how,
                 **({"negated": True} if m.negated else {})}
                for m in spec.evidence
            ],
            # content words nothing understood, and where the plan differs from the request by opt-in
            "unrecognized": list(spec.unrecognized),
            "deviations": list(spec.deviations),
        },
        "operation_anchors": list(result.anchors),
        "plans": [plan_json(p) for p in result.plans],
        "warnings": list(result.warnings),
        "pruned": [{"kind": p.kind, "id": p.id, "reason": p.reason} for p in result.pruned],
    }


def patients_text(spec: TaskSpec) -> str:
    """Each patient's tumour(s) and normal, as the sample sheet pairs them: 'p1 (tumour p1_t, normal p1_n)'."""
    by_patient: dict[str, list[str]] = {}
    for s in spec.patients:
        by_patient.setdefault(s.patient, []).append(f"{s.status} {s.sample}")
    return "; ".join(f"{p} ({', '.join(sorted(samples, key=lambda x: x.startswith('normal')))})"
                     for p, samples in by_patient.items())


def text_report(result: PlanResult) -> str:
    spec = result.spec
    lines = [f"request: {one_line(spec.query)}",
             f"inputs: {', '.join(spec.input_types) or '(none)'}",
             f"target: {spec.target_output.semantic_type}"
             + (f" as {spec.target_output.format}" if spec.target_output.format else ""),
             f"constraints: {', '.join(spec.constraint_ids) or '(none)'}",
             f"anchors: {', '.join(result.anchors) or '(none)'}",
             f"workflow type: {spec.workflow_type}"]
    if spec.patients:
        lines.append(f"patients: {one_line(patients_text(spec))}")
    for p in result.plans:
        lines.append(f"\nplan {p.rank}  score {p.score}  cost {p.cost}  motif {p.motif or '-'}")
        for s in p.steps:
            pre = f"  [checks: {', '.join(s.preconditions)}]" if s.preconditions else ""
            srcs = ", ".join(f"{k}<-{v}" for k, v in s.sources.items())
            lines.append(f"  {s.id:<28} {s.tool or '':<26} {srcs}{pre}")
        if p.config_inputs:
            lines.append(f"  from config: {', '.join(p.config_inputs)}")
    for w in result.warnings:
        lines.append(f"warning: {one_line(w)}")
    for d in spec.deviations:
        lines.append(f"warning: {one_line(d)}")
    if spec.unrecognized:
        lines.append(f"not understood: {one_line(', '.join(spec.unrecognized))}")
    return "\n".join(lines)
