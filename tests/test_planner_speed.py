"""What makes the planner fast, checked for correctness: the planning index, the region the
search reads, and the LM-cut heuristic.

- The index is cached on disk under the knowledge's content hash (an ontology edit gives a new
  hash, so it invalidates the knowledge cache and the index together) and read back.
- Reading only the inputs' forward region (plus what references alone make) gives exactly the
  Problem that relevance pruning of the whole context-pruned graph gives, on random requests.
- LM-cut never overestimates the optimal cost (exhaustive search) and is never below h_max.
"""

from __future__ import annotations

import heapq
import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.models import TargetOutput, TaskSpec
from bioplan.planner import index as index_module
from bioplan.planner.graph import (
    CONFIG_COST,
    Action,
    Problem,
    ProblemBuilder,
    _Context,
    _forward_closure,
    closure,
    relevant_only,
)
from bioplan.planner.index import build_index, planning_index
from bioplan.planner.search import _Compiled
from conftest import examples
from test_planner_properties import brute_force_cost, problems


def test_index_is_cached_under_the_content_hash(knowledge, tmp_path, monkeypatch):
    monkeypatch.setenv("BIOPLAN_CACHE_DIR", str(tmp_path))
    index_module._MEMO.pop(knowledge.content_hash, None)
    first = planning_index(knowledge)
    files = list((tmp_path / "bioplan").glob("index-*.pickle"))
    assert len(files) == 1 and files[0].name == f"index-{index_module.cache_key(knowledge.content_hash)[:32]}.pickle"
    index_module._MEMO.pop(knowledge.content_hash, None)
    again = planning_index(knowledge)
    assert again == first and again is not first  # read back from disk
    with files[0].open("rb") as fh:
        assert pickle.load(fh).content_hash == knowledge.content_hash
    # another content (an edited ontology) has another key: the old file is not used
    edited = knowledge.model_copy(update={"content_hash": "f" * 64})
    planning_index(edited)
    assert len(list((tmp_path / "bioplan").glob("index-*.pickle"))) == 2
    index_module._MEMO.pop("f" * 64, None)


def test_index_producers_include_subtypes_and_references(knowledge):
    idx = build_index(knowledge)
    # trimming makes trimmed reads, which are raw reads too
    assert "read_trimming" in idx.producers["raw_reads"]
    assert "provide:reference_genome" in idx.producers["reference_genome"]
    assert "genome_indexing" in idx.base_ops and "genome_index" in idx.base_facts
    for op_id, e in idx.ops.items():
        for f in e.pre:
            assert op_id in idx.consumers[f]


def whole_graph_problem(knowledge, spec) -> Problem:
    """Every operation the context allows (the pre-index build), relevance-pruned."""
    ctx = _Context(knowledge, spec)
    idx = ctx.index
    initial = closure(knowledge, spec.input_types)
    ops = [o for o in idx.ops if ctx.verdict(o)[0] is None]
    derivable = _forward_closure(initial, [(idx.ops[o].pre, idx.ops[o].add) for o in ops])
    actions = {o: Action(o, idx.ops[o].cost, idx.ops[o].pre, idx.ops[o].add, o) for o in sorted(ops)}
    for dt in sorted(idx.config):
        if dt not in initial and dt not in derivable:
            actions[f"provide:{dt}"] = Action(f"provide:{dt}", CONFIG_COST, frozenset(), idx.config[dt], None)
    return relevant_only(Problem(initial, spec.target_output.semantic_type, tuple(spec.required_operations),
                                 actions, spec.max_hops))


ASSAYS = [None, "bulk_rna_seq", "single_cell_rna_seq", "whole_genome_sequencing", "shotgun_metagenomics", "chip_seq"]


def test_region_gives_the_whole_graph_problem(knowledge):
    datatypes = sorted(d for d, v in knowledge.datatypes.items() if not v.config_provided)
    data = sorted(c for c, v in knowledge.constraints.items() if v.kind == "data")

    @settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.sampled_from(datatypes), min_size=1, max_size=3, unique=True),
           st.sampled_from(sorted(knowledge.datatypes)),
           st.lists(st.sampled_from(sorted(knowledge.operations)), max_size=2, unique=True),
           st.sampled_from(ASSAYS), st.dictionaries(st.sampled_from(data), st.booleans(), max_size=2),
           st.sets(st.sampled_from(sorted(knowledge.operations)), max_size=2))
    def check(inputs, target, anchors, assay, facts, forbidden):
        spec = TaskSpec(query="region", input_types=tuple(inputs), target_output=TargetOutput(semantic_type=target),
                        constraints={"assay": assay} if assay else {}, constraint_ids=(assay,) if assay else (),
                        required_operations=tuple(anchors), data_facts=facts)
        builder = ProblemBuilder(knowledge, spec)
        got = builder.problem()
        want = whole_graph_problem(knowledge, spec)
        assert list(got.actions) == list(want.actions)
        assert got.actions == want.actions and got.initial == want.initial
        # what the context pruned is reported with its reason
        assert all(p.reason for p in got.pruned)
        # alternatives (a forbidden operation) reuse the region: the same as a fresh build
        alt = builder.problem(forbidden=frozenset(forbidden))
        fresh = ProblemBuilder(knowledge, spec).problem(forbidden=frozenset(forbidden))
        assert alt.actions == fresh.actions

    check()


@settings(max_examples=examples(300), deadline=None)
@given(problems())
def test_lmcut_is_admissible_and_dominates_hmax(problem):
    if any(a not in problem.actions for a in problem.anchors):
        return
    c = _Compiled(problem)
    best = brute_force_cost(problem)
    lm, hmax = c.lmcut(c.initial, 0), c.h(c.initial, 0)
    if best is None:  # delete-free: no plan means the goals are not even relaxed-reachable
        assert hmax == lm == float("inf")
        return
    assert hmax <= lm + 1e-9
    assert lm <= best + 1e-9


def reference_lmcut(c: _Compiled, facts: int, mask: int, cuts: list) -> float:
    """LM-cut as first written (the oracle of the incremental one): every round h_max from
    scratch, then the dearest preconditions, the goal zone and the cut, each by its definition."""
    INF = float("inf")
    n_actions = len(c.lm_pre)
    state = [f for f in range(c.n_plain) if facts >> f & 1]
    state += [c.n_plain + bit for bit in range(len(c.anchors)) if mask >> bit & 1] + [c.init_fact]
    if set(c.lm_pre[-1]) <= set(state):
        return 0.0
    cost, total = list(c.lm_cost), 0.0
    while True:
        val = [INF] * c.n_facts
        for f in state:
            val[f] = 0.0
        waiting, reached = [len(p) for p in c.lm_pre], [False] * n_actions
        heap, done = [(0.0, f) for f in state], [False] * c.n_facts
        while heap:
            v, f = heapq.heappop(heap)
            if done[f]:
                continue
            done[f] = True
            for i in c.lm_consumers[f]:
                waiting[i] -= 1
                if waiting[i] == 0:
                    reached[i] = True
                    w = max(val[p] for p in c.lm_pre[i]) + cost[i]
                    for g in c.lm_add[i]:
                        if w < val[g]:
                            val[g] = w
                            heapq.heappush(heap, (w, g))
        if val[c.goal_fact] == INF:
            return INF
        if val[c.goal_fact] <= 1e-9:
            return total
        pcf = [max(c.lm_pre[i], key=lambda p: val[p]) if reached[i] else -1 for i in range(n_actions)]
        zone, todo = {c.goal_fact}, [c.goal_fact]
        while todo:
            g = todo.pop()
            for i in c.lm_achievers[g]:
                if reached[i] and cost[i] <= 1e-9 and pcf[i] not in zone:
                    zone.add(pcf[i])
                    todo.append(pcf[i])
        seen = {f for f in state if f not in zone}
        todo, cut = list(seen), set()
        while todo:
            f = todo.pop()
            for i in (i for i in range(n_actions) if pcf[i] == f):
                cut |= {i} if any(g in zone for g in c.lm_add[i]) else set()
                for g in c.lm_add[i]:
                    if g not in zone and g not in seen:
                        seen.add(g)
                        todo.append(g)
        if not cut:
            return total
        cuts.append(tuple(sorted(cut)))
        m = min(cost[i] for i in cut)
        total += m
        for i in cut:
            cost[i] -= m


@settings(max_examples=examples(200), deadline=None)
@given(problems(), st.data())
def test_lmcut_equals_the_reference_on_every_state(problem, data):
    """The incremental LM-cut gives the reference's value and cuts, bit for bit, in any state, with
    costs that are not binary fractions (0.3, 1.2), zero and below zero."""
    costs = data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.3, 1.0, 1.2, 2.0, -0.5]),
                               min_size=len(problem.actions), max_size=len(problem.actions)))
    actions = {k: Action(a.id, x, a.pre, a.add, a.operation) for (k, a), x in zip(problem.actions.items(), costs)}
    c = _Compiled(Problem(problem.initial, problem.target, problem.anchors, actions, problem.max_hops))
    for facts in data.draw(st.lists(st.integers(0, (1 << c.n_plain) - 1), min_size=1, max_size=6)) + [c.initial]:
        mask = data.draw(st.integers(0, c.full_mask))
        got_cuts: list = []
        want_cuts: list = []
        got, want = c.lmcut(facts, mask, got_cuts), reference_lmcut(c, facts, mask, want_cuts)
        assert repr(got) == repr(want) and got_cuts == want_cuts
