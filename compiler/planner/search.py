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
import time
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


class _Compiled:
    """A Problem over integers: facts and actions indexed, fact sets as bitmasks."""

    def __init__(self, problem: Problem):
        self.actions = sorted(problem.actions.values(), key=lambda a: a.id)
        facts = sorted(set(problem.initial).union(*(a.pre | a.add for a in self.actions), [problem.target]))
        self.fact_ids = {f: i for i, f in enumerate(facts)}
        fid = self.fact_ids
        self.pre = [[fid[p] for p in sorted(a.pre)] for a in self.actions]
        self.pre_mask = [sum(1 << i for i in p) for p in self.pre]
        self.add = [[fid[p] for p in sorted(a.add)] for a in self.actions]
        self.add_mask = [sum(1 << i for i in p) for p in self.add]
        self.cost = [a.cost for a in self.actions]
        self.consumers: list[list[int]] = [[] for _ in facts]
        for i, pre in enumerate(self.pre):
            for p in pre:
                self.consumers[p].append(i)
        self.initial = sum(1 << fid[f] for f in problem.initial)
        self.target = fid[problem.target]
        self.anchors = list(problem.anchors)
        index = {a.id: i for i, a in enumerate(self.actions)}
        self.anchor_action = [index[a] for a in self.anchors]
        self.anchor_bit = [0] * len(self.actions)
        for bit, i in enumerate(self.anchor_action):
            self.anchor_bit[i] |= 1 << bit
        self.full_mask = (1 << len(self.anchors)) - 1

    def h(self, facts: int, mask: int) -> float:
        """h_max: the dearest single goal (the target, or an unused anchor with its inputs)."""
        INF = float("inf")
        goals: list[tuple[list[int], float]] = [([self.target], 0.0)]
        for bit, i in enumerate(self.anchor_action):
            if not mask >> bit & 1:
                goals.append((self.pre[i], self.cost[i]))
        open_goals = {f for g, _ in goals for f in g if not facts >> f & 1}
        cost: dict[int, float] = {}
        if open_goals:
            pre_mask, pre, add, acost = self.pre_mask, self.pre, self.add, self.cost
            missing = ~facts
            waiting = [(m & missing).bit_count() for m in pre_mask]
            heap: list[tuple[float, int]] = []

            def fire(i: int, base: float) -> None:
                value = base + acost[i]
                for f in add[i]:
                    if not facts >> f & 1 and value < cost.get(f, INF):
                        cost[f] = value
                        heapq.heappush(heap, (value, f))

            for i, w in enumerate(waiting):
                if w == 0:
                    fire(i, 0.0)
            settled: set[int] = set()
            # generalised Dijkstra (Knuth 1977): an action fires when its preconditions are settled;
            # it stops once every goal fact has its final cost
            while heap and open_goals:
                value, f = heapq.heappop(heap)
                if f in settled or value > cost[f]:
                    continue
                settled.add(f)
                open_goals.discard(f)
                for i in self.consumers[f]:
                    waiting[i] -= 1
                    if waiting[i] == 0:
                        fire(i, max((cost.get(p, 0.0) for p in pre[i]), default=0.0))
            if open_goals:
                return INF
        return max(max((cost.get(f, 0.0) for f in g), default=0.0) + e for g, e in goals)


def astar_plan(problem: Problem, max_expansions: int = 200_000) -> RawPlan | None:
    """Minimum-cost plan: target produced and every anchor applied (None if none exists)."""
    if any(a not in problem.actions for a in problem.anchors):
        return None
    c = _Compiled(problem)
    memo: dict[tuple[int, int], float] = {}

    def h(facts: int, mask: int) -> float:
        key = (facts, mask)
        value = memo.get(key)
        if value is None:
            value = memo[key] = c.h(facts, mask)
        return value

    INF = float("inf")
    h0 = h(c.initial, 0)
    if h0 == INF:
        return None
    counter = itertools.count()
    # heap entries: (f, g, tiebreak, facts, mask, path)
    heap = [(h0, 0.0, next(counter), c.initial, 0, ())]
    best_g: dict[tuple[int, int], float] = {(c.initial, 0): 0.0}
    pre_mask, add_mask, cost, anchor_bit = c.pre_mask, c.add_mask, c.cost, c.anchor_bit
    target_bit = 1 << c.target
    n = len(c.actions)
    expansions = 0
    while heap:
        f, g, _, facts, mask, path = heapq.heappop(heap)
        if g > best_g.get((facts, mask), INF):
            continue
        if facts & target_bit and mask == c.full_mask:
            return RawPlan(tuple(c.actions[i].id for i in path), round(g, 6))
        expansions += 1
        if expansions > max_expansions:
            return None
        for i in range(n):
            if pre_mask[i] & ~facts:
                continue
            new_facts = facts | add_mask[i]
            new_mask = mask | anchor_bit[i]
            if new_facts == facts and new_mask == mask:
                continue  # adds nothing (also: already applied): never part of a minimal plan
            ng = g + cost[i]
            key = (new_facts, new_mask)
            if ng >= best_g.get(key, INF) - 1e-9:
                continue
            hv = h(new_facts, new_mask)
            if hv == INF:
                continue
            best_g[key] = ng
            heapq.heappush(heap, (ng + hv, ng, next(counter), new_facts, new_mask, path + (i,)))
    return None


def bfs_plan(problem: Problem, max_states: int = 2_000_000, time_limit: float | None = None) -> RawPlan | None:
    """Baseline: breadth-first search over sets of available datatypes (original design §6).

    Explores states level by level (number of actions), with no heuristic and no
    cost ordering; returns the first plan with the fewest actions, and among
    those the cheapest of its level. Gives up (None) after `max_states` states or
    `time_limit` seconds.
    """
    anchors = set(problem.anchors)
    if not anchors <= set(problem.actions):
        return None
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    ordered = sorted(problem.actions.values(), key=lambda a: a.id)
    start = (problem.initial, frozenset())
    frontier = deque([(problem.initial, (), 0.0)])
    seen = {start}
    best: RawPlan | None = None
    level = 0
    while frontier and len(seen) < max_states:
        next_frontier = deque()
        for facts, path, cost in frontier:
            if deadline is not None and time.perf_counter() > deadline:
                return best
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
