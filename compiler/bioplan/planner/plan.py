"""Search + rank stage: TaskSpec -> PlanResult (top-K distinct ranked plans, pruning record).

1. `build_problem` prunes by context and relevance (graph.py);
2. A* finds the minimum-cost plan (search.py);
3. alternatives: Yen-style (forbid one non-anchor operation of the best plan at
   a time) and motif variants (a motif's operations added as anchors);
4. each raw plan becomes a DAG of PlanSteps wired to their sources;
5. ranking combines cost, motif prior and tool quality, explained per plan.
If nothing is found, `explain_failure` says which datatype or constraint
blocked the request and what would unblock it.
"""

from __future__ import annotations

from bioplan.errors import BioplanError, ConstraintViolationError, UnsatisfiableError
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype
from bioplan.models import Plan, PlanResult, PlanStep, Pruned, TaskSpec
from bioplan.planner.graph import Block, Problem, ProblemBuilder, _Context, closure, usable_tools
from bioplan.planner.search import MAX_EXPANSIONS, RawPlan, SearchLimitReached, astar_search

W_COST, W_MOTIF, W_TOOLS = 0.5, 0.3, 0.2
# Taken off a plan's score per input it leaves unread that another candidate reads: the user's genome
# and annotation beside the reads say which route they meant (a miRNA route that ignores both is not
# the plan for "a count matrix from these reads"), whatever a motif's prior says.
W_UNREAD_INPUT = 0.1
# The alternative plans (Yen-style and motif variants) are optional: their searches share one
# allowance of A* expansions per request, each search also capped at MAX_EXPANSIONS (search.py).
# Measured on both eval sets (1,527 cases, 5,982 searches): at most 73 expansions in one search,
# 12 in a first search and 393 in all of one request's alternative searches. A request naming
# dozens of steps needs far more (each motif variant adds a motif's operations to an already large
# problem, and an expansion there costs ~10 ms): it keeps its optimal first plan with fewer
# alternatives, said in a warning. Expansions, not seconds: the same plans on every machine.
ALTERNATIVES_EXPANSIONS = 1_000


def raw_to_plan(knowledge: Knowledge, spec: TaskSpec, raw: RawPlan) -> Plan:
    """Wire a raw action sequence into steps with sources and edges."""
    # available concrete datatypes -> (source, depth, order)
    available: list[tuple[str, str, int, int]] = []
    for inp in spec.inputs:
        if not any(a[0] == inp.datatype and a[1] == f"input:{inp.datatype}" for a in available):
            available.append((inp.datatype, f"input:{inp.datatype}", 0, -1))
    for dt in spec.input_types:
        if not any(a[0] == dt for a in available):
            available.append((dt, f"input:{dt}", 0, -1))
    steps: list[PlanStep] = []
    config_inputs: list[str] = []
    for order, action_id in enumerate(raw.actions):
        if action_id.startswith("provide:"):
            dt = action_id.split(":", 1)[1]
            available.append((dt, f"config:{dt}", 0, order))
            continue
        op = knowledge.operations[action_id]
        sources: dict[str, str] = {}
        inputs: dict[str, str] = {}
        depth = 0
        for port, spec_port in op.inputs.items():
            candidates = [a for a in available if is_subtype(knowledge, a[0], spec_port.datatype)]
            if not candidates:
                if spec_port.optional:
                    continue
                raise AssertionError(f"plan wiring: no source for {action_id}.{port}")  # search guarantees one
            # most derived first (deepest chain), then the most recent producer
            concrete, source, d, _ = max(candidates, key=lambda a: (a[2], a[3]))
            sources[port] = source
            inputs[port] = concrete
            if source.startswith("config:") and concrete not in config_inputs:
                config_inputs.append(concrete)
            depth = max(depth, d)
        step_depth = depth + 1
        outputs = {port: p.datatype for port, p in op.outputs.items()}
        for dt in outputs.values():
            available.append((dt, action_id, step_depth, order))
        preconditions = tuple(dict.fromkeys(op.requires))
        steps.append(PlanStep(id=action_id, operation=action_id, inputs=inputs, outputs=outputs,
                              preconditions=preconditions, sources=sources))
    steps = _refine_sources(knowledge, steps)
    steps = _wire_optional_from_plan(knowledge, steps)
    steps = _match_gene_set_namespace(knowledge, spec, steps)
    steps = _drop_unused(knowledge, spec, steps)
    kept = {s.id for s in steps}
    edges = tuple(sorted({(src, s.id) for s in steps for src in s.sources.values() if src in kept}))
    used_config = sorted({src.split(":", 1)[1] for s in steps for src in s.sources.values()
                          if src.startswith("config:")})
    return Plan(cost=raw.cost, steps=tuple(steps), edges=edges, config_inputs=tuple(used_config),
                depth=_longest_chain(steps))


def _longest_chain(steps: list[PlanStep]) -> int:
    """Number of operations on the longest dependency chain (what max_hops bounds)."""
    by_id = {s.id: s for s in steps}
    memo: dict[str, int] = {}

    def depth(sid: str) -> int:
        if sid not in memo:
            memo[sid] = 1 + max((depth(src) for src in by_id[sid].sources.values() if src in by_id), default=0)
        return memo[sid]

    return max((depth(s.id) for s in steps), default=0)


class _Dependencies:
    """Which steps of `steps` (a list the caller changes in place) consume, directly or
    transitively, an output of which: each step's upstream set computed once, until `changed`."""

    def __init__(self, steps: list[PlanStep]):
        self.steps = steps
        self.changed()

    def changed(self) -> None:
        """A step's sources changed: forget what was derived from them."""
        self.by_id: dict[str, PlanStep] | None = None
        self.upstream: dict[str, set[str]] = {}

    def depends_on(self, later: str, earlier: str) -> bool:
        """True if step `later` consumes, directly or transitively, an output of step `earlier`
        (or is it): `earlier` is among the sources reached from `later`."""
        up = self.upstream.get(later)
        if up is None:
            if self.by_id is None:
                self.by_id = {s.id: s for s in self.steps}
            by_id = self.by_id
            up = self.upstream[later] = set()
            stack = [later]
            while stack:
                cur = stack.pop()
                if cur in up:
                    continue
                up.add(cur)
                if cur in by_id:
                    stack.extend(by_id[cur].sources.values())
        return earlier in up


def _refine_sources(knowledge: Knowledge, steps: list[PlanStep]) -> list[PlanStep]:
    """Feed each step the most processed data the plan makes for it.

    The search orders actions arbitrarily among independent ones, so an aligner may
    be wired to the raw reads although the plan also trims them. A port takes a
    strictly more specific subtype produced by another step, or what a step derived
    from its current source makes that the port accepts (Bracken's re-estimated
    profile, made from Kraken2's report, for the merged table: a supertype, but more
    processed), unless that step depends on this one (no cycles) or the operation
    inspects data as delivered.
    """
    fed_by: dict[tuple[str, str], set[str]] = {}  # every source a port had: never fed twice by one
    deps = _Dependencies(steps)
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(steps):
            operation = knowledge.operations[s.operation]
            if not operation.refine_inputs:
                continue
            for port, current in s.inputs.items():
                source = s.sources.get(port, "")
                seen = fed_by.setdefault((s.id, port), {source})
                for t in steps:
                    # no cycles; never back to a source, nor to data the current source was derived from
                    if t.id == s.id or deps.depends_on(t.id, s.id) or (t.id != source and (
                            t.id in seen or deps.depends_on(source, t.id))):
                        continue
                    better = [d for d in t.outputs.values() if d != current and is_subtype(knowledge, d, current)]
                    if not better and t.id != source and port in operation.inputs and deps.depends_on(t.id, source):
                        accepts = operation.inputs[port].datatype
                        better = [d for d in t.outputs.values() if is_subtype(knowledge, d, accepts)]
                    if better:
                        steps[i] = s = s.model_copy(update={
                            "inputs": {**s.inputs, port: better[0]}, "sources": {**s.sources, port: t.id}})
                        deps.changed()
                        current, source = better[0], t.id
                        seen.add(t.id)
                        changed = True
    return steps


def _wire_optional_from_plan(knowledge: Knowledge, steps: list[PlanStep]) -> list[PlanStep]:
    """An optional input left unwired takes what another step of the plan makes of it.

    The search may order a step before the producer of its optional input (pseudobulk DE before
    the cell-type annotation it groups by); the port then reads that producer's output, unless
    the producer depends on the step (no cycles).
    """
    deps = _Dependencies(steps)
    for i, s in enumerate(steps):
        for port, spec_port in knowledge.operations[s.operation].inputs.items():
            if not spec_port.optional or port in s.inputs:
                continue
            for t in steps:
                made = [d for d in t.outputs.values() if is_subtype(knowledge, d, spec_port.datatype)]
                if t.id != s.id and made and not deps.depends_on(t.id, s.id):
                    steps[i] = s = s.model_copy(update={
                        "inputs": {**s.inputs, port: made[0]}, "sources": {**s.sources, port: t.id}})
                    deps.changed()
                    break
    return steps


def _match_gene_set_namespace(knowledge: Knowledge, spec: TaskSpec, steps: list[PlanStep]) -> list[PlanStep]:
    """A step that tests genes against a gene set library reads the gene list in the library's
    namespace when the plan makes one (GO on Entrez ids for an Entrez GMT, not on Ensembl ids)."""
    ns = spec.gene_set_namespace
    if not ns:
        return steps
    deps = _Dependencies(steps)
    for i, s in enumerate(steps):
        if "gene_set_library" not in s.inputs.values():
            continue
        for port, current in s.inputs.items():
            if knowledge.datatypes[current].id_namespace == ns or not is_subtype(knowledge, current, "gene_list"):
                continue
            wanted = knowledge.operations[s.operation].inputs[port].datatype
            for t in steps:
                if t.id == s.id or deps.depends_on(t.id, s.id):
                    continue
                match = [d for d in t.outputs.values()
                         if knowledge.datatypes[d].id_namespace == ns and is_subtype(knowledge, d, wanted)]
                if match:
                    steps[i] = s = s.model_copy(update={"inputs": {**s.inputs, port: match[0]},
                                                        "sources": {**s.sources, port: t.id}})
                    deps.changed()
                    break
    return steps


def _drop_unused(knowledge: Knowledge, spec: TaskSpec, steps: list[PlanStep]) -> list[PlanStep]:
    """Remove steps whose outputs nothing uses (never anchors or the target's producer)."""
    target = spec.target_output.semantic_type
    while True:
        consumed = {src for s in steps for src in s.sources.values()}
        keep = [s for s in steps
                if s.id in consumed or s.id in spec.required_operations
                or any(is_subtype(knowledge, d, target) for d in s.outputs.values())]
        # only the last producer of the target is kept as the target step
        if len(keep) == len(steps):
            return steps
        steps = keep


def _motif_term(knowledge: Knowledge, ops: set[str]) -> tuple[float, str | None]:
    best, best_id = 0.0, None
    for motif in knowledge.motifs.values():
        mops = set(motif.operations)
        if not mops:
            continue
        inter = len(ops & mops)
        # coverage of the motif and of the plan: a motif that explains the whole plan scores high
        value = motif.prior * (inter / len(mops)) * (inter / max(len(ops), 1))
        if value > best + 1e-12 or (abs(value - best) <= 1e-12 and best_id and motif.id < best_id):
            best, best_id = value, motif.id
    return best, best_id if best > 0 else None


def _tool_term(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> float:
    qualities = []
    for step in plan.steps:
        tools, _ = usable_tools(knowledge, spec, step.operation)
        qualities.append(max((t.quality for t in tools), default=0.0))
    return sum(qualities) / len(qualities) if qualities else 0.0


def _essential(knowledge: Knowledge, spec: TaskSpec, motif_id: str | None) -> set[str]:
    """The motif's essential operations, when the study is of the motif's assay: duplicate marking
    is essential to germline calling from DNA, never to an RNA-seq plan the same motif half-covers."""
    motif = knowledge.motifs[motif_id] if motif_id else None
    if motif is None or (motif.assays and spec.constraints.get("assay") not in motif.assays):
        return set()
    return set(motif.essential)


def _ranking_cost(knowledge: Knowledge, spec: TaskSpec, plan: Plan, motif: str | None) -> float:
    """The plan's cost less that of the steps its motif calls essential: a step an expert always
    runs there (duplicate marking before germline calling) is no extra work, so the shorter plan
    that skips it does not win on cost alone. Only on data the plan made itself: the user's own
    BAMs are taken as they come (they may be analysis-ready already)."""
    essential = _essential(knowledge, spec, motif)
    saved = sum(knowledge.operations[s.operation].cost for s in plan.steps if s.operation in essential
                and not any(src.startswith("input:") for src in s.sources.values()))
    return plan.cost - saved


def inputs_read(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> frozenset[str]:
    """The datatypes of the user's inputs that some step of the plan reads (a subtype read as its supertype)."""
    read = {src.removeprefix("input:") for s in plan.steps for src in s.sources.values() if src.startswith("input:")}
    return frozenset(i.datatype for i in spec.inputs
                     if any(d == i.datatype or is_subtype(knowledge, i.datatype, d) for d in read))


def rank_plans(knowledge: Knowledge, spec: TaskSpec, plans: list[Plan]) -> list[Plan]:
    if not plans:
        return []
    motifs = [_motif_term(knowledge, {s.operation for s in p.steps}) for p in plans]
    costs = [_ranking_cost(knowledge, spec, p, motif) for p, (_, motif) in zip(plans, motifs)]
    best_cost = min(costs)
    reads = [inputs_read(knowledge, spec, p) for p in plans]
    readable = frozenset().union(*reads)  # an input no candidate reads costs none of them
    scored = []
    for p, (motif_term, motif), cost, read in zip(plans, motifs, costs, reads):
        cost_term = best_cost / cost if cost > 0 else 1.0
        tool_term = _tool_term(knowledge, spec, p)
        unread = len(readable - read)
        score = W_COST * cost_term + W_MOTIF * motif_term + W_TOOLS * tool_term - W_UNREAD_INPUT * unread
        terms = {"cost": round(cost_term, 4), "motif": round(motif_term, 4), "tools": round(tool_term, 4)}
        if unread:
            terms["unread_inputs"] = unread
        scored.append(p.model_copy(update={"score": round(score, 4), "motif": motif, "score_terms": terms}))
    scored.sort(key=lambda p: (-p.score, p.cost, [s.id for s in p.steps]))
    return [p.model_copy(update={"rank": i + 1}) for i, p in enumerate(scored)]


def _with_anchors(spec: TaskSpec, extra: list[str]) -> TaskSpec:
    anchors = tuple(dict.fromkeys(list(spec.required_operations) + extra))
    return spec.model_copy(update={"required_operations": anchors})


class _Budget:
    """The expansions left to a request's optional searches, and the searches they cut short."""

    def __init__(self, expansions: int):
        self.left = expansions
        self.stopped = 0  # searches stopped at a limit, or not run because nothing was left

    def search(self, problem: Problem) -> RawPlan | None:
        if self.left <= 0:
            self.stopped += 1
            return None
        limit = min(self.left, MAX_EXPANSIONS)
        try:
            raw, used = astar_search(problem, limit)
        except SearchLimitReached:
            self.left -= limit
            self.stopped += 1
            return None
        self.left -= used
        return raw

    def warning(self, spec: TaskSpec) -> str:
        return (f"planning budget: {self.stopped} of the searches for alternative plans were cut short by the "
                f"limit of {ALTERNATIVES_EXPANSIONS} search expansions that one request's alternatives share "
                f"({len(spec.required_operations)} required operations): the first plan is the optimal one, but "
                "fewer alternatives were compared; to compare more, plan fewer steps per request")


def _first_search(knowledge: Knowledge, spec: TaskSpec, problem: Problem) -> RawPlan:
    """The minimum-cost plan, or the error that says why there is none (or why the search stopped)."""
    try:
        raw, _ = astar_search(problem, MAX_EXPANSIONS)
    except SearchLimitReached as stop:
        raise UnsatisfiableError(
            f"the search for the best plan stopped at its limit of {stop.limit} expansions: the request asks "
            f"for {len(spec.required_operations)} operations together ({len(problem.actions)} candidate steps), "
            "more than one plan can search within that limit",
            ["split the request into smaller ones (a few steps each), or name the steps of one pipeline only"],
            {"search_limit": stop.limit, "required_operations": list(spec.required_operations)}) from None
    if raw is None:
        raise explain_failure(knowledge, spec, problem)
    return raw


def search_plans(knowledge: Knowledge, spec: TaskSpec, top_k: int = 3) -> PlanResult:
    builder = ProblemBuilder(knowledge, spec)  # the region and context verdicts, shared by all variants
    problem = builder.problem()
    raw = _first_search(knowledge, spec, problem)
    found: dict[frozenset[str], Plan] = {}
    pruned: list[Pruned] = list(problem.pruned)
    wired: set[RawPlan] = set()  # a variant often finds the best plan again: wired once, the same outcome
    budget = _Budget(ALTERNATIVES_EXPANSIONS)

    def add(raw_plan: RawPlan | None, why_rejected: str | None = None) -> None:
        if raw_plan is None or raw_plan in wired:
            return
        wired.add(raw_plan)
        plan = raw_to_plan(knowledge, spec, raw_plan)
        key = frozenset(s.operation for s in plan.steps)
        if key in found:
            return
        if plan.depth > spec.max_hops:
            pruned.append(Pruned(kind="plan", id="+".join(sorted(key)),
                                 reason=f"{plan.depth} operations deep, over max_hops={spec.max_hops}"))
            return
        found[key] = plan

    add(raw)
    if not found:
        raise explain_failure(knowledge, spec, problem)
    best = next(iter(found.values()))
    # Yen-style alternatives: forbid one non-anchor operation of the best plan at a time
    for step in best.steps:
        if step.operation in spec.required_operations:
            continue
        add(budget.search(builder.problem(forbidden=frozenset([step.operation]))))
    # motif variants: the motif's applicable operations as extra anchors, and its essential ones alone
    ops = {s.operation for s in best.steps}
    for motif in sorted(knowledge.motifs.values(), key=lambda m: m.id):
        if not ops & set(motif.operations):
            continue
        for wanted in (motif.operations, tuple(sorted(_essential(knowledge, spec, motif.id)))):
            extra = [o for o in wanted if o in problem.actions and o not in ops]
            if extra:
                add(budget.search(builder.problem(anchors=_with_anchors(spec, extra).required_operations)))
    ranked = rank_plans(knowledge, spec, list(found.values()))[:top_k]
    unique_pruned = list(dict.fromkeys(pruned))
    warnings = spec.warnings + ((budget.warning(spec),) if budget.stopped else ())
    return PlanResult(spec=spec, anchors=tuple(spec.required_operations), plans=tuple(ranked),
                      pruned=tuple(unique_pruned), warnings=warnings)


# --------------------------------------------------------------------------- why not


def _producers(knowledge: Knowledge, datatype: str) -> list[str]:
    return sorted(op.id for op in knowledge.operations.values()
                  if any(is_subtype(knowledge, p.datatype, datatype) for p in op.outputs.values()))


def _derivable(knowledge: Knowledge, spec: TaskSpec) -> set[str]:
    """Facts reachable from the inputs with every unblocked operation (no relevance pruning)."""
    facts = set(closure(knowledge, spec.input_types))
    all_actions = _all_unblocked_actions(knowledge, spec)
    changed = True
    while changed:
        changed = False
        for pre, add in all_actions:
            if pre <= facts and not add <= facts:
                facts |= add
                changed = True
    return facts


def explain_failure(knowledge: Knowledge, spec: TaskSpec, problem: Problem):
    """The error that says what blocked the request and what would unblock it."""
    facts = _derivable(knowledge, spec)
    # the search judged only the operations the inputs reach; a refusal names every blocked one
    context = _Context(knowledge, spec)
    blocks = {op: block for op in knowledge.operations if (block := context.block(op)) is not None}
    details: dict = {"blocked_operations": dict(sorted((op, b.reason) for op, b in blocks.items()))}

    # 1. an anchor the context or the data ruled out
    for anchor in spec.required_operations:
        if anchor in blocks:
            block = blocks[anchor]
            # a context or data constraint rules it out (not only the lack of a tool)
            violated = any(b.cause in ("assay", "data", "unsupported") for b in block.all())
            cls = ConstraintViolationError if violated else UnsatisfiableError
            hints = [_unblock_hint(knowledge, spec, anchor, block)]
            return cls(f"operation {anchor!r} cannot run: it {block.reason}", hints, details)

    # 2. a datatype nothing can derive from the inputs
    goals = [spec.target_output.semantic_type] + [
        p.datatype for a in spec.required_operations for p in knowledge.operations[a].inputs.values() if not p.optional
    ]
    missing = [g for g in dict.fromkeys(goals) if g not in facts]
    if missing:
        return _missing_datatype_error(knowledge, spec, missing[0], facts, blocks, details)

    # 3. everything is reachable on its own, but not within max_hops or not together
    return UnsatisfiableError(
        f"no plan reaches {spec.target_output.semantic_type!r} through "
        f"{', '.join(spec.required_operations) or 'the graph'} within max_hops={spec.max_hops}",
        ["raise --max-hops, or drop one of the required operations"], details)


def _missing_datatype_error(knowledge: Knowledge, spec: TaskSpec, missing: str, facts: set[str],
                            blocks: dict[str, Block], details: dict) -> BioplanError:
    """No plan makes `missing` (the target, or an anchor's input): which inputs to add, or which
    blocked operation on the way to unblock."""
    blocked = {op: block.reason for op, block in blocks.items()}
    leaves = _direct_missing(knowledge, facts, missing, blocked)
    deeper = {leaf: [d for d in _missing_leaves(knowledge, facts, leaf, blocked) if d not in leaves]
              for leaf in leaves}
    # operations that would have made the missing datatype but the context ruled out
    blocked_on_path = sorted(op for op in _producers(knowledge, missing) if op in blocked)
    hints: list[str] = []
    for leaf in leaves[:4]:
        dt = knowledge.datatypes.get(leaf)
        formats = f" ({', '.join(dt.formats)})" if dt and dt.formats else ""
        hints.append(f"add an input of type {leaf!r}{formats} with -i FILE")
    for leaf, sources in deeper.items():
        if sources:
            hints.append(f"or add {' + '.join(repr(d) for d in sources)}, from which bioplan derives {leaf!r}")
    for op in blocked_on_path[:3]:
        hints.append(_unblock_hint(knowledge, spec, op, blocks[op]))
    if not hints:
        hints.append("state what you start from (the input files) and what you want at the end")
    details = {**details, "missing_datatype": missing, "missing_inputs": leaves, "available": sorted(facts)}
    is_target = missing == spec.target_output.semantic_type
    needed_by = "the requested result" if is_target else "a requested operation"
    if blocked_on_path and not leaves:
        op = blocked_on_path[0]
        return ConstraintViolationError(
            f"no plan produces {missing!r} ({needed_by}): operation {op!r} {blocked[op]}", hints, details)
    have = ", ".join(spec.input_types) or "no input files"
    return UnsatisfiableError(
        f"no plan produces {missing!r} ({needed_by}) from {have}; "
        f"nothing derives it without {', '.join(repr(x) for x in leaves) or 'a missing input'}", hints, details)


def _all_unblocked_actions(knowledge: Knowledge, spec: TaskSpec):
    problem_actions = []
    context = _Context(knowledge, spec)
    for op_id, op in knowledge.operations.items():
        why, _ = context.verdict(op_id)
        if why is None:
            problem_actions.append((frozenset(p.datatype for p in op.inputs.values() if not p.optional),
                                    closure(knowledge, (p.datatype for p in op.outputs.values()))))
    for dt in knowledge.datatypes.values():
        if dt.config_provided:
            problem_actions.append((frozenset(), closure(knowledge, [dt.id])))
    return problem_actions


def _direct_missing(knowledge: Knowledge, facts: set[str], datatype: str, blocked: dict[str, str]) -> list[str]:
    """The inputs of the nearest producer of `datatype` that nothing available provides."""
    producers = [op for op in _producers(knowledge, datatype) if op not in blocked]
    best: list[str] | None = None
    for op in producers:
        missing = [p.datatype for p in knowledge.operations[op].inputs.values()
                   if not p.optional and not any(is_subtype(knowledge, f, p.datatype) for f in facts)]
        if best is None or len(missing) < len(best):
            best = missing
    return best if best else [datatype]


def _missing_leaves(knowledge: Knowledge, facts: set[str], datatype: str, blocked: dict[str, str],
                    seen: set[str] | None = None) -> list[str]:
    """Datatypes the user could add that would make `datatype` derivable (nearest first)."""
    seen = set() if seen is None else seen
    if datatype in facts or datatype in seen:
        return []
    seen.add(datatype)
    producers = [op for op in _producers(knowledge, datatype) if op not in blocked]
    if not producers:
        return [datatype]
    # the producer missing the fewest inputs is the nearest way in
    best: list[str] | None = None
    for op in producers:
        missing = []
        for p in knowledge.operations[op].inputs.values():
            if p.optional or any(is_subtype(knowledge, f, p.datatype) for f in facts):
                continue
            missing += _missing_leaves(knowledge, facts, p.datatype, blocked, seen)
        if best is None or len(missing) < len(best):
            best = missing
    return list(dict.fromkeys([datatype] if best == [] else (best or [datatype])))


def _unblock_hint(knowledge: Knowledge, spec: TaskSpec, op: str, block: Block) -> str:
    """What would let `op` run: the `hint` of a failed data constraint (ontology/constraints.yaml;
    the first in the knowledge's order), else the remedy for the kind of block."""
    causes = block.all()
    failed = {b.constraint for b in causes if b.cause == "data"}
    hinted = [c.hint for c in knowledge.constraints.values() if c.id in failed and c.hint]
    if hinted:
        return hinted[0]
    if block.cause == "assay":
        return f"drop {op!r} from the request or correct the assay ({spec.constraints.get('assay')})"
    if block.cause == "refused":
        return f"drop the words that refuse {op!r}, or the steps that need it"
    if any(b.cause == "excluded" for b in causes):
        return f"allow one of the tools that implement {op!r}"
    if any(b.cause == "unsupported" for b in causes):
        return f"relax the constraint that rules out every tool of {op!r}: {block.reason}"
    return f"{op!r}: {block.reason}"
