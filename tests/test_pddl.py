"""PDDL export of a planning Problem (`bioplan plan --emit pddl`).

Without a planner: the export is well-formed, names are valid and unique, costs are scaled to
integers, anchors are goals, and a small STRIPS interpreter of the exported text accepts the
A* plan and computes its cost. With unified-planning + up-fast-downward installed (the `bench`
extra): Fast Downward's optimal plan costs what bioplan's A* plan costs.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings

from bioplan.cli import main
from bioplan.planner.graph import Action, Problem, build_problem
from bioplan.planner.pddl import cost_scale, to_pddl
from bioplan.planner.search import astar_plan
from conftest import example_inputs, example_request, examples, skip_or_fail_in_ci
from test_planner_properties import problems


def small_problem() -> Problem:
    acts = {
        "align": Action("align", 1.0, frozenset({"reads", "index"}), frozenset({"bam"}), "align"),
        "index": Action("index", 1.0, frozenset({"genome"}), frozenset({"index"}), "index"),
        "provide:genome": Action("provide:genome", 0.25, frozenset(), frozenset({"genome"}), None),
        "count": Action("count", 0.5, frozenset({"bam"}), frozenset({"counts", "table"}), "count"),
    }
    return Problem(frozenset({"reads"}), "counts", ("count",), acts, max_hops=8)


def interpret(domain: str, problem: str) -> tuple[dict, set[str], set[str]]:
    """Actions {name: (pre, add, cost)}, initial facts and goal facts of a flat STRIPS export."""
    actions = {}
    for m in re.finditer(r"\(:action (\S+).*?:precondition \(and ?(.*?)\)\n\s*:effect \(and (.*?)\)\)\n", domain, re.S):
        pre = set(re.findall(r"\((?:have|holds) ([^)\s]+)\)", m.group(2)))
        add = set(re.findall(r"\((?:have|used) ([^)\s]+)\)", m.group(3)))
        cost = int(re.search(r"\(increase \(total-cost\) (\d+)\)", m.group(3)).group(1))
        actions[m.group(1)] = (pre, add, cost)
    init = set(re.findall(r"\((?:have|holds) ([^)\s]+)\)", re.search(r"\(:init (.*?)\(= ", problem).group(1)))
    goal = set(re.findall(r"\((?:have|used) ([^)\s]+)\)", re.search(r"\(:goal (.*)\)\n", problem).group(1)))
    return actions, init, goal


def test_export_is_well_formed():
    p = small_problem()
    ex = to_pddl(p)
    assert ex.cost_scale == 4
    for text in (ex.domain, ex.problem):
        depth = 0
        for line in text.splitlines():
            code = line.split(";", 1)[0]
            depth += code.count("(") - code.count(")")
            assert depth >= 0
        assert depth == 0
    assert "(:requirements :strips :typing :action-costs)" in ex.domain
    assert "(:metric minimize (total-cost))" in ex.problem
    assert "(used op-count)" in ex.problem and "(have counts)" in ex.problem
    assert set(ex.action_names.values()) == set(p.actions)
    for name in ex.action_names:
        assert re.fullmatch(r"[a-z][a-z0-9_-]*", name)
    assert "provide_genome" in ex.action_names
    assert re.search(r"\(:action count\b.*?\(increase \(total-cost\) 2\)", ex.domain, re.S)


def test_names_are_unique_when_ids_collide():
    acts = {"a:b": Action("a:b", 1.0, frozenset({"x"}), frozenset({"y"}), "a:b"),
            "a_b": Action("a_b", 1.0, frozenset({"x"}), frozenset({"y"}), "a_b"),
            "y": Action("y", 1.0, frozenset({"x"}), frozenset({"y"}), "y")}
    ex = to_pddl(Problem(frozenset({"x"}), "y", ("y",), acts, 8))
    assert len(set(ex.action_names)) == 3 and set(ex.action_names.values()) == set(acts)


def test_cost_scale():
    assert cost_scale([1.0, 2.0]) == 1
    assert cost_scale([0.5, 1.0]) == 2
    assert cost_scale([0.25, 0.5, 1.5]) == 4
    assert cost_scale([1 / 3, 0.5]) == 6


def _check_plan_in_pddl(p: Problem) -> None:
    ex = to_pddl(p)
    actions, facts, goal = interpret(ex.domain, ex.problem)
    plan = astar_plan(p)
    if plan is None:
        return
    by_id = {v: k for k, v in ex.action_names.items()}
    total = 0
    for a in plan.actions:
        pre, add, cost = actions[by_id[a]]
        assert pre <= facts, f"{a} is not applicable in the PDDL"
        facts |= add
        total += cost
    assert goal <= facts
    assert total == round(plan.cost * ex.cost_scale)


@settings(max_examples=examples(150), deadline=None)
@given(problems())
def test_astar_plans_are_valid_plans_of_the_export(problem):
    _check_plan_in_pddl(problem)


def test_shipped_example_exports_with_constraints(knowledge, workspace):
    from bioplan.compile import plan_request

    result = plan_request(example_request("bulk_de"), example_inputs(workspace, "bulk_de"), knowledge)
    p = build_problem(knowledge, result.spec)
    ex = to_pddl(p, knowledge, result.spec)
    assert "(holds organism_mouse)" in ex.problem
    # the differential expression action is gated by its data constraints
    de = re.search(r"\(:action differential_expression\b.*?:effect", ex.domain, re.S).group(0)
    assert "(holds requires_raw_integer_counts)" in de and "(holds requires_replicates)" in de
    _check_plan_in_pddl(p)


def test_cli_emits_pddl(workspace):
    args = ["plan", example_request("bulk_de")] + sum((["-i", f] for f in example_inputs(workspace, "bulk_de")), [])
    out = CliRunner().invoke(main, args + ["--emit", "pddl"])
    assert out.exit_code == 0, out.output
    assert "(define (domain bioplan)" in out.output and "(define (problem" in out.output
    out = CliRunner().invoke(main, args + ["--emit", "pddl", "--json"])
    data = json.loads(out.output)
    assert set(data) == {"domain", "problem", "cost_scale"}


# --------------------------------------------------------------------------- with Fast Downward


def _fast_downward_cost(p: Problem):
    try:
        import up_fast_downward  # noqa: F401  (registers the engine)
    except ImportError:
        skip_or_fail_in_ci("no Fast Downward: pip install -e '.[test]' (unified-planning, up-fast-downward)")
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    get_environment().credits_stream = None
    ex = to_pddl(p)
    up_problem = PDDLReader().parse_problem_string(ex.domain, ex.problem)
    with OneshotPlanner(name="fast-downward-opt") as planner:
        result = planner.solve(up_problem)
    if result.status == S.UNSOLVABLE_PROVEN:
        return None
    assert result.status == S.SOLVED_OPTIMALLY, result.status
    return ex.cost_of(p, [a.action.name for a in result.plan.actions])


# Fast Downward runs as a separate planner binary (seconds per problem): with the real-tool runs, not the fast tier
@pytest.mark.e2e
def test_fast_downward_agrees_on_a_small_problem():
    p = small_problem()
    assert _fast_downward_cost(p) == astar_plan(p).cost == 2.75


@pytest.mark.e2e
@settings(max_examples=examples(12), deadline=None)
@given(problems())
def test_fast_downward_agrees_with_astar(problem):
    plan = astar_plan(problem)
    fd = _fast_downward_cost(problem)
    assert (plan is None) == (fd is None)
    if plan is not None:
        assert abs(plan.cost - fd) < 1e-6
