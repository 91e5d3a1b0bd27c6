"""Constrained plan search over the AND/OR capability graph.

Production search: A* over states (facts derived so far, anchors used), where
applying an operation adds its output datatypes (an operation is an AND node:
all its required inputs must be facts; a datatype is an OR node: any producer
will do). Each action is applied at most once, so a plan is a set of operation
instances whose data dependencies form a DAG; branch-join plans (DE -> KEGG +
GO -> merge) fall out of the search itself.

The heuristic is LM-cut (Helmert & Domshlak 2009) over the goals (the target,
and a "used" fact per unused anchor): the sum of the costs of disjoint action
landmarks cut from the h_max justification graph. It never overestimates and
dominates h_max, so the first goal state popped is a minimum-cost plan -- the
same cost Fast Downward's optimal search (A* + LM-cut) finds on the PDDL export
of the same Problem (benchmarks/run.py checks it on every instance) -- with far
fewer expansions on plans with parallel branches. States are bitmasks over the
problem's facts; among equal f the deepest state is expanded first. h_max
(`_Compiled.h`) is kept as the weaker reference heuristic (tests compare them).

`bfs_plan` is the plain breadth-first search of the original design, kept as a
baseline for tests and benchmarks.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from bioplan.cache import Memo
from bioplan.planner.graph import Action, Problem


@dataclass(frozen=True)
class RawPlan:
    actions: tuple[str, ...]  # in a valid execution order
    cost: float


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
        self.achievers: list[list[int]] = [[] for _ in facts]
        for i, add in enumerate(self.add):
            for f in add:
                self.achievers[f].append(i)
        self.initial = sum(1 << fid[f] for f in problem.initial)
        self.target = fid[problem.target]
        self.anchors = list(problem.anchors)
        index = {a.id: i for i, a in enumerate(self.actions)}
        self.anchor_action = [index[a] for a in self.anchors]
        self.anchor_bit = [0] * len(self.actions)
        for bit, i in enumerate(self.anchor_action):
            self.anchor_bit[i] |= 1 << bit
        self.full_mask = (1 << len(self.anchors)) - 1
        # LM-cut's view: anchors add a "used" fact, an artificial init fact precedes actions
        # without inputs, and an artificial goal action (cost 0) needs the target and every anchor
        self.n_plain = len(facts)
        k = len(self.anchors)
        self.goal_fact, self.init_fact = self.n_plain + k, self.n_plain + k + 1
        self.n_facts = self.n_plain + k + 2
        self.lm_pre = [p or [self.init_fact] for p in self.pre]
        self.lm_add = [list(a) for a in self.add]
        for bit, i in enumerate(self.anchor_action):
            self.lm_add[i].append(self.n_plain + bit)
        self.lm_pre.append([self.target] + [self.n_plain + bit for bit in range(k)])
        self.lm_add.append([self.goal_fact])
        self.lm_cost = self.cost + [0.0]
        # costs never below 0 (a cut lowers each by at most its own): facts leave _lm_hmax's heap
        # in order of their value, so an action's dearest precondition is the one popped last
        self.lm_monotone = all(c >= 0 for c in self.lm_cost)
        self.lm_pre_len = [len(p) for p in self.lm_pre]
        self.lm_goal_mask = sum(1 << f for f in self.lm_pre[-1])
        self.init_bit = 1 << self.init_fact
        self.lm_consumers: list[list[int]] = [[] for _ in range(self.n_facts)]
        self.lm_achievers: list[list[int]] = [[] for _ in range(self.n_facts)]
        for i, needs in enumerate(self.lm_pre):
            for f in needs:
                self.lm_consumers[f].append(i)
        for i, a in enumerate(self.lm_add):
            for f in a:
                self.lm_achievers[f].append(i)

    def lmcut(self, facts: int, mask: int, cuts: list | None = None) -> float:
        """LM-cut (Helmert & Domshlak 2009): the sum of the costs of disjoint action landmarks,
        found by cutting the h_max justification graph between the state and the goal. It is
        admissible and dominates h_max, so A* stays optimal and expands far fewer states.
        The cuts (every plan from this state uses an action of each) go to `cuts`."""
        INF = float("inf")
        bits = facts | mask << self.n_plain | self.init_bit
        if not self.lm_goal_mask & ~bits:
            return 0.0
        state = []  # LM-cut's facts of the state: its plain facts, a "used" fact per applied anchor, init
        while bits:
            low = bits & -bits
            state.append(low.bit_length() - 1)
            bits ^= low
        cost = list(self.lm_cost)  # each round lowers the costs of the actions it cuts
        total = 0.0
        val, pcf, by_pcf = self._lm_hmax(state, cost)
        while True:
            if val[self.goal_fact] == INF:
                return INF
            if val[self.goal_fact] <= 1e-9:
                return total
            cut = self._lm_cut(state, self._lm_goal_zone(pcf, cost), by_pcf)
            if not cut:
                return total
            if cuts is not None:
                cuts.append(tuple(sorted(cut)))
            m = min(cost[i] for i in cut)
            total += m
            for i in cut:
                cost[i] -= m
            if self.lm_monotone:
                self._lm_lower(val, pcf, by_pcf, cost, cut)
            else:
                val, pcf, by_pcf = self._lm_hmax(state, cost)

    def _lm_lower(self, val: list[float], pcf: list[int], by_pcf: list[list[int]], cost: list[float],
                  cut: set[int]) -> None:
        """h_max and the justification graph after the cut's costs went down, updated in place:
        the same values as `_lm_hmax` from scratch (costs only fall, so values only fall, from
        the cut's effects onward: a Dijkstra over the facts that get cheaper). An action is
        re-read only when its dearest precondition gets cheaper: another one, lowered, stays
        below that one (and after it on ties)."""
        pre, add, consumers = self.lm_pre, self.lm_add, self.lm_consumers
        heap: list[tuple[float, int]] = []
        for i in cut:
            w = val[pcf[i]] + cost[i]
            for g in add[i]:
                if w < val[g]:
                    val[g] = w
                    heapq.heappush(heap, (w, g))
        while heap:
            v, f = heapq.heappop(heap)
            if v > val[f]:
                continue  # lowered again since
            for i in consumers[f]:
                if pcf[i] != f:
                    continue
                needs = pre[i]
                top = max(val[p] for p in needs)
                best = needs[0]
                if val[best] != top:
                    best = next(p for p in needs if val[p] == top)
                if best != f:
                    by_pcf[f].remove(i)
                    by_pcf[best].append(i)
                    pcf[i] = best
                w = top + cost[i]
                for g in add[i]:
                    if w < val[g]:
                        val[g] = w
                        heapq.heappush(heap, (w, g))

    def _lm_hmax(self, state: list[int], cost: list[float]) -> tuple[list[float], list[int], list[list[int]]]:
        """h_max of every fact under the current costs (generalised Dijkstra), and the
        justification graph: the dearest precondition of every action the relaxation reaches
        (first one on ties; -1 if not reached; the artificial goal action last), and the reached
        actions grouped by it."""
        INF = float("inf")
        pre, add, consumers = self.lm_pre, self.lm_add, self.lm_consumers
        val = [INF] * self.n_facts
        for f in state:
            val[f] = 0.0
        waiting = list(self.lm_pre_len)
        pcf = [-1] * len(pre)
        by_pcf: list[list[int]] = [[] for _ in val]
        done = [False] * self.n_facts
        monotone = self.lm_monotone
        # the state's facts first (0 is the least value), then the heap in order of value; with a
        # cost below 0 a state's fact may get lower: all in the heap (sorted: a heap already)
        heap: list[tuple[float, int]] = [] if monotone else [(0.0, f) for f in state]
        for v, f in itertools.chain(((0.0, f) for f in state) if monotone else (), _drain(heap)):
            if done[f]:
                continue
            done[f] = True
            for i in consumers[f]:
                waiting[i] -= 1
                if waiting[i]:
                    continue
                needs = pre[i]
                # v is val[f], the largest value popped so far: the max of needs' values
                top = v if monotone else max(val[p] for p in needs)
                best = needs[0]
                if val[best] != top:
                    best = next(p for p in needs if val[p] == top)
                pcf[i] = best
                by_pcf[best].append(i)
                w = top + cost[i]
                for g in add[i]:
                    if w < val[g]:
                        val[g] = w
                        heapq.heappush(heap, (w, g))
        if not monotone:  # a later pop may lower a precondition below the value it had
            self._lm_repick(val, pcf, by_pcf)
        return val, pcf, by_pcf

    def _lm_repick(self, val: list[float], pcf: list[int], by_pcf: list[list[int]]) -> None:
        """The dearest preconditions by the final values (costs below 0 only)."""
        for group in by_pcf:
            group.clear()
        for i, needs in enumerate(self.lm_pre):
            if pcf[i] >= 0:
                best = needs[0]
                for p in needs:
                    if val[p] > val[best]:
                        best = p
                pcf[i] = best
                by_pcf[best].append(i)

    def _lm_goal_zone(self, pcf: list[int], cost: list[float]) -> list[bool]:
        """The goal zone: facts from which the goal is reached through zero-cost actions."""
        achievers = self.lm_achievers
        zone = [False] * self.n_facts
        zone[self.goal_fact] = True
        stack = [self.goal_fact]
        while stack:
            g = stack.pop()
            for i in achievers[g]:
                p = pcf[i]
                if p >= 0 and cost[i] <= 1e-9 and not zone[p]:
                    zone[p] = True
                    stack.append(p)
        return zone

    def _lm_cut(self, state: list[int], zone: list[bool], by_pcf: list[list[int]]) -> set[int]:
        """The cut: actions leading from the facts reachable from the state outside the goal
        zone into the goal zone (a disjunctive action landmark)."""
        add = self.lm_add
        seen = [False] * self.n_facts
        stack = []
        for f in state:
            if not zone[f]:
                seen[f] = True
                stack.append(f)
        cut: set[int] = set()
        while stack:
            f = stack.pop()
            for i in by_pcf[f]:
                for g in add[i]:
                    if zone[g]:
                        cut.add(i)
                    elif not seen[g]:
                        seen[g] = True
                        stack.append(g)
        return cut

    def stubborn(self, facts: int, landmark) -> list[int]:
        """The applicable actions of the strong stubborn set grown from `landmark`."""
        pre, pre_mask, achievers = self.pre, self.pre_mask, self.achievers
        chosen = set(landmark)
        todo = list(landmark)
        while todo:
            i = todo.pop()
            if not pre_mask[i] & ~facts:
                continue
            # a necessary enabling set: the achievers of the missing input with the fewest
            p = min((p for p in pre[i] if not facts >> p & 1), key=lambda p: (len(achievers[p]), p))
            for j in achievers[p]:
                if j not in chosen:
                    chosen.add(j)
                    todo.append(j)
        return sorted(i for i in chosen if not pre_mask[i] & ~facts)

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


def _drain(heap: list[tuple[float, int]]):
    """Pop `heap` until it is empty (it may grow while the caller works)."""
    while heap:
        yield heapq.heappop(heap)


def _consumers_and_achievers(actions: dict[str, Action]) -> tuple[dict[str, list[Action]], dict[str, list[Action]]]:
    """For each fact, the actions that need it and the actions that add it."""
    consumers: dict[str, list[Action]] = {}
    achievers: dict[str, list[Action]] = {}
    for a in actions.values():
        for p in a.pre:
            consumers.setdefault(p, []).append(a)
        for f in a.add:
            achievers.setdefault(f, []).append(a)
    return consumers, achievers


def _relaxed_costs(problem: Problem, consumers: dict[str, list[Action]],
                   combine: Callable[[list[float]], float]) -> tuple[dict[str, float], dict[str, Action]]:
    """Generalised Dijkstra from the initial facts: an action fires once all its inputs are
    settled, at combine(input values) + its cost; the first value a fact settles at is final.
    Returns the settled facts' values and each reached fact's best supporter (ties: smallest id)."""
    INF = float("inf")
    actions = problem.actions
    value: dict[str, float] = {f: 0.0 for f in problem.initial}
    best: dict[str, Action] = {}
    waiting = {a.id: len(a.pre) for a in actions.values()}
    heap: list[tuple[float, str]] = [(0.0, f) for f in sorted(problem.initial)]
    settled: set[str] = set()

    def fire(a: Action) -> None:
        v = combine([value[p] for p in a.pre]) + a.cost
        for f in a.add:
            if f not in settled and (v < value.get(f, INF) or (v == value[f] and f in best and a.id < best[f].id)):
                value[f] = v
                best[f] = a
                heapq.heappush(heap, (v, f))

    for a in sorted(actions.values(), key=lambda a: a.id):
        if not a.pre:
            fire(a)
    while heap:
        v, f = heapq.heappop(heap)
        if f in settled:
            continue
        settled.add(f)
        for a in consumers.get(f, ()):
            waiting[a.id] -= 1
            if waiting[a.id] == 0:
                fire(a)
    return {f: value[f] for f in settled}, best


def _relaxed_plan_cost(problem: Problem, goals: set[str], anchors: list[str], supporter: dict[str, Action]) -> float:
    """The cost of the relaxed plan made of the goals' best supporters, recursively, and the
    anchors: with no delete effects it is a real plan, so its cost bounds the optimum from above."""
    actions = problem.actions
    plan: set[str] = set(anchors)
    todo = [g for g in goals if g not in problem.initial]
    seen: set[str] = set(todo)
    while todo:
        f = todo.pop()
        a = supporter[f]
        if a.id not in plan:
            plan.add(a.id)
        for p in a.pre:
            if p not in problem.initial and p not in seen:
                seen.add(p)
                todo.append(p)
    for x in anchors:  # an anchor's own inputs come through its supporters (added above)
        plan.add(x)
    return sum(actions[a].cost for a in plan)


def _cheapest_chains(goals: set[str], achievers: dict[str, list[Action]]) -> dict[str, float]:
    """Backward Dijkstra from the goal facts: for each action that leads to a goal, its cost plus
    the cheapest chain of consumers from its outputs to a goal fact."""
    INF = float("inf")
    dist: dict[str, float] = {g: 0.0 for g in goals}
    heap = [(0.0, g) for g in sorted(goals)]
    done: set[str] = set()
    chain: dict[str, float] = {}  # action -> its cost plus its cheapest output's distance
    while heap:
        d, g = heapq.heappop(heap)
        if g in done:
            continue
        done.add(g)
        for a in achievers.get(g, ()):
            if a.id in chain:
                continue
            chain[a.id] = a.cost + d
            for p in a.pre:
                if chain[a.id] < dist.get(p, INF):
                    dist[p] = chain[a.id]
                    heapq.heappush(heap, (chain[a.id], p))
    return chain


def _within_bounds(actions: dict[str, Action], anchors: list[str], hmax: dict[str, float],
                   chain: dict[str, float], upper: float) -> dict[str, Action]:
    """The anchors, and the actions whose lower bound (h_max of the inputs + the chain to a goal)
    does not exceed the upper bound: only these can be in a minimum-cost plan."""
    keep = {}
    for k, a in actions.items():
        if k in anchors:
            keep[k] = a
            continue
        if any(p not in hmax for p in a.pre) or k not in chain:
            continue
        lower = max((hmax[p] for p in a.pre), default=0.0) + chain[k]
        if lower <= upper + 1e-9:
            keep[k] = a
    return keep


def bound_actions(problem: Problem) -> Problem | None:
    """The actions that can be in a minimum-cost plan, by cost bounds (None: no plan exists).

    Upper bound U: a relaxed plan extracted from the h_add best supporters is a real plan here
    (no delete effects). Lower bound for a plan that uses action a: the h_max cost of a's inputs,
    plus a's cost, plus the cheapest chain of consumers from a's outputs to a goal fact (the
    target or an anchor's input) -- the actions making a's inputs come before a and the chain
    after it, so the two are disjoint. An action whose bound exceeds U is in no optimal
    (minimal) plan and is dropped; anchors are always kept. One pass each way, O(actions)."""
    actions = problem.actions
    anchors = [a for a in dict.fromkeys(problem.anchors)]
    consumers, achievers = _consumers_and_achievers(actions)
    hmax, _ = _relaxed_costs(problem, consumers, _max_or_zero)
    _, supporter = _relaxed_costs(problem, consumers, sum)
    goals = {problem.target}
    for x in anchors:
        goals |= actions[x].pre
    if any(g not in hmax for g in goals):  # a goal fact is unreachable even relaxed
        return None
    upper = _relaxed_plan_cost(problem, goals, anchors, supporter)
    keep = _within_bounds(actions, anchors, hmax, _cheapest_chains(goals, achievers), upper)
    return Problem(problem.initial, problem.target, problem.anchors, keep, problem.max_hops, problem.pruned,
                   problem.blocked)


def _max_or_zero(values: list[float]) -> float:
    """h_max's combination of input costs (an action without inputs costs only itself)."""
    return max(values, default=0.0)


# The search of one Problem stops after this many expansions (a state taken off the open list and
# branched on): each evaluates LM-cut on its successors, so the cap bounds the search's work. Real
# requests expand at most 73 in one search (both eval sets; planner/plan.py's budget); 80 operations
# named at random together need more than 1,000 (~13 s), and the request is refused, saying why.
MAX_EXPANSIONS = 1_000


class SearchLimitReached(Exception):
    """A* stopped at its expansion limit before it found a plan or proved there is none."""

    def __init__(self, limit: int):
        super().__init__(f"the plan search stopped at its limit of {limit} expansions")
        self.limit = limit


def astar_plan(problem: Problem, max_expansions: int = MAX_EXPANSIONS) -> RawPlan | None:
    """Minimum-cost plan: target produced and every anchor applied (None if none exists).
    Raises SearchLimitReached when the search needs more than `max_expansions` expansions."""
    return astar_search(problem, max_expansions)[0]


def astar_search(problem: Problem, max_expansions: int = MAX_EXPANSIONS) -> tuple[RawPlan | None, int]:
    """`astar_plan` and the number of expansions the search made: the same count whether the
    result is searched or kept, so a budget charged with it is spent the same way every time.

    The search reads only the initial facts, the target, the anchors and the actions, so its
    result is kept per process under exactly those (a request planned again, the Yen and motif
    variants that give the same Problem, the tests' repeated requests: ~2/3 of the calls).
    Only finished searches are kept (with their count): one that needed more than a limit
    stops at that limit again."""
    problem_key = problem.search_key()
    if problem_key is None:  # an action built with mutable sets: not kept
        return _astar_search(problem, max_expansions)
    hit = _ASTAR_MEMO.get(problem_key, None)  # one lookup: another thread (eval --compile) may clear it
    if hit is None:
        hit = _ASTAR_MEMO.keep(problem_key, _astar_search(problem, max_expansions))
    plan, expansions = hit
    if expansions > max_expansions:  # found with a larger limit: this one stops first
        raise SearchLimitReached(max_expansions)
    return plan, expansions


_ASTAR_MEMO_MAX = 4096
_ASTAR_MEMO: Memo[tuple, tuple[RawPlan | None, int]] = Memo(_ASTAR_MEMO_MAX)


def _astar_plan(problem: Problem, max_expansions: int) -> RawPlan | None:
    """`astar_plan` without the memo."""
    return _astar_search(problem, max_expansions)[0]


def _astar_search(problem: Problem, max_expansions: int) -> tuple[RawPlan | None, int]:
    """`astar_search` without the memo.

    Only the applicable actions of a strong stubborn set are branched on (Alkhazraji et al.
    2012; Wehrle & Helmert 2014): start from a disjunctive action landmark of the state (its
    smallest LM-cut cut: every plan from the state uses one of its actions) and, for every
    action of the set that is not applicable yet, add the achievers of one of its missing
    inputs. With no delete effects no action interferes with another, so this is the whole
    definition, and the pruning keeps A* optimal; it depends on the state only, so it is safe
    with duplicate detection."""
    if any(a not in problem.actions for a in problem.anchors):
        return None, 0
    bounded = bound_actions(problem)
    if bounded is None:
        return None, 0
    c = _Compiled(bounded)
    memo: dict[tuple[int, int], tuple[float, list]] = {}
    h = _memoised_lmcut(c, memo)
    if h(c.initial, 0) == float("inf"):
        return None, 0
    return _astar(c, h, memo, max_expansions)


def _memoised_lmcut(c: _Compiled, memo: dict[tuple[int, int], tuple[float, list]]) -> Callable[[int, int], float]:
    """LM-cut of a state, computed once per state: its value, with its cuts kept in `memo`
    (the search branches on the smallest cut of the state it expands)."""
    def h(facts: int, mask: int) -> float:
        key = (facts, mask)
        hit = memo.get(key)
        if hit is None:
            cuts: list = []
            hit = memo[key] = (c.lmcut(facts, mask, cuts), cuts)
        return hit[0]

    return h


def _astar(c: _Compiled, h: Callable[[int, int], float], memo: dict[tuple[int, int], tuple[float, list]],
           max_expansions: int) -> tuple[RawPlan | None, int]:
    """A* from the initial state (whose h is already in `memo`), branching on stubborn sets: the
    plan (None: there is none) and the expansions made. Raises SearchLimitReached rather than
    make expansion number `max_expansions` + 1."""
    INF = float("inf")
    counter = itertools.count()
    # heap entries: (f, -g, tiebreak, facts, mask, path): among equal f the deepest state first
    heap: list[tuple[float, float, int, int, int, tuple[int, ...]]] = [
        (memo[(c.initial, 0)][0], -0.0, next(counter), c.initial, 0, ())]
    best_g: dict[tuple[int, int], float] = {(c.initial, 0): 0.0}
    pre_mask, add_mask, cost, anchor_bit = c.pre_mask, c.add_mask, c.cost, c.anchor_bit
    target_bit = 1 << c.target
    everything = range(len(c.actions))
    expansions = 0
    while heap:
        f, g, _, facts, mask, path = heapq.heappop(heap)
        g = -g
        if g > best_g.get((facts, mask), INF):
            continue
        if facts & target_bit and mask == c.full_mask:
            return RawPlan(tuple(c.actions[i].id for i in path), round(g, 6)), expansions
        expansions += 1
        if expansions > max_expansions:
            raise SearchLimitReached(max_expansions)
        cuts = memo[(facts, mask)][1]
        branch = c.stubborn(facts, min(cuts, key=len)) if cuts else everything
        for i in branch:
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
            heapq.heappush(heap, (ng + hv, -ng, next(counter), new_facts, new_mask, path + (i,)))
    return None, expansions


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
    start: tuple[frozenset[str], frozenset[str]] = (problem.initial, frozenset())
    frontier: deque[tuple[frozenset[str], tuple[str, ...], float]] = deque([(problem.initial, (), 0.0)])
    seen = {start}
    best: RawPlan | None = None
    level = 0
    while frontier and len(seen) < max_states:
        next_frontier: deque[tuple[frozenset[str], tuple[str, ...], float]] = deque()
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
