"""Export a planning Problem as PDDL (STRIPS with action costs), for a peer planner.

The export is the Problem the production search solves, written so that any
classical planner can solve it too (the benchmarks use Fast Downward's optimal
A* with LM-cut through `unified-planning` as an optimality oracle):

- datatypes are objects of type `datatype`; a fact `(have ?d)` says the plan has
  (or was given) data of that type; the inputs and their `is_a` ancestors are
  the initial facts;
- every operation and every `provide:<datatype>` config action is one action:
  its required inputs are preconditions `(have ...)`, its outputs (with their
  ancestors) are effects, and it increases `total-cost` by its cost (scaled to
  integers: the scale is stated in a comment and in `PddlExport.cost_scale`);
- a must-pass anchor adds `(used <op>)` and the goal asks for it next to
  `(have <target>)`;
- constraints: operations the context rules out are pruned (listed in a comment
  with the reason); the context and the data facts are also asserted as
  `(holds <constraint>)` facts, and an exported operation that is specific to an
  assay, or needs a data constraint, has it as a precondition (when a Knowledge
  and TaskSpec are given).

No delete effects are needed: the planning problem is monotone. A plan of the
PDDL task maps back to Problem actions with `PddlExport.actions_of`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from bioplan.knowledge.models import Knowledge
from bioplan.models import TaskSpec
from bioplan.planner.graph import Action, Problem

_NAME = re.compile(r"[^a-z0-9_-]+")


@dataclass
class PddlExport:
    domain: str
    problem: str
    cost_scale: int
    # PDDL action name -> Problem action id
    action_names: dict[str, str] = field(default_factory=dict)

    def actions_of(self, pddl_names) -> tuple[str, ...]:
        """Problem action ids of a plan given as PDDL action names (any case)."""
        return tuple(self.action_names[n.lower()] for n in pddl_names)

    def cost_of(self, problem: Problem, pddl_names) -> float:
        return round(sum(problem.actions[a].cost for a in self.actions_of(pddl_names)), 6)


class _Names:
    """Valid, unique PDDL names (lower case, starting with a letter) for bioplan ids."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.by_id: dict[tuple[str, str], str] = {}

    def __call__(self, kind: str, ident: str) -> str:
        key = (kind, ident)
        if key not in self.by_id:
            base = _NAME.sub("_", ident.lower()).strip("_-") or kind
            if not base[0].isalpha():
                base = f"{kind[0]}_{base}"
            name, n = base, 1
            while name in self.used:
                n += 1
                name = f"{base}_{n}"
            self.used.add(name)
            self.by_id[key] = name
        return self.by_id[key]


def cost_scale(costs) -> int:
    """Smallest integer factor that makes every cost an integer (PDDL action costs are integers)."""
    scale = 1
    for c in costs:
        f = Fraction(c).limit_denominator(1000)
        scale = scale * f.denominator // _gcd(scale, f.denominator)
    return scale


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


# words of the domain itself, so that no bioplan id is given one of them as its PDDL name
_RESERVED = ("have", "used", "holds", "datatype", "operation", "constraint", "total-cost", "number",
             "object", "either", "and", "or", "not", "increase")


def to_pddl(problem: Problem, knowledge: Knowledge | None = None, spec: TaskSpec | None = None,
            name: str = "bioplan-request") -> PddlExport:
    names = _Names()  # one namespace: unified-planning wants every name distinct
    names.used.update(_RESERVED)
    actions = sorted(problem.actions.values(), key=lambda a: a.id)
    scale = cost_scale([a.cost for a in actions])
    facts = sorted(set(problem.initial).union(*(a.pre | a.add for a in actions), [problem.target]))
    # names are given in this order (datatypes, actions, anchors, constraints, problem) so that
    # a clash is always resolved the same way
    dt = {f: names("datatype", f) for f in facts}
    anchors = list(dict.fromkeys(problem.anchors))
    action_names: dict[str, str] = {}
    for a in actions:
        action_names[names("action", a.id)] = a.id
    ops = {a: names("operation", f"op-{a}") for a in anchors}
    act_name = {v: k for k, v in action_names.items()}
    context, gates = _constraint_facts(actions, knowledge, spec)
    cons = {c: names("constraint", c) for c in context}

    lines = _domain_header(problem, scale, dt, ops, cons)
    for a in actions:
        lines += _action_block(a, act_name[a.id], dt, ops, cons, gates.get(a.id, ()), scale)
    lines.append(")")
    domain = "\n".join(lines) + "\n"

    init = [f"(have {dt[f]})" for f in sorted(problem.initial)] + [f"(holds {cons[c]})" for c in context]
    goal = [f"(have {dt[problem.target]})"] + [f"(used {ops[a]})" for a in anchors]
    prob = "\n".join([
        f"(define (problem {names('problem', name)})",
        "  (:domain bioplan)",
        f"  (:init {' '.join(init)} (= (total-cost) 0))",
        f"  (:goal (and {' '.join(goal)}))",
        "  (:metric minimize (total-cost))",
        ")",
    ]) + "\n"
    return PddlExport(domain, prob, scale, action_names)


def _constraint_facts(actions: list[Action], knowledge: Knowledge | None,
                      spec: TaskSpec | None) -> tuple[list[str], dict[str, list[str]]]:
    """The constraints that hold (the context, the data facts not known to fail, and every gate),
    and each action's gates: its operation's assay and the data constraints it requires. Empty
    without a Knowledge and a TaskSpec (the export is then the bare Problem)."""
    context: list[str] = []
    gates: dict[str, list[str]] = {}
    if knowledge is not None and spec is not None:
        context = [c for c in spec.constraint_ids if c in knowledge.constraints]
        context += [c for c, ok in sorted(spec.data_facts.items()) if ok is not False and c in knowledge.constraints]
        assay = spec.constraints.get("assay")
        for a in actions:
            op = knowledge.operations.get(a.operation or "")
            if op is None:
                continue
            need = []
            if assay and op.assays:
                need.append(assay)
            need += [c for c in op.requires if c in knowledge.constraints]
            if need:
                gates[a.id] = need
                context += [c for c in need if c not in context]
    return list(dict.fromkeys(context)), gates


def _domain_header(problem: Problem, scale: int, dt: dict[str, str], ops: dict[str, str],
                   cons: dict[str, str]) -> list[str]:
    """The domain's lines up to its actions: comments (cost scale, pruned operations), types,
    constants, predicates and the cost function."""
    lines = [";; bioplan planning problem as PDDL: datatypes are facts, operations are actions",
             f";; action costs are bioplan's costs x {scale} (PDDL costs are integers)"]
    pruned = [p for p in problem.pruned if p.kind == "operation"]
    if pruned:
        lines.append(";; operations pruned by the context (not exported):")
        lines += [f";;   {p.id}: {p.reason}" for p in pruned]
    lines += ["(define (domain bioplan)",
              "  (:requirements :strips :typing :action-costs)",
              "  (:types datatype operation constraint)"]
    const = [f"    {' '.join(dt.values())} - datatype"]
    if ops:
        const.append(f"    {' '.join(ops.values())} - operation")
    if cons:
        const.append(f"    {' '.join(cons.values())} - constraint")
    lines += ["  (:constants", *const, "  )",
              "  (:predicates (have ?d - datatype) (used ?o - operation) (holds ?c - constraint))",
              "  (:functions (total-cost) - number)"]
    return lines


def _action_block(a: Action, pddl_name: str, dt: dict[str, str], ops: dict[str, str], cons: dict[str, str],
                  gates: Iterable[str], scale: int) -> list[str]:
    """One action: inputs (and gating constraints) as preconditions, outputs (and the anchor's
    "used" fact) as effects, and its cost scaled to an integer."""
    pre = [f"(have {dt[p]})" for p in sorted(a.pre)] + [f"(holds {cons[c]})" for c in gates]
    eff = [f"(have {dt[f]})" for f in sorted(a.add)]
    if a.id in ops:
        eff.append(f"(used {ops[a.id]})")
    cost = int(round(a.cost * scale))
    eff.append(f"(increase (total-cost) {cost})")
    return [f"  (:action {pddl_name}",
            f"    ; {a.id}",
            "    :parameters ()",
            f"    :precondition (and {' '.join(pre)})" if pre else "    :precondition (and)",
            f"    :effect (and {' '.join(eff)}))"]
