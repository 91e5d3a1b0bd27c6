"""Constrained plan search over the AND/OR capability graph.

Production search: A* over states (facts derived so far, anchors used), where
applying an operation adds its output datatypes (an operation is an AND node:
all its required inputs must be facts; a datatype is an OR node: any producer
will do). Each action is applied at most once, so a plan is a set of operation
instances whose data dependencies form a DAG; branch-join plans (DE -> KEGG +
GO -> merge) fall out of the search itself.

The heuristic is h_max (Bonet & Geffner): the cost of the most expensive single
goal (the target, or an unused anchor together with its inputs) under a
relaxation that ignores sharing. It never overestimates, so the first goal
state popped is a minimum-cost plan, the same cost Fast Downward's optimal
search finds on the PDDL export of the same Problem.

`bfs_plan` is the plain breadth-first search of the original design, kept as a
baseline for tests and benchmarks.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from dataclasses import dataclass

from bioplan.planner.graph import Action, Problem


@dataclass(frozen=True)
class RawPlan:
    actions: tuple[str, ...]  # in a valid execution order
    cost: float


def _relaxed_costs(problem: Problem, facts: frozenset[str], action_costs) -> dict[str, float]:
    """h_max cost of every fact: an action costs its own cost plus its dearest precondition."""
    INF = float("inf")
    cost: dict[str, float] = {f: 0.0 for f in facts}
    # generalised Dijkstra (Knuth 1977): an action fires when all its preconditions are settled
    waiting = {a.id: len(a.pre - facts) for a in problem.actions.values()}
    by_pre: dict[str, list[Action]] = {}
    for a in problem.actions.values():
        for p in a.pre - facts:
            by_pre.setdefault(p, []).append(a)
    heap: list[tuple[float, int, str]] = []
    counter = itertools.count()

    def fire(a: Action, base: float) -> None:
        value = base + action_costs[a.id]
        for f in a.add:
            if value < cost.get(f, INF):
                cost[f] = value
                heapq.heappush(heap, (value, next(counter), f))

    for a in problem.actions.values():
        if waiting[a.id] == 0:
            fire(a, 0.0)
    settled: set[str] = set(facts)
    while heap:
        value, _, f = heapq.heappop(heap)
        if f in settled or value > cost.get(f, INF):
            continue
        settled.add(f)
        for a in by_pre.get(f, ()):
            waiting[a.id] -= 1
            if waiting[a.id] == 0:
                fire(a, max((cost.get(p, 0.0) for p in a.pre), default=0.0))
    return cost


def astar_plan(problem: Problem, max_expansions: int = 200_000) -> RawPlan | None:
    """Minimum-cost plan: target produced and every anchor applied (None if none exists)."""
    anchors = [a for a in problem.anchors]
    if any(a not in problem.actions for a in anchors):
        return None
    anchor_index = {a: i for i, a in enumerate(anchors)}
    full_mask = (1 << len(anchors)) - 1
    costs = {a.id: a.cost for a in problem.actions.values()}

    def h(facts: frozenset[str], mask: int) -> float:
        # every goal is needed on its own: the target, and each unused anchor together
        # with its inputs; the most expensive one bounds the plan's remaining cost
        goals = [frozenset([problem.target])]
        extra = [0.0]
        for a, i in anchor_index.items():
            if not mask & (1 << i):
                goals.append(problem.actions[a].pre)
                extra.append(costs[a])
        cost = _relaxed_costs(problem, facts, costs)
        inf = float("inf")
        return max(max((cost.get(f, inf) for f in goal), default=0.0) + e for goal, e in zip(goals, extra))

    start = (problem.initial, 0)
    counter = itertools.count()
    h0 = h(*start)
    if h0 == float("inf"):
        return None
    # heap entries: (f, g, tiebreak, facts, mask, path)
    heap = [(h0, 0.0, next(counter), problem.initial, 0, ())]
    best_g: dict[tuple[frozenset[str], int], float] = {start: 0.0}
    ordered = sorted(problem.actions.values(), key=lambda a: a.id)
    expansions = 0
    while heap:
        f, g, _, facts, mask, path = heapq.heappop(heap)
        if g > best_g.get((facts, mask), float("inf")):
            continue
        if problem.target in facts and mask == full_mask:
            return RawPlan(path, round(g, 6))
        expansions += 1
        if expansions > max_expansions:
            return None
        used = set(path)
        for a in ordered:
            if a.id in used or not a.pre <= facts:
                continue
            new_mask = mask | (1 << anchor_index[a.id]) if a.id in anchor_index else mask
            new_facts = facts | a.add
            if new_facts == facts and new_mask == mask:
                continue  # adds nothing: never part of a minimal plan
            ng = g + a.cost
            key = (new_facts, new_mask)
            if ng >= best_g.get(key, float("inf")) - 1e-9:
                continue
            hv = h(new_facts, new_mask)
            if hv == float("inf"):
                continue
            best_g[key] = ng
            heapq.heappush(heap, (ng + hv, ng, next(counter), new_facts, new_mask, path + (a.id,)))
    return None


def bfs_plan(problem: Problem, max_states: int = 2_000_000) -> RawPlan | None:
    """Baseline: breadth-first search over sets of available datatypes (original design §6).

    Explores states level by level (number of actions), with no heuristic and no
    cost ordering; returns the first plan with the fewest actions, and among
    those the cheapest of its level.
    """
    anchors = set(problem.anchors)
    if not anchors <= set(problem.actions):
        return None
    ordered = sorted(problem.actions.values(), key=lambda a: a.id)
    start = (problem.initial, frozenset())
    frontier = deque([(problem.initial, (), 0.0)])
    seen = {start}
    best: RawPlan | None = None
    level = 0
    while frontier and len(seen) < max_states:
        next_frontier = deque()
        for facts, path, cost in frontier:
            if problem.target in facts and anchors <= set(path):
                if best is None or cost < best.cost:
                    best = RawPlan(path, round(cost, 6))
                continue
            for a in ordered:
                if a.id in path or not a.pre <= facts:
                    continue
                new_facts = facts | a.add
                new_used = frozenset(path) | {a.id}
                key = (new_facts, new_used & anchors)
                if key in seen:
                    continue
                seen.add(key)
                next_frontier.append((new_facts, path + (a.id,), cost + a.cost))
        if best is not None:
            return best
        frontier = next_frontier
        level += 1
        if level > len(problem.actions):
            break
    return best
