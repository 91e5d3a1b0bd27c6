"""Planner properties on the shipped knowledge base, for random start/target/anchor choices.

Whatever the request: every step's inputs are given, supplied through config or
produced by an earlier step (the steps form a DAG); no step uses an operation or tool
the context pruned; anchors are all in the plan; plans respect max_hops; plans are
distinct; the A* cost equals the BFS baseline's whenever the baseline's plan is
as short as possible.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bioplan.errors import BioplanError
from bioplan.models import TargetOutput, TaskSpec
from bioplan.planner.bind import bind_plan
from bioplan.planner.graph import build_problem, operation_block_reason
from bioplan.planner.plan import search_plans
from bioplan.planner.search import astar_plan, bfs_plan
from conftest import examples

ASSAYS = [None, "bulk_rna_seq", "single_cell_rna_seq", "whole_genome_sequencing", "shotgun_metagenomics", "chip_seq"]


@st.composite
def specs(draw, knowledge):
    datatypes = sorted(d for d, v in knowledge.datatypes.items() if not v.config_provided)
    inputs = draw(st.lists(st.sampled_from(datatypes), min_size=1, max_size=3, unique=True))
    target = draw(st.sampled_from(sorted(knowledge.datatypes)))
    anchors = draw(st.lists(st.sampled_from(sorted(knowledge.operations)), max_size=2, unique=True))
    assay = draw(st.sampled_from(ASSAYS))
    max_hops = draw(st.integers(2, 8))
    constraints = {"assay": assay} if assay else {}
    return TaskSpec(query="property test", input_types=tuple(inputs), target_output=TargetOutput(semantic_type=target),
                    constraints=constraints, constraint_ids=(assay,) if assay else (),
                    required_operations=tuple(anchors), max_hops=max_hops)


def _check_plan(knowledge, spec, plan):
    ids = [s.id for s in plan.steps]
    assert len(ids) == len(set(ids))
    position = {sid: i for i, sid in enumerate(ids)}
    for step in plan.steps:
        op = knowledge.operations[step.operation]
        assert operation_block_reason(knowledge, spec, step.operation)[0] is None
        for port, p in op.inputs.items():
            if p.optional:
                continue
            src = step.sources[port]
            if src.startswith("input:"):
                assert src.split(":", 1)[1] in spec.input_types
            elif src.startswith("config:"):
                assert knowledge.datatypes[src.split(":", 1)[1]].config_provided
            else:
                assert src in position and src != step.id
        for a, b in plan.edges:
            assert a in position and b in position
    # the edges form a DAG
    graph = {s.id: {a for a, b in plan.edges if b == s.id} for s in plan.steps}
    done: set[str] = set()
    while len(done) < len(graph):
        ready = [n for n in graph if n not in done and graph[n] <= done]
        assert ready, "cycle in plan"
        done.update(ready)
    assert set(spec.required_operations) <= {s.operation for s in plan.steps}
    assert plan.depth <= spec.max_hops


@pytest.fixture(scope="module")
def kb(knowledge):
    return knowledge


def test_random_requests_give_valid_plans_or_explained_errors(kb):
    @settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(specs(kb))
    def check(spec):
        try:
            result = search_plans(kb, spec, top_k=3)
        except BioplanError as exc:
            assert exc.code in ("unsatisfiable", "constraint_violation")
            assert exc.message and exc.hints
            return
        keys = [frozenset(s.operation for s in p.steps) for p in result.plans]
        assert len(keys) == len(set(keys)), "plans are not distinct"
        for plan in result.plans:
            _check_plan(kb, spec, plan)
            try:
                bound, _ = bind_plan(kb, spec, plan)
            except BioplanError as exc:
                assert exc.code == "unsatisfiable"
                continue
            assert all(s.tool and kb.tools[s.tool].implements == s.operation for s in bound.steps)

    check()


def test_astar_is_never_worse_than_bfs_on_the_knowledge_base(kb):
    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(specs(kb))
    def check(spec):
        problem = build_problem(kb, spec)
        assume(len(problem.actions) <= 12)  # the baseline explodes beyond that
        a, b = astar_plan(problem), bfs_plan(problem)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.cost <= b.cost + 1e-9

    check()
