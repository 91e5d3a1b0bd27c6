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


def _made_within_by_definition(sources, steps, readers_make):
    """What `steps` rounds of every operation reading a datatype made so far make: {steps: made} for
    each count asked (the rounds of a smaller count are the first rounds of a larger one)."""
    frontier, seen, made, after = list(sources), set(), set(), {}
    for step in range(1, max(steps) + 1):
        following = []
        for d in frontier:
            if d in seen:
                continue
            seen.add(d)
            for outs in readers_make(d):
                made.update(outs)
                following += outs
        frontier = following
        if step in steps:
            after[step] = frozenset(made)
    return after


def _readers_make(knowledge, subtype):
    """datatype -> the outputs of each operation with an input it is a subtype of, in operation order
    (a pass over every operation and port, once per datatype)."""
    @functools.cache
    def outputs(d):
        return tuple([p.datatype for p in op.outputs.values()] for op in knowledge.operations.values()
                     if any(subtype(d, p.datatype) for p in op.inputs.values()))
    return outputs


def _covered_by(knowledge, subtype):
    """datatype d -> the datatypes h with `subtype(h, d)`: every pair asked once, for all the cases."""
    datatypes = list(knowledge.datatypes)
    return {d: frozenset(h for h in datatypes if subtype(h, d)) for d in datatypes}


def _makeable_by_definition(knowledge, given, covered_by):
    """Rounds over every operation until none adds a datatype: an operation runs when each required
    input is covered by a datatype had (one that is a subtype of it, `covered_by`)."""
    have = set(given) | {d for d, dt in knowledge.datatypes.items() if dt.config_provided}
    needs = [([p.datatype for p in op.inputs.values() if not p.optional], {p.datatype for p in op.outputs.values()})
             for op in knowledge.operations.values()]
    grew = True
    while grew:
        grew = False
        for required, outputs in needs:
            if outputs <= have:
                continue
            if all(d in have or not covered_by.get(d, frozenset((d,))).isdisjoint(have) for d in required):
                have |= outputs
                grew = True
    return frozenset(have)


def test_made_within_and_makeable_agree_with_their_definitions(knowledge):
    datatypes = sorted(knowledge.datatypes)
    singles = [(d,) for d in datatypes]
    pairs = list(itertools.islice(itertools.combinations(datatypes, 2), 0, None, 37))
    subtype = _subtype_of(knowledge)
    readers_make = _readers_make(knowledge, subtype)
    covered_by = _covered_by(knowledge, subtype)
    for sources in singles + pairs:
        by_definition = _made_within_by_definition(sources, (1, 2, 4), readers_make)
        for steps in (1, 2, 4):
            assert queries.made_within(knowledge, sources, steps) == by_definition[steps], (sources, steps)
        assert queries.makeable(knowledge, sources) == _makeable_by_definition(knowledge, sources, covered_by), sources


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
    # makeable alike (the anchors pass asks it once per requested operation)
    queries._MAKEABLE.clear()
    made = queries.makeable(knowledge, sources)
    assert made and queries.makeable(knowledge, reversed(sources)) is made
    assert made == queries._makeable(knowledge, frozenset(sources))


def test_is_subtype_is_the_is_a_walk_for_every_pair(knowledge):
    """`is_subtype` (each datatype's ancestors kept per datatypes table) answers every pair as the walk
    up `is_a` does; a knowledge with another table (an edited ontology) gets its own answers."""
    def walk(d, of):
        while d is not None:
            if d == of:
                return True
            d = knowledge.datatypes[d].is_a if d in knowledge.datatypes else None
        return False

    datatypes = sorted(knowledge.datatypes) + ["no_such_type"]
    for d, of in itertools.product(datatypes, datatypes):
        assert is_subtype(knowledge, d, of) == walk(d, of), (d, of)
    child = next(d for d in datatypes if d in knowledge.datatypes and knowledge.datatypes[d].is_a)
    parent = knowledge.datatypes[child].is_a
    orphaned = {**knowledge.datatypes, child: knowledge.datatypes[child].model_copy(update={"is_a": None})}
    edited = knowledge.model_copy(update={"datatypes": orphaned})
    assert is_subtype(knowledge, child, parent) and not is_subtype(edited, child, parent)
