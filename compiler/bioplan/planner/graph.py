"""The planning problem: a STRIPS-like view of the capability graph for one TaskSpec.

Facts are datatype ids. An action is either an operation (preconditions: the
datatypes of its required input ports; effects: its output datatypes and all
their `is_a` ancestors, so a trimmed_reads fact also satisfies a raw_reads
port) or a config action `provide:<datatype>` that stands for a reference the
user supplies through config.yaml (genome FASTA, GTF, gene set library).

`build_problem` reads only the part of the graph that can matter, through the
precomputed planning index (`index.py`): a queue-based forward pass from the
input datatypes over the consumer index (references from config, and what
they alone make, count as available), then the producers of what that region
and the goals still need among the reference-only operations. The context
pruning (assays, organisms, layouts, excluded tools, failed data facts) is
applied to the operations met, each pruned one recorded with its reason; the
relevance pruning (forward-reachable from the inputs and backward-relevant to
the target or an anchor) then gives exactly the Problem a pass over the whole
graph would give (tests/test_planner_index.py checks it). The same Problem
feeds the production search, the plain BFS baseline and the PDDL export
(`pddl.py`), so all three solve the same thing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from bioplan.cache import Memo
from bioplan.knowledge.models import Knowledge, Tool
from bioplan.models import Pruned, TaskSpec
from bioplan.planner.index import PlanningIndex, planning_index

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

    def search_key(self) -> tuple | None:
        """What the relevance pruning and the search read of the problem (the initial facts, the target, the
        anchors, the actions in order): the key their per-process memos keep results under. None when an
        action holds a mutable set (such a problem is not kept)."""
        key = (frozenset(self.initial), self.target, tuple(self.anchors), tuple(self.actions.items()))
        try:
            hash(key)
        except TypeError:
            return None
        return key


def closure(knowledge: Knowledge, datatypes: Iterable[str]) -> frozenset[str]:
    """`knowledge.queries.closure` read from the planning index's precomputed closures."""
    index = planning_index(knowledge)
    out: set[str] = set()
    for d in datatypes:
        out |= index.closure.get(d, frozenset((d,)))
    return frozenset(out)


# --------------------------------------------------------------------------- context pruning


@dataclass(frozen=True)
class Block:
    """Why the context rules out an operation or a tool, as data (`reason` says it in words).

    `cause`: "assay" (the operation applies to other assays), "data" (it or the tool requires a
    data constraint the inputs fail), "excluded" (the request excludes the tool), "refused" (the
    request refuses the operation: "without marking duplicates"), "unsupported" (the
    tool does not support a context constraint), "no_tool" (every tool is ruled out: `tools` says
    why each). `constraint`: the constraint at issue for "data" and "unsupported"."""

    cause: Literal["assay", "data", "excluded", "refused", "unsupported", "no_tool"]
    reason: str
    constraint: str | None = None
    tools: tuple[Block, ...] = ()

    def all(self) -> tuple[Block, ...]:
        """This block and those of the operation's tools."""
        return (self, *self.tools)


class _Context:
    """The spec's context constraints, and the verdict on each operation met so far."""

    def __init__(self, knowledge: Knowledge, spec: TaskSpec, index: PlanningIndex | None = None):
        self.knowledge = knowledge
        self.spec = spec
        self.index = index or planning_index(knowledge)
        self.assay = spec.constraints.get("assay")
        self.kinds = [(c, knowledge.constraints[c].kind) for c in spec.constraint_ids if c in knowledge.constraints]
        self.failed = {c for c, ok in spec.data_facts.items() if ok is False}
        self.excluded = set(spec.excluded_tools)
        self.verdicts: dict[str, tuple[str | None, list[Pruned]]] = {}
        self.blocks: dict[str, tuple[Block | None, list[Pruned]]] = {}

    def tool_block(self, tool_id: str) -> Block | None:
        """Why the context rules the tool out, None when it may run."""
        if tool_id in self.excluded:
            return Block("excluded", "excluded by the request")
        by_kind = self.index.tool_kinds.get(tool_id)
        if by_kind:
            for c, kind in self.kinds:
                if kind in by_kind and c not in by_kind[kind]:
                    supported = ", ".join(sorted(by_kind[kind]))
                    return Block("unsupported", f"does not support {c} (supports {supported})", c)
        if self.failed:
            for c in self.knowledge.tools[tool_id].requires:
                if c in self.failed:
                    return Block("data", f"requires {c}, which the inputs fail", c)
        return None

    def tool_reason(self, tool_id: str) -> str | None:
        block = self.tool_block(tool_id)
        return block.reason if block else None

    def tools(self, op_id: str) -> tuple[list[Tool], list[Pruned]]:
        tools, pruned = [], []
        for tool_id in self.index.ops[op_id].tools if op_id in self.index.ops else ():
            why = self.tool_reason(tool_id)
            if why is None:
                tools.append(self.knowledge.tools[tool_id])
            else:
                pruned.append(Pruned(kind="tool", id=tool_id, reason=why))
        return tools, pruned

    def verdict(self, op_id: str) -> tuple[str | None, list[Pruned]]:
        hit = self.verdicts.get(op_id)
        if hit is None:
            block, pruned = self.blocks[op_id] = self._verdict(op_id)
            hit = self.verdicts[op_id] = (block.reason if block else None, pruned)
        return hit

    def block(self, op_id: str) -> Block | None:
        """Why the context rules the operation out, as data; None when it may run."""
        self.verdict(op_id)
        return self.blocks[op_id][0]

    def _verdict(self, op_id: str) -> tuple[Block | None, list[Pruned]]:
        entry = self.index.ops[op_id]
        if op_id in self.spec.excluded_operations:  # never planned, however typical of the analysis
            return Block("refused", "is refused by the request"), []
        if self.assay and entry.assays and self.assay not in entry.assays:
            return Block("assay", f"applies to {', '.join(entry.assays)}, not to {self.assay}"), []
        for c in entry.requires:
            if c in self.failed:
                return Block("data", f"requires {c}, which the inputs fail", c), []
        tools, pruned = self.tools(op_id)
        if not tools:
            reasons = "; ".join(f"{p.id}: {p.reason}" for p in pruned) or "no tool in the knowledge base"
            blocks = tuple(b for p in pruned if (b := self.tool_block(p.id)))
            return Block("no_tool", f"no usable tool ({reasons})", tools=blocks), pruned
        return None, pruned


def usable_tools(knowledge: Knowledge, spec: TaskSpec, operation: str) -> tuple[list[Tool], list[Pruned]]:
    return _Context(knowledge, spec).tools(operation)


def operation_block_reason(knowledge: Knowledge, spec: TaskSpec, op_id: str) -> tuple[str | None, list[Pruned]]:
    return _Context(knowledge, spec).verdict(op_id)


# --------------------------------------------------------------------------- the problem


class ProblemBuilder:
    """Builds the Problems of one spec: the best plan's, and its alternatives' (forbidden
    operations, extra anchors), judging each operation's context once.

    Only the region of the graph the inputs can reach is read: a queue-based forward pass
    from the input datatypes over the consumer index, with every config-provided reference
    counted as available (an over-approximation: whether a reference is supplied or built
    only changes the cost). Relevance pruning inside that region then gives exactly the
    Problem a pass over the whole graph would give (same actions, same order)."""

    def __init__(self, knowledge: Knowledge, spec: TaskSpec):
        self.knowledge = knowledge
        self.spec = spec
        self.context = _Context(knowledge, spec)
        self.index = self.context.index
        self.initial = closure(knowledge, spec.input_types)
        self.examined: list[str] = []  # operations whose context was judged
        self._forward_region()
        self._config_actions: dict[str, Action] | None = None
        # built once per operation and shared by every variant's Problem (both are immutable)
        self._actions: dict[str, Action] = {}
        self._op_pruned: dict[str, Pruned] = {}

    def _judge(self, op_id: str) -> bool:
        if op_id not in self.context.verdicts:
            self.examined.append(op_id)
        return self.context.verdict(op_id)[0] is None

    def _forward_region(self) -> list[str]:
        """Unblocked operations reachable from the inputs when every reference, and everything
        the references alone make (the index's base facts), is available; plus the base
        operations that make what those operations and the goals need."""
        index = self.index
        base = index.base_facts
        done: set[str] = set()  # facts whose consumers were notified
        seen: set[str] = set(self.initial)
        queue: deque[str] = deque(f for f in sorted(self.initial) if f not in base)
        waiting: dict[str, int] = {}
        region: list[str] = []
        self._in_region: set[str] = set()

        def fire(op_id: str) -> None:
            if not self._judge(op_id):
                return
            region.append(op_id)
            self._in_region.add(op_id)
            for f in index.ops[op_id].add:
                if f not in seen:
                    seen.add(f)
                    if f not in base:
                        queue.append(f)

        while queue:
            f = queue.popleft()
            done.add(f)
            for op_id in index.consumers.get(f, ()):
                w = waiting.get(op_id)
                if w is None:
                    w = sum(1 for p in index.ops[op_id].pre if p not in done and p not in base)
                else:
                    w -= 1
                waiting[op_id] = w
                if w == 0:
                    fire(op_id)
        self._needed: set[str] = set()
        self.region = region
        needs = {self.spec.target_output.semantic_type}
        for op_id in region:
            needs |= index.ops[op_id].pre
        self._add_base(needs, self.spec.required_operations)
        return region

    def _add_base(self, facts, anchors=()) -> None:
        """Add the base operations (reachable from references alone) that make `facts`, or
        are anchors, with the base operations their own inputs need (backwards)."""
        index = self.index
        stack: list[str] = []

        def need(fs) -> None:
            for f in fs:
                if f not in self._needed:
                    self._needed.add(f)
                    if f in index.base_facts:
                        stack.append(f)

        def admit(op_id: str) -> None:
            if op_id in self._in_region or op_id not in index.base_ops or not self._judge(op_id):
                return
            self.region.append(op_id)
            self._in_region.add(op_id)
            need(index.ops[op_id].pre)

        need(facts)
        for a in anchors:
            admit(a)
        while stack:
            f = stack.pop()
            for p in index.producers.get(f, ()):
                if not p.startswith("provide:"):
                    admit(p)

    def _derivable(self) -> frozenset[str]:
        """Facts the inputs make without any reference from config (forward closure)."""
        index = self.index
        return _forward_closure(self.initial, [(index.ops[o].pre, index.ops[o].add) for o in self.region])

    def config_actions(self) -> dict[str, Action]:
        """`provide:<dt>` for the references the region needs that the inputs can neither give
        nor make (a Kraken2 database buildable from the given genomes is built, not requested);
        decided before alternatives forbid operations, so an alternative plan never swaps
        building it for asking for it."""
        if self._config_actions is None:
            index = self.index
            wanted: set[str] = set()
            facts = {self.spec.target_output.semantic_type}
            for op_id in self.region:
                facts |= index.ops[op_id].pre
            for a in self.spec.required_operations:
                if a in index.ops:
                    facts |= index.ops[a].pre
            for f in facts:
                for p in index.producers.get(f, ()):
                    if p.startswith("provide:"):
                        wanted.add(p[8:])
            wanted -= self.initial
            derivable = self._derivable() if wanted else frozenset()
            self._config_actions = {
                f"provide:{dt}": Action(f"provide:{dt}", CONFIG_COST, frozenset(), index.config[dt], None)
                for dt in sorted(wanted) if dt not in derivable}
        return self._config_actions

    def problem(self, forbidden: frozenset[str] = frozenset(), anchors: tuple[str, ...] | None = None,
                relevant: bool = True) -> Problem:
        """The Problem (relevance-pruned unless `relevant` is False: then every action of the
        forward region, as the PDDL oracle may check the pruning too)."""
        index = self.index
        anchors = tuple(self.spec.required_operations) if anchors is None else tuple(anchors)
        for a in anchors:  # a refused anchor is explained by its verdict
            if a in index.ops:
                self._judge(a)
        self._add_base((), anchors)
        actions: dict[str, Action] = {}
        made = self._actions
        for op_id in sorted(self.region):
            if op_id not in forbidden:
                if op_id not in made:
                    e = index.ops[op_id]
                    made[op_id] = Action(op_id, e.cost, e.pre, e.add, op_id)
                actions[op_id] = made[op_id]
        actions.update(self.config_actions())
        pruned: list[Pruned] = []
        blocked: dict[str, str] = {}
        for op_id in sorted(self.context.verdicts):
            why, tool_pruned = self.context.verdicts[op_id]
            pruned.extend(tool_pruned)
            if why is not None:
                blocked[op_id] = why
                if op_id not in self._op_pruned:
                    self._op_pruned[op_id] = Pruned(kind="operation", id=op_id, reason=why)
                pruned.append(self._op_pruned[op_id])
        problem = Problem(self.initial, self.spec.target_output.semantic_type, anchors, actions,
                          self.spec.max_hops, pruned, blocked)
        return relevant_only(problem) if relevant else problem


def build_problem(knowledge: Knowledge, spec: TaskSpec, forbidden: frozenset[str] = frozenset()) -> Problem:
    return ProblemBuilder(knowledge, spec).problem(forbidden)


def _forward_closure(initial: frozenset[str], actions) -> frozenset[str]:
    """Facts reachable from `initial` with (pre, add) actions: queue-based, each action fires once."""
    facts = set(initial)
    waiting: dict[int, int] = {}
    by_pre: dict[str, list[int]] = {}
    queue: deque[str] = deque()

    def fire(add) -> None:
        for f in add:
            if f not in facts:
                facts.add(f)
                queue.append(f)

    for i, (pre, _add) in enumerate(actions):
        missing = [p for p in pre if p not in facts]
        if missing:
            waiting[i] = len(missing)
            for p in missing:
                by_pre.setdefault(p, []).append(i)
    for i, (_pre, add) in enumerate(actions):
        if i not in waiting:
            fire(add)
    while queue:
        f = queue.popleft()
        for i in by_pre.get(f, ()):
            waiting[i] -= 1
            if waiting[i] == 0:
                fire(actions[i][1])
    return frozenset(facts)


def relevant_only(problem: Problem) -> Problem:
    """Keep actions that are forward-reachable from the inputs and backward-relevant to a goal.

    Which ones depends only on the initial facts, the target, the anchors and the actions: kept
    per process under exactly those (a request planned again gives the same region)."""
    key = problem.search_key()
    relevant = None if key is None else _RELEVANT.get(key)
    if relevant is None:
        relevant = frozenset(_backward_relevant(problem, _forward_reachable(problem)))
        if key is not None:  # None: an action built with mutable sets, not kept
            _RELEVANT.keep(key, relevant)
    kept = {k: v for k, v in problem.actions.items() if k in relevant}
    return Problem(problem.initial, problem.target, problem.anchors, kept, problem.max_hops, problem.pruned,
                   problem.blocked)


_RELEVANT_MAX = 4096
_RELEVANT: Memo[tuple, frozenset[str]] = Memo(_RELEVANT_MAX)


def _forward_reachable(problem: Problem) -> set[str]:
    """The actions reachable from the initial facts: relaxed reachability (ignore deletes; there
    are none), each action counting down its missing inputs."""
    facts = set(problem.initial)
    reachable: set[str] = set()
    waiting: dict[str, int] = {}
    by_pre: dict[str, list[Action]] = {}
    queue: deque[str] = deque()

    def fire(a: Action) -> None:
        reachable.add(a.id)
        for f in a.add:
            if f not in facts:
                facts.add(f)
                queue.append(f)

    ready = []
    for a in problem.actions.values():
        missing = [p for p in a.pre if p not in facts]
        if missing:
            waiting[a.id] = len(missing)
            for p in missing:
                by_pre.setdefault(p, []).append(a)
        else:
            ready.append(a)
    for a in ready:
        fire(a)
    while queue:
        f = queue.popleft()
        for a in by_pre.get(f, ()):
            waiting[a.id] -= 1
            if waiting[a.id] == 0:
                fire(a)
    return reachable


def _backward_relevant(problem: Problem, reachable: set[str]) -> set[str]:
    """The reachable actions that produce a datatype needed for the target or an anchor's
    inputs, transitively (and the reachable anchors themselves)."""
    actions = problem.actions
    producers: dict[str, list[Action]] = {}
    for a in actions.values():
        if a.id in reachable:
            for f in a.add:
                producers.setdefault(f, []).append(a)
    relevant: set[str] = set()
    needed: set[str] = set()
    todo: deque[str] = deque()

    def need(fs) -> None:
        for f in fs:
            if f not in needed:
                needed.add(f)
                todo.append(f)

    need((problem.target,))
    for anchor in problem.anchors:
        if anchor in reachable and anchor not in relevant:
            relevant.add(anchor)
            need(actions[anchor].pre)
    while todo:
        f = todo.popleft()
        for a in producers.get(f, ()):
            if a.id not in relevant:
                relevant.add(a.id)
                need(a.pre)
    return relevant
