"""The knowledge's queries (knowledge/queries.py) against their definitions: a pass over every
operation and port with `is_subtype`, as spec.py first wrote them; the queries answer the same
from indexes (readers, producers, consumers, closures)."""

from __future__ import annotations

import functools
import itertools

from bioplan.knowledge import queries
from bioplan.knowledge.queries import is_subtype


def _subtype_of(knowledge):
    """`is_subtype` on this knowledge, each pair asked once (the definitions below ask it millions of times)."""
    return functools.lru_cache(maxsize=None)(functools.partial(is_subtype, knowledge))


def _made_within_by_definition(knowledge, sources, steps, subtype):
    frontier, seen, made = list(sources), set(), set()
    for _ in range(steps):
        following = []
        for d in frontier:
            if d in seen:
                continue
            seen.add(d)
            for op in knowledge.operations.values():
                if any(subtype(d, p.datatype) for p in op.inputs.values()):
                    outs = [p.datatype for p in op.outputs.values()]
                    made.update(outs)
                    following += outs
        frontier = following
    return frozenset(made)


def _makeable_by_definition(knowledge, given, subtype):
    have = set(given) | {d for d, dt in knowledge.datatypes.items() if dt.config_provided}
    grew = True
    while grew:
        grew = False
        for op in knowledge.operations.values():
            needs = [p.datatype for p in op.inputs.values() if not p.optional]
            if all(any(subtype(h, d) for h in have) for d in needs):
                new = {p.datatype for p in op.outputs.values()} - have
                if new:
                    have |= new
                    grew = True
    return frozenset(have)


def test_made_within_and_makeable_agree_with_their_definitions(knowledge):
    datatypes = sorted(knowledge.datatypes)
    singles = [(d,) for d in datatypes]
    pairs = list(itertools.islice(itertools.combinations(datatypes, 2), 0, None, 37))
    subtype = _subtype_of(knowledge)
    for sources in singles + pairs:
        for steps in (1, 2, 4):
            assert queries.made_within(knowledge, sources, steps) == \
                _made_within_by_definition(knowledge, sources, steps, subtype), (sources, steps)
        assert queries.makeable(knowledge, sources) == _makeable_by_definition(knowledge, sources, subtype), sources


def test_closures_producers_and_consumers_agree_with_is_subtype(knowledge):
    producers, consumers = queries.producers(knowledge), queries.consumers(knowledge)
    for d in knowledge.datatypes:
        assert queries.is_a_closure(knowledge, d) == {x for x in knowledge.datatypes if is_subtype(knowledge, d, x)}
        made_by = [o for o, op in knowledge.operations.items()
                   if any(is_subtype(knowledge, p.datatype, d) for p in op.outputs.values())]
        assert list(producers.get(d, ())) == made_by, d
        needed_by = [o for o, op in knowledge.operations.items()
                     if any(p.datatype == d and not p.optional for p in op.inputs.values())]
        assert list(consumers.get(d, ())) == needed_by, d
    assert queries.closure(knowledge, ["no_such_type"]) == {"no_such_type"}


def test_made_within_is_kept_per_knowledge_and_sources(knowledge):
    """The spec asks the same sweep many times: the second ask is the kept answer, whatever the
    order of the sources, and equals a fresh sweep."""
    queries._MADE_WITHIN.clear()
    sources = ["raw_count_matrix", "sample_metadata"]
    first = queries.made_within(knowledge, sources, 3)
    assert first and queries.made_within(knowledge, reversed(sources), 3) is first
    assert first == queries._sweep(knowledge, frozenset(sources), 3)
    assert queries.made_within(knowledge, sources, 1) == queries._sweep(knowledge, frozenset(sources), 1)
