"""Property tests of the search on random AND/OR capability graphs.

For every generated problem: the A* plan is valid (each action's preconditions
hold when it runs, the target is produced, every anchor is used), it is
optimal (cost equals an exhaustive search over action subsets), and it is
never costlier than the plain BFS baseline's plan.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from bioplan.planner.graph import Action, Problem, _backward_relevant, _forward_reachable, relevant_only
from bioplan.planner.search import astar_plan, bfs_plan
from conftest import examples


@st.composite
def problems(draw):
    n_facts = draw(st.integers(4, 9))
    facts = [f"d{i}" for i in range(n_facts)]
    n_actions = draw(st.integers(2, 8))
    actions = {}
    for j in range(n_actions):
        pre = draw(st.sets(st.sampled_from(facts), min_size=1, max_size=2))
        add = draw(st.sets(st.sampled_from(facts), min_size=1, max_size=2))
        cost = draw(st.sampled_from([0.25, 0.5, 1.0, 2.0]))
        actions[f"op{j}"] = Action(f"op{j}", cost, frozenset(pre), frozenset(add), f"op{j}")
    initial = frozenset(draw(st.sets(st.sampled_from(facts), min_size=1, max_size=2)))
    target = draw(st.sampled_from(facts))
    anchors = tuple(draw(st.sets(st.sampled_from(sorted(actions)), max_size=2)))
    return Problem(initial, target, anchors, actions, max_hops=8)


def simulate(problem: Problem, sequence) -> frozenset[str] | None:
    facts = set(problem.initial)
    for a in sequence:
        action = problem.actions[a]
        if not action.pre <= facts:
            return None
        facts |= action.add
    return frozenset(facts)


def brute_force_cost(problem: Problem) -> float | None:
    """Cheapest subset of actions that can be ordered into a valid plan (exhaustive)."""
    best = None
    ids = sorted(problem.actions)
    for r in range(len(ids) + 1):
        for subset in itertools.combinations(ids, r):
            if not set(problem.anchors) <= set(subset):
                continue
            # greedy ordering suffices: effects only add facts
            facts, remaining = set(problem.initial), set(subset)
            progress = True
            while remaining and progress:
                progress = False
                for a in sorted(remaining):
                    if problem.actions[a].pre <= facts:
                        facts |= problem.actions[a].add
                        remaining.discard(a)
                        progress = True
            if remaining or problem.target not in facts:
                continue
            cost = sum(problem.actions[a].cost for a in subset)
            if best is None or cost < best - 1e-9:
                best = cost
    return best


@settings(max_examples=examples(300), deadline=None)
@given(problems())
def test_astar_plan_is_valid_and_optimal(problem):
    plan = astar_plan(problem)
    expected = brute_force_cost(problem)
    if expected is None:
        assert plan is None
        return
    assert plan is not None
    facts = simulate(problem, plan.actions)
    assert facts is not None, "an action ran before its inputs existed"
    assert problem.target in facts
    assert set(problem.anchors) <= set(plan.actions)
    assert len(set(plan.actions)) == len(plan.actions)
    assert abs(plan.cost - expected) < 1e-6
    assert abs(plan.cost - sum(problem.actions[a].cost for a in plan.actions)) < 1e-6


@settings(max_examples=examples(200), deadline=None)
@given(problems())
def test_relevance_pruning_keeps_the_optimum(problem):
    full = astar_plan(problem)
    pruned = astar_plan(relevant_only(problem))
    assert (full is None) == (pruned is None)
    if full is not None:
        assert abs(full.cost - pruned.cost) < 1e-6


@settings(max_examples=examples(200), deadline=None)
@given(problems())
def test_bfs_baseline_finds_a_plan_iff_astar_does_and_never_a_cheaper_one(problem):
    a = astar_plan(problem)
    b = bfs_plan(problem)
    assert (a is None) == (b is None)
    if a is not None:
        assert simulate(problem, b.actions) is not None
        assert a.cost <= b.cost + 1e-9


@settings(max_examples=examples(100), deadline=None)
@given(problems())
def test_astar_memo_gives_the_search_result_for_exactly_that_problem(problem):
    from bioplan.planner.search import _astar_plan

    first, again = astar_plan(problem), astar_plan(problem)
    assert first == again == _astar_plan(problem, 200_000)
    # another cost, the same ids: a new search, not the kept result
    name, action = next(iter(problem.actions.items()))
    dearer = Problem(problem.initial, problem.target, problem.anchors,
                     {**problem.actions, name: Action(name, action.cost + 8.0, action.pre, action.add, name)},
                     problem.max_hops)
    assert astar_plan(dearer) == _astar_plan(dearer, 200_000)
    # relevance pruning, kept the same way: the walk's actions, in the problem's order
    for p in (problem, dearer, relevant_only(problem)):
        want = _backward_relevant(p, _forward_reachable(p))
        assert list(relevant_only(p).actions) == [k for k in p.actions if k in want]


def reference_depends_on(steps, later: str, earlier: str) -> bool:
    """The first `_depends_on`: a walk up the sources per question (the oracle of `_Dependencies`)."""
    by_id = {s.id: s for s in steps}
    stack, seen = [later], set()
    while stack:
        cur = stack.pop()
        if cur == earlier:
            return True
        if cur in seen or cur not in by_id:
            continue
        seen.add(cur)
        stack.extend(by_id[cur].sources.values())
    return False


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.lists(st.sampled_from([f"s{i}" for i in range(n)] + ["input:x", "config:y"]),
                                  max_size=3), min_size=n, max_size=n),
    st.integers(0, n - 1), st.sampled_from([f"s{i}" for i in range(n)] + ["input:z"]))))
def test_dependencies_answer_as_a_walk_per_question(case):
    """`_Dependencies` (upstream sets kept until a step's sources change) answers every question as
    the walk up the sources does, on any source graph (cycles too), before and after a rewiring."""
    from bioplan.models import PlanStep
    from bioplan.planner.plan import _Dependencies

    n, sources, changed_step, new_source = case
    steps = [PlanStep(id=f"s{i}", operation="op", inputs={}, outputs={},
                      sources={f"p{j}": src for j, src in enumerate(srcs)}) for i, srcs in enumerate(sources)]
    deps = _Dependencies(steps)
    ids = [s.id for s in steps] + ["input:x", "config:y", "input:z"]
    for rewire in (False, True):
        if rewire:
            s = steps[changed_step]
            steps[changed_step] = s.model_copy(update={"sources": {**s.sources, "p0": new_source}})
            deps.changed()
        for a, b in itertools.product(ids, ids):
            assert deps.depends_on(a, b) == reference_depends_on(steps, a, b), (a, b)
