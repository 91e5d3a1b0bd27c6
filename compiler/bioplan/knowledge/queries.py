"""Questions asked of the capability graph: subtypes and what operations can make from what.

These read only the `Knowledge`; every stage may ask them (stages import forward only, and the
knowledge comes first).
"""

from __future__ import annotations

from collections.abc import Iterable

from bioplan.cache import Memo
from bioplan.knowledge.models import Knowledge


def ancestors(knowledge: Knowledge, datatype: str) -> list[str]:
    """The `is_a` chain above `datatype`, nearest first."""
    out = []
    parent = knowledge.datatypes[datatype].is_a if datatype in knowledge.datatypes else None
    while parent:
        out.append(parent)
        parent = knowledge.datatypes[parent].is_a
    return out


def is_subtype(knowledge: Knowledge, datatype: str, of: str) -> bool:
    """True if `datatype` is `of` or one of its is_a descendants (it may feed a port of `of`).

    Asked millions of times by the spec passes and the planner: each datatype's `ancestors` are
    walked once per datatypes table (the table is kept with them, so its id is never reused)."""
    if datatype == of:
        return True
    table = knowledge.datatypes
    kept = _ABOVE.get(id(table))
    if kept is None or kept[0] is not table:
        kept = _ABOVE.keep(id(table), (table, {}))
    above = kept[1].get(datatype)
    if above is None:
        above = kept[1][datatype] = frozenset(ancestors(knowledge, datatype))
    return of in above


_ABOVE: Memo[int, tuple[dict, dict[str, frozenset[str]]]] = Memo(64)


def made_within(knowledge: Knowledge, sources: Iterable[str], steps: int) -> frozenset[str]:
    """Datatypes that chains of one to `steps` operations make from `sources`, where an operation
    runs as soon as one of its input ports (optional ones too) is fed: the optimistic forward
    sweep that asks "does this data lead there at all", not "can the inputs alone make it".

    The spec asks the same sweeps many times (`feeds` of every pair of requested operations: ~80
    sweeps, ~25 ms for the RNA-seq example): each is kept per knowledge (content hash)."""
    key = (knowledge.content_hash, frozenset(sources), steps)
    made = _MADE_WITHIN.get(key)
    if made is None:
        made = _MADE_WITHIN.keep(key, _sweep(knowledge, key[1], steps))
    return made


_MADE_WITHIN_MAX = 4096
_MADE_WITHIN: Memo[tuple[str, frozenset[str], int], frozenset[str]] = Memo(_MADE_WITHIN_MAX)


def _sweep(knowledge: Knowledge, sources: frozenset[str], steps: int) -> frozenset[str]:
    readers = _readers(knowledge)
    frontier, made = set(sources), set()
    seen: set[str] = set()
    for _ in range(steps):
        following: set[str] = set()
        for d in frontier - seen:
            seen.add(d)
            # the operations with a port that `d` may feed: a port of `d` or of an ancestor
            for port_type in is_a_closure(knowledge, d):
                for op_id in readers.get(port_type, ()):
                    outs = [p.datatype for p in knowledge.operations[op_id].outputs.values()]
                    made.update(outs)
                    following.update(outs)
        frontier = following
    return frozenset(made)


_BY_PORT_TYPE: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}


def _readers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations with an input port (optional ones too) of exactly that type."""
    return _by_port_type(knowledge, "inputs")


def exact_makers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations with an output of exactly that type (not its subtypes: `producers`)."""
    return _by_port_type(knowledge, "outputs")


def readers_accepting(knowledge: Knowledge, datatype: str) -> tuple[str, ...]:
    """The operations with an input port (optional ones too) `datatype` may feed (it or a supertype of it), in
    knowledge order; kept per knowledge (content hash) and datatype: every spec asks it of each input."""
    key = (knowledge.content_hash, datatype)
    found = _ACCEPTING.get(key)
    if found is None:
        found = _ACCEPTING.keep(key, tuple(op.id for op in knowledge.operations.values()
                                           if any(is_subtype(knowledge, datatype, p.datatype)
                                                  for p in op.inputs.values())))
    return found


_ACCEPTING: Memo[tuple[str, str], tuple[str, ...]] = Memo(4096)


def _by_port_type(knowledge: Knowledge, side: str) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations with a port of exactly that type on `side` ("inputs" or "outputs"), in
    knowledge order; kept per knowledge (content hash): the spec and the input sniffing ask per port."""
    key = (knowledge.content_hash, side)
    if key not in _BY_PORT_TYPE:
        found: dict[str, list[str]] = {}
        for op_id, op in knowledge.operations.items():
            for d in dict.fromkeys(p.datatype for p in getattr(op, side).values()):
                found.setdefault(d, []).append(op_id)
        _BY_PORT_TYPE[key] = {d: tuple(ops) for d, ops in found.items()}
    return _BY_PORT_TYPE[key]


def makeable(knowledge: Knowledge, given: Iterable[str]) -> frozenset[str]:
    """Datatypes the `given` ones lead to when each operation needs all its required inputs,
    references the user may supply through config counting as given: salmon outputs do not lead
    back to reads. Kept per knowledge (content hash) and `given`, as `made_within`."""
    key = (knowledge.content_hash, frozenset(given))
    made = _MAKEABLE.get(key)
    if made is None:
        made = _MAKEABLE.keep(key, _makeable(knowledge, key[1]))
    return made


_MAKEABLE: Memo[tuple[str, frozenset[str]], frozenset[str]] = Memo(_MADE_WITHIN_MAX)


def _makeable(knowledge: Knowledge, given: frozenset[str]) -> frozenset[str]:
    have = set(given) | {d for d, dt in knowledge.datatypes.items() if dt.config_provided}
    feeds = set(closure(knowledge, have))  # every port type something in `have` may feed
    grew = True
    while grew:
        grew = False
        for op in knowledge.operations.values():
            if all(p.datatype in feeds for p in op.inputs.values() if not p.optional):
                new = {p.datatype for p in op.outputs.values()} - have
                if new:
                    have |= new
                    feeds |= closure(knowledge, new)
                    grew = True
    return frozenset(have)


def is_a_closure(knowledge: Knowledge, datatype: str) -> frozenset[str]:
    """`datatype` and its `is_a` ancestors: every port type it may feed (an unknown id: itself)."""
    chain, seen = [datatype], {datatype}
    dt = knowledge.datatypes.get(datatype)
    while dt is not None and dt.is_a and dt.is_a not in seen:  # a cycle is a knowledge check's error
        chain.append(dt.is_a)
        seen.add(dt.is_a)
        dt = knowledge.datatypes.get(dt.is_a)
    return frozenset(chain)


def closure(knowledge: Knowledge, datatypes: Iterable[str]) -> frozenset[str]:
    """The union of the `is_a` closures of `datatypes`."""
    out: set[str] = set()
    for d in datatypes:
        out |= is_a_closure(knowledge, d)
    return frozenset(out)


_PRODUCERS: dict[str, dict[str, tuple[str, ...]]] = {}
_CONSUMERS: dict[str, dict[str, tuple[str, ...]]] = {}


def producers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations that make it (`build_producers`), memoised per content hash."""
    if knowledge.content_hash not in _PRODUCERS:
        _PRODUCERS[knowledge.content_hash] = build_producers(knowledge)
    return _PRODUCERS[knowledge.content_hash]


def consumers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations that need it (`build_consumers`), memoised per content hash."""
    if knowledge.content_hash not in _CONSUMERS:
        _CONSUMERS[knowledge.content_hash] = build_consumers(knowledge)
    return _CONSUMERS[knowledge.content_hash]


def build_producers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations that make it, in knowledge order; an output makes its `is_a`
    ancestors too (trimming makes trimmed reads, which are reads)."""
    made: dict[str, list[str]] = {}
    for op_id, op in knowledge.operations.items():
        for f in closure(knowledge, (p.datatype for p in op.outputs.values())):
            made.setdefault(f, []).append(op_id)
    return {f: tuple(ops) for f, ops in made.items()}


def build_consumers(knowledge: Knowledge) -> dict[str, tuple[str, ...]]:
    """Datatype -> the operations that need exactly it on a required input port, in knowledge order."""
    needs: dict[str, list[str]] = {}
    for op_id, op in knowledge.operations.items():
        for d in dict.fromkeys(p.datatype for p in op.inputs.values() if not p.optional):
            needs.setdefault(d, []).append(op_id)
    return {d: tuple(ops) for d, ops in needs.items()}
