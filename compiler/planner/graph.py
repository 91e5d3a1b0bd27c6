"""The planning problem: a STRIPS-like view of the capability graph for one TaskSpec.

Facts are datatype ids. An action is either an operation (preconditions: the
datatypes of its required input ports; effects: its output datatypes and all
their `is_a` ancestors, so a trimmed_reads fact also satisfies a raw_reads
port) or a config action `provide:<datatype>` that stands for a reference the
user supplies through config.yaml (genome FASTA, GTF, gene set library).

`build_problem` applies the context pruning (assays, organisms, layouts,
excluded tools, failed data facts) and relevance pruning (only actions that
can reach a goal and can be reached from the inputs), recording every pruned
operation with its reason. The same Problem feeds the production search, the
plain BFS baseline and the PDDL export, so all three solve the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bioplan.knowledge.models import Knowledge, Tool
from bioplan.models import Pruned, TaskSpec

# A reference from config.yaml costs less than an operation but is not free:
# the plan that needs fewer things from the user wins a tie.
CONFIG_COST = 0.25


@dataclass(frozen=True)
class Action:
    id: str  # operation id, or "provide:<datatype>"
    cost: float
    pre: frozenset[str]
    add: frozenset[str]
    operation: str | None  # None for config actions


@dataclass
class Problem:
    initial: frozenset[str]
    target: str
    anchors: tuple[str, ...]
    actions: dict[str, Action]
    max_hops: int
    pruned: list[Pruned] = field(default_factory=list)
    # operations the context left without a tool; kept to explain refusals
    blocked: dict[str, str] = field(default_factory=dict)


def ancestors(knowledge: Knowledge, datatype: str) -> list[str]:
    out = []
    parent = knowledge.datatypes[datatype].is_a if datatype in knowledge.datatypes else None
    while parent:
        out.append(parent)
        parent = knowledge.datatypes[parent].is_a
    return out


def closure(knowledge: Knowledge, datatypes) -> frozenset[str]:
    out: set[str] = set()
    for d in datatypes:
        out.add(d)
        out.update(ancestors(knowledge, d))
    return frozenset(out)


def tool_fits_context(tool: Tool, knowledge: Knowledge, spec: TaskSpec) -> str | None:
    """None if the tool may be used under the spec's context constraints, else why not."""
    if tool.id in spec.excluded_tools:
        return "excluded by the request"
    by_kind: dict[str, set[str]] = {}
    for c in tool.supports:
        by_kind.setdefault(knowledge.constraints[c].kind, set()).add(c)
    for c in spec.constraint_ids:
        con = knowledge.constraints.get(c)
        if con is None or con.kind not in by_kind:
            continue
        if c not in by_kind[con.kind]:
            return f"does not support {c} (supports {', '.join(sorted(by_kind[con.kind]))})"
    for c in tool.requires:
        if spec.data_facts.get(c) is False:
            return f"requires {c}, which the inputs fail"
    return None


def usable_tools(knowledge: Knowledge, spec: TaskSpec, operation: str) -> tuple[list[Tool], list[Pruned]]:
    tools, pruned = [], []
    for tool in knowledge.tools_for(operation):
        why = tool_fits_context(tool, knowledge, spec)
        if why is None:
            tools.append(tool)
        else:
            pruned.append(Pruned(kind="tool", id=tool.id, reason=why))
    return tools, pruned


def operation_block_reason(knowledge: Knowledge, spec: TaskSpec, op_id: str) -> tuple[str | None, list[Pruned]]:
    op = knowledge.operations[op_id]
    assay = spec.constraints.get("assay")
    if assay and op.assays and assay not in op.assays:
        return f"applies to {', '.join(op.assays)}, not to {assay}", []
    for c in op.requires:
        if spec.data_facts.get(c) is False:
            return f"requires {c}, which the inputs fail", []
    tools, pruned = usable_tools(knowledge, spec, op_id)
    if not tools:
        reasons = "; ".join(f"{p.id}: {p.reason}" for p in pruned) or "no tool in the knowledge base"
        return f"no usable tool ({reasons})", pruned
    return None, pruned


def build_problem(knowledge: Knowledge, spec: TaskSpec, forbidden: frozenset[str] = frozenset()) -> Problem:
    initial = closure(knowledge, spec.input_types)
    actions: dict[str, Action] = {}
    pruned: list[Pruned] = []
    blocked: dict[str, str] = {}
    for op_id, op in knowledge.operations.items():
        why, tool_pruned = operation_block_reason(knowledge, spec, op_id)
        pruned.extend(tool_pruned)
        if why is not None:
            blocked[op_id] = why
            pruned.append(Pruned(kind="operation", id=op_id, reason=why))
            continue
        pre = frozenset(p.datatype for p in op.inputs.values() if not p.optional)
        add = closure(knowledge, (p.datatype for p in op.outputs.values()))
        actions[op_id] = Action(op_id, op.cost, pre, add, op_id)
    # bioplan never asks the user for a reference their inputs can make
    # (a Kraken2 database from the given genomes and taxonomy is built, not requested)
    # (decided before alternatives forbid operations, so an alternative plan never swaps
    # building it for asking for it)
    derivable = _forward_closure(initial, actions.values())
    for op_id in forbidden:
        actions.pop(op_id, None)
    for dt in knowledge.datatypes.values():
        if dt.config_provided and dt.id not in initial and dt.id not in derivable:
            actions[f"provide:{dt.id}"] = Action(f"provide:{dt.id}", CONFIG_COST, frozenset(), closure(knowledge, [dt.id]), None)
    problem = Problem(initial, spec.target_output.semantic_type, tuple(spec.required_operations), actions,
                      spec.max_hops, pruned, blocked)
    return relevant_only(problem)


def _forward_closure(initial: frozenset[str], actions) -> set[str]:
    facts = set(initial)
    changed = True
    while changed:
        changed = False
        for a in actions:
            if a.pre <= facts and not a.add <= facts:
                facts |= a.add
                changed = True
    return facts


def relevant_only(problem: Problem) -> Problem:
    """Keep actions that are forward-reachable from the inputs and backward-relevant to a goal."""
    # forward: relaxed reachability (ignore deletes; there are none)
    facts = set(problem.initial)
    reachable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for a in problem.actions.values():
            if a.id not in reachable and a.pre <= facts:
                reachable.add(a.id)
                if not a.add <= facts:
                    facts |= a.add
                changed = True
    # backward: datatypes needed for the target or an anchor's inputs
    needed: set[str] = {problem.target}
    relevant: set[str] = set(a for a in problem.anchors if a in reachable)
    for a in list(relevant):
        needed |= problem.actions[a].pre
    changed = True
    while changed:
        changed = False
        for a in problem.actions.values():
            if a.id in relevant or a.id not in reachable:
                continue
            if a.add & needed:
                relevant.add(a.id)
                needed |= a.pre
                changed = True
    kept = {k: v for k, v in problem.actions.items() if k in relevant}
    return Problem(problem.initial, problem.target, problem.anchors, kept, problem.max_hops, problem.pruned,
                   problem.blocked)
