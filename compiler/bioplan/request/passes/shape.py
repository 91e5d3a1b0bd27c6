"""How the requested operations relate in the capability graph: which feeds which, which are
conversions, where the chain ends. Built on the knowledge-side queries (`knowledge/queries.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bioplan.cache import Memo
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import closure, exact_makers, is_subtype, made_within
from bioplan.models import WorkflowType

# how many operations deep the optimistic forward sweep looks
SWEEP_STEPS = 10


# The passes ask the same few hundred questions of the graph many times (`fit` of every reading against
# every input, `feeds` of every pair of requested operations: ~14k a spec of the eval set): each answer is
# kept per knowledge (content hash, as `made_within`'s sweeps), a function of the knowledge and the two ids.
_ANSWERS_MAX = 1 << 16
_ANSWERS: Memo[tuple[str, str, str, str], bool] = Memo(_ANSWERS_MAX)


def _remembered(question: str, knowledge: Knowledge, a: str, b: str, answer: Callable[[], bool]) -> bool:
    key = (question, knowledge.content_hash, a, b)
    found = _ANSWERS.get(key)
    if found is None:
        found = _ANSWERS.keep(key, answer())
    return found


def is_downstream(knowledge: Knowledge, src: str, dst: str) -> bool:
    """True if datatype dst is src, or some chain of operations makes it (or a subtype) from src."""
    return src == dst or _remembered("downstream", knowledge, src, dst, lambda: any(
        is_subtype(knowledge, d, dst) for d in made_within(knowledge, [src], SWEEP_STEPS)))


def leads_to(knowledge: Knowledge, src: str, port: str) -> bool:
    """True if data of datatype src can feed a port of datatype `port`, as it is or after some steps."""
    return is_downstream(knowledge, src, port) or is_subtype(knowledge, src, port)


def feeds(knowledge: Knowledge, src_op: str, dst_op: str) -> bool:
    """True if some output of src_op can reach an input of dst_op through the graph."""
    return _remembered("feeds", knowledge, src_op, dst_op, lambda: _feeds(knowledge, src_op, dst_op))


def _feeds(knowledge: Knowledge, src_op: str, dst_op: str) -> bool:
    outs = [p.datatype for p in knowledge.operations[src_op].outputs.values()]
    # the sweep's last step makes data no operation is then asked to read
    met = set(outs) | made_within(knowledge, outs, SWEEP_STEPS - 1)
    return any(is_subtype(knowledge, d, p.datatype) for d in met for p in knowledge.operations[dst_op].inputs.values())


def is_conversion(knowledge: Knowledge, op_id: str) -> bool:
    """One input and one output of the same datatype (a format conversion: CSV export, GFF3 -> GTF)."""
    op = knowledge.operations[op_id]
    ins = [p.datatype for p in op.inputs.values() if not p.optional]
    outs = [p.datatype for p in op.outputs.values()]
    return len(ins) == 1 and ins == outs


def sinks(knowledge: Knowledge, ops: Iterable[str]) -> list[str]:
    """The operations none of the others follow from."""
    ops = list(ops)
    return [a for a in ops if not any(b != a and feeds(knowledge, a, b) for b in ops)]


def _direct_feeds(knowledge: Knowledge, ops: list[str], a: str, b: str) -> bool:
    """a feeds b with no other of `ops` between them."""
    return a != b and feeds(knowledge, a, b) and not any(
        c not in (a, b) and feeds(knowledge, a, c) and feeds(knowledge, c, b) for c in ops)


def workflow_type(knowledge: Knowledge, ops: Iterable[str]) -> WorkflowType:
    ops = list(ops)
    if len(ops) <= 1:
        return "single_step"
    joins = [b for b in ops if sum(1 for a in ops if _direct_feeds(knowledge, ops, a, b)) >= 2]
    if joins:
        return "multi_branch_join"
    if len(sinks(knowledge, ops)) > 1:
        return "multi_branch"
    return "linear"


def entry_inputs(knowledge: Knowledge, anchors: Iterable[str]) -> list[str]:
    """Inputs a request without files must start from: the earliest anchors' non-reference inputs."""
    anchors = list(anchors)
    earliest = [a for a in anchors if not any(b != a and feeds(knowledge, b, a) for b in anchors)]
    # anchors that feed each other (duplicate marking, base recalibration) may leave none: the first named
    earliest = earliest or anchors[:1]
    out = []
    for a in earliest:
        out += _sample_inputs(knowledge, a)
    # a later anchor's sample data that no anchor makes, as it is or refined by steps between them
    # ("build the Salmon index and quantify": the index is made, the reads are not; "read mapping,
    # peak calling": the deduplicated alignments peak calling reads are the mapping's, deduplicated)
    for a in anchors:
        if a not in earliest:
            made = [p.datatype for b in anchors if b != a for p in knowledge.operations[b].outputs.values()]
            # one step on with references only ("peak calling, ... functional enrichment of the peaks": the genes
            # near the peaks, from the peaks and the gene annotation, are the enrichment's gene list)
            made += _made_in_one_step(knowledge, made)
            out += [d for d in _sample_inputs(knowledge, a)
                    if not any(is_subtype(knowledge, m, d) or is_subtype(knowledge, d, m) for m in made)]
    return list(dict.fromkeys(out))


def started_from(knowledge: Knowledge, datatype: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """`datatype`, or for an `internal` one (datatypes.yaml: DADA2's error model) the sample data the steps
    making it read, followed back until data a user holds."""
    if not knowledge.datatypes[datatype].internal or datatype in seen:
        return [datatype]
    makers = exact_makers(knowledge).get(datatype, ())
    before = [d for op in makers for d in _sample_inputs(knowledge, op)]
    if not before:
        return [datatype]
    return [d for b in before for d in started_from(knowledge, b, seen | {datatype})]


def _made_in_one_step(knowledge: Knowledge, made: list[str]) -> list[str]:
    """What one operation makes from `made` and references alone (no other sample data)."""
    fed = closure(knowledge, made)
    out = []
    for op in knowledge.operations.values():
        required = [p.datatype for p in op.inputs.values() if not p.optional]
        others = [d for d in required if d not in fed]
        if required and len(others) < len(required) and all(
                knowledge.datatypes[d].config_provided or knowledge.datatypes[d].scope == "reference" for d in others):
            out += [p.datatype for p in op.outputs.values()]
    return out


def _sample_inputs(knowledge: Knowledge, op_id: str) -> list[str]:
    """The required inputs of an operation that are the samples' own data (not references, not config)."""
    out = []
    for p in knowledge.operations[op_id].inputs.values():
        dt = knowledge.datatypes[p.datatype]
        if not (p.optional or dt.config_provided or dt.scope == "reference"):
            out.append(p.datatype)
    return out


def _single_step_successors(knowledge: Knowledge, d: str) -> list[str]:
    """What one-input, one-output operations make from d. An output d already is (a table exported as
    CSV is still a result table) is no step forward: following it, every result table would lie after
    every other (a coverage file of methylation calls 'past' the DMRs it is the input of)."""
    return [p.datatype for op in knowledge.operations.values()
            if len([q for q in op.inputs.values() if not q.optional]) == 1 and len(op.outputs) == 1
            and any(is_subtype(knowledge, d, q.datatype) for q in op.inputs.values())
            for p in op.outputs.values() if not is_subtype(knowledge, d, p.datatype)]


def input_at_or_after(knowledge: Knowledge, out: str, input_types: Iterable[str]) -> str | None:
    """The input datatype that is `out` or lies after it on a chain of one-input, one-output steps
    (normalised cells lie after filtered cells), else None."""
    input_types = list(input_types)
    frontier, seen = [out], set()
    while frontier:
        d = frontier.pop()
        hit = next((t for t in input_types if is_subtype(knowledge, t, d)), None)
        if hit:
            return hit
        if d not in seen:
            seen.add(d)
            frontier += _single_step_successors(knowledge, d)
    return None


def done_already(knowledge: Knowledge, op_id: str, input_types: Iterable[str]) -> bool:
    """The inputs are already past this step (its result, or data after it, is an input)."""
    types = list(input_types)
    return any(input_at_or_after(knowledge, p.datatype, types) for p in knowledge.operations[op_id].outputs.values())
