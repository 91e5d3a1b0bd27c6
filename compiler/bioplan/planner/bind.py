"""Bind stage: Plan -> Plan with a tool on every step (Tool Binding Index: operation -> candidate tools).

Tools are filtered by the context constraints and the user's exclusions, then
chosen step by step in dependency order: preferred tools first, then quality.
A choice must agree on file formats with what feeds it (an aligner must read
the index format its indexer wrote); on a clash the binder backtracks, and a
plan no tool combination can run is reported with the clashing ports.
"""

from __future__ import annotations

from bioplan.errors import UnsatisfiableError
from bioplan.knowledge.models import Knowledge, Tool
from bioplan.models import Plan, PlanStep, Pruned, TaskSpec, topological_order
from bioplan.planner.graph import usable_tools


def _formats(spec: str) -> set[str]:
    return set(spec.split("|"))


def _candidates(knowledge: Knowledge, spec: TaskSpec, step: PlanStep) -> list[Tool]:
    tools, _ = usable_tools(knowledge, spec, step.operation)
    preferred = set(spec.preferred_tools)
    op = knowledge.operations[step.operation]
    supplied = {i.datatype for i in spec.inputs}

    def uses_supplied_optional(t: Tool) -> bool:
        # a tool that reads an optional input the user gave (an id mapping table) honours it
        return any(port in t.inputs and p.optional and p.datatype in supplied for port, p in op.inputs.items())

    # a tool the user asked for is a requirement, not a tie-breaker: the binder backtracks
    # upstream choices (the indexer) until the requested aligner fits
    if any(t.id in preferred for t in tools):
        tools = [t for t in tools if t.id in preferred]
    honouring = setting_takers(knowledge, spec)
    return sorted(tools, key=lambda t: (not uses_supplied_optional(t), -honouring.count(t.id),
                                        not t.runnable_offline, -t.quality, t.id))


def setting_takers(knowledge: Knowledge, spec: TaskSpec) -> list[str]:
    """The tools that honour a setting the request gives whose knowledge says the other tools of its step do
    not (lexicon `unlike`: "TMM" beside DESeq2's own size factors), once per such setting: the tools honouring
    the most rank first among a step's candidates, so "normalise with TMM, then differential expression" runs
    edgeR (a tool the user names still wins; two methods for one step leave it to the quality)."""
    entries = {s.id: s for s in knowledge.lexicon.settings}
    return [t for s in dict.fromkeys(s.id for s in spec.settings if entries[s.id].unlike is not None)
            for t in {*entries[s].honoured_by, *(t for r in spec.settings if r.id == s for t in r.params)}]


def _compressed_variant(have: set[str], accepts: set[str]) -> bool:
    """fastq vs fastq.gz and fasta vs fasta.gz are read by the same tools."""
    strip = {h.removesuffix(".gz") for h in have}
    return bool(strip & {a.removesuffix(".gz") for a in accepts})


def bind_plan(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> tuple[Plan, list[Pruned]]:
    """The plan with a tool on every step, or UnsatisfiableError naming the clash."""
    steps = list(plan.steps)
    step_by_id = {s.id: s for s in steps}
    order = topological_order(steps)
    chosen: dict[str, Tool] = {}
    clashes: list[str] = []
    given: set[str] = set()  # formats of given inputs some tool did not read

    def assign(i: int) -> bool:
        if i == len(order):
            return True
        step = step_by_id[order[i]]
        for tool in _candidates(knowledge, spec, step):
            problem = None
            for port, source in step.sources.items():
                clash = _port_clash(knowledge, spec, tool, step, port, source, chosen, step_by_id)
                problem = clash[0] if clash else None
                if clash:
                    clashes.append(clash[0])
                    if source.startswith("input:"):
                        given.update(clash[1])
                    break
            if problem:
                continue
            chosen[step.id] = tool
            if assign(i + 1):
                return True
            del chosen[step.id]
        return False

    if not assign(0):
        # a given file in a format the tools do not read: how the user converts it (formats.yaml convert_hint)
        convert = [f"{knowledge.formats[f].convert_hint}" for f in sorted(given)
                   if f in knowledge.formats and knowledge.formats[f].convert_hint]
        raise UnsatisfiableError(
            "no combination of tools can run this plan: " + "; ".join(dict.fromkeys(clashes[:4])),
            convert + ["add a tool whose port formats match, or a format adapter, to the knowledge base"],
            {"clashes": list(dict.fromkeys(clashes))})
    pruned = [Pruned(kind="tool", id=t.id, reason=f"ranked below {chosen[s.id].id} for {s.operation}")
              for s in steps for t in _candidates(knowledge, spec, s) if t.id != chosen[s.id].id]
    bound = []
    for s in steps:
        tool = chosen[s.id]
        s = _without_unread_optional_ports(knowledge, s, tool)
        preconditions = list(s.preconditions) + [c for c in tool.requires if c not in s.preconditions]
        for port, dt in s.inputs.items():
            preconditions += checked_on_read(knowledge, spec, dt, s.sources.get(port, ""))
        bound.append(s.model_copy(update={"tool": tool.id, "preconditions": tuple(dict.fromkeys(preconditions))}))
    bound = _insert_adapters(knowledge, spec, bound, chosen, step_by_id)
    edges = tuple(sorted({(src, s.id) for s in bound for src in s.sources.values() if src in {b.id for b in bound}}))
    return plan.model_copy(update={"steps": tuple(bound), "edges": edges}), pruned


def checked_on_read(knowledge: Knowledge, spec: TaskSpec, datatype: str, source: str) -> list[str]:
    """The constraints reading `datatype` makes preconditions (constraints.yaml `checked_on_read`): a data
    constraint always; a context constraint (a layout) when the study holds it, on data given as inputs
    (its check is about the data as delivered)."""
    return [c.id for c in knowledge.constraints.values() if datatype in c.checked_on_read
            and (c.kind == "data" or c.id in spec.constraint_ids and source.startswith("input:"))]


def _without_unread_optional_ports(knowledge: Knowledge, step: PlanStep, tool: Tool) -> PlanStep:
    """The step without the optional inputs its tool does not read: a GTF wired to genome indexing
    serves STAR's index, not HISAT2's or BWA's, so it adds no check and no edge there."""
    op = knowledge.operations[step.operation]
    unread = {p for p in step.inputs if p in op.inputs and op.inputs[p].optional and p not in tool.inputs}
    if not unread:
        return step
    return step.model_copy(update={"inputs": {p: d for p, d in step.inputs.items() if p not in unread},
                                   "sources": {p: s for p, s in step.sources.items() if p not in unread}})


def _insert_adapters(knowledge: Knowledge, spec: TaskSpec, steps: list[PlanStep], chosen: dict[str, Tool],
                     step_by_id: dict[str, PlanStep]) -> list[PlanStep]:
    """Put a conversion step wherever a port reads another format than it is given (GFF3 -> GTF)."""
    out: list[PlanStep] = []
    made: dict[tuple[str, str], str] = {}  # (source, adapter tool) -> adapter step id
    for s in steps:
        tool = chosen[s.id]
        sources = dict(s.sources)
        for port, source in s.sources.items():
            clash = _format_clash(knowledge, spec, tool, s, port, source, chosen, step_by_id)
            if clash is None:
                continue
            adapter = find_adapter(knowledge, spec, s.inputs[port], clash[1], clash[2])
            assert adapter is not None  # assign() kept this tool only because an adapter resolves the clash
            key = (source, adapter.id)
            if key not in made:
                op = knowledge.operations[adapter.implements]
                in_port = next(iter(op.inputs))
                out_port = next(iter(op.outputs))
                sid = op.id if op.id not in {x.id for x in out} else f"{op.id}_{len(made) + 1}"
                out.append(PlanStep(id=sid, operation=op.id, tool=adapter.id, inputs={in_port: s.inputs[port]},
                                    outputs={out_port: s.inputs[port]}, sources={in_port: source}))
                made[key] = sid
            sources[port] = made[key]
        out.append(s.model_copy(update={"sources": sources}))
    return out


def _adapter_tools(knowledge: Knowledge, spec: TaskSpec, datatype: str) -> list[Tool]:
    """Tools of conversion operations (one input, one output, the same datatype) for `datatype`."""
    out = []
    for op in knowledge.operations.values():
        ins = [p for p in op.inputs.values() if not p.optional]
        outs = list(op.outputs.values())
        if len(ins) == 1 and len(outs) == 1 and ins[0].datatype == outs[0].datatype == datatype:
            out += _candidates(knowledge, spec, PlanStep(id=op.id, operation=op.id, inputs={}, outputs={}))
    return out


def find_adapter(knowledge: Knowledge, spec: TaskSpec, datatype: str, have: set[str],
                 accepts: set[str]) -> Tool | None:
    """A format adapter that reads one of `have` and writes one of `accepts` (GFF3 -> GTF)."""
    for tool in _adapter_tools(knowledge, spec, datatype):
        reads = {f for tp in tool.inputs.values() for f in _formats(tp.format)}
        writes = {f for tp in tool.outputs.values() for f in _formats(tp.format)}
        reads_one = reads & have or _compressed_variant(have, reads)
        if reads_one and (writes & accepts or _compressed_variant(writes, accepts)):
            return tool
    return None


def _port_clash(knowledge, spec, tool, step, port, source, chosen, step_by_id) -> tuple[str, set[str]] | None:
    """None, or (message, formats available) when no tool format nor adapter fits the port."""
    problem = _format_clash(knowledge, spec, tool, step, port, source, chosen, step_by_id)
    if problem is None:
        return None
    have, accepts = problem[1], problem[2]
    if find_adapter(knowledge, spec, step.inputs[port], have, accepts) is not None:
        return None  # an adapter step bridges it (inserted after binding)
    return problem[0], set(have)


def _format_clash(knowledge, spec, tool, step, port, source, chosen, step_by_id):
    """None, or (message, formats available, formats accepted) for one input port."""
    if port not in tool.inputs:
        return None
    accepts = _formats(tool.inputs[port].format)
    if source.startswith("config:"):
        return None
    if source.startswith("input:"):
        dt = step.inputs[port]
        given = {i.format for i in spec.inputs if i.datatype == dt}
        if given and not given & accepts and not _compressed_variant(given, accepts):
            return (f"{tool.id}.{port} reads {'/'.join(sorted(accepts))}, the input is {'/'.join(sorted(given))}",
                    given, accepts)
        return None
    producer = chosen[source]
    src_step = step_by_id[source]
    wanted = step.inputs[port]
    produced = {producer.outputs[p].format for p, d in src_step.outputs.items()
                if d == wanted and p in producer.outputs}
    if not produced:
        produced = {producer.outputs[p].format for p in src_step.outputs if p in producer.outputs}
    if not produced & accepts and not _compressed_variant(produced, accepts):
        return (f"{tool.id}.{port} reads {'/'.join(sorted(accepts))} but {producer.id} writes "
                f"{'/'.join(sorted(produced))}", produced, accepts)
    return None


