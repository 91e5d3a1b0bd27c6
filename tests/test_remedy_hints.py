"""Remedies are data: the why-not error's hint for a failed data constraint is its `hint` in
ontology/constraints.yaml, read from the structured block (planner/graph.py `Block`), not found by
matching words of the reason text."""

from __future__ import annotations

import pytest

from bioplan.errors import ConstraintViolationError, UnsatisfiableError
from bioplan.models import InputProfile
from bioplan.planner.plan import search_plans
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _de_spec(knowledge, **update):
    spec = build_spec(parse_request("differential expression", knowledge), InputProfile(), knowledge)
    return spec.model_copy(update=update)


@pytest.mark.parametrize("failed", ["requires_raw_integer_counts", "requires_replicates"])
def test_a_failed_data_constraint_gives_its_yaml_hint(knowledge, failed):
    with pytest.raises(ConstraintViolationError) as err:
        search_plans(knowledge, _de_spec(knowledge, data_facts={failed: False}))
    assert err.value.hints[0] == knowledge.constraints[failed].hint


def test_the_hint_is_read_from_the_knowledge_not_the_code(knowledge):
    constraint = knowledge.constraints["requires_replicates"]
    edited = knowledge.model_copy(update={"constraints": {
        **knowledge.constraints, constraint.id: constraint.model_copy(update={"hint": "sequence more mice"})}})
    with pytest.raises(ConstraintViolationError) as err:
        search_plans(edited, _de_spec(edited, data_facts={"requires_replicates": False}))
    assert err.value.hints[0] == "sequence more mice"


def test_every_tool_excluded_is_unsatisfiable_with_the_tools_remedy(knowledge):
    tools = tuple(t.id for t in knowledge.tools_for("differential_expression"))
    with pytest.raises(UnsatisfiableError) as err:
        search_plans(knowledge, _de_spec(knowledge, excluded_tools=tools))
    assert not isinstance(err.value, ConstraintViolationError)
    assert err.value.hints[0] == "allow one of the tools that implement 'differential_expression'"
