"""Round 11 of requests written by others (microbiome, assembly, phylogenetics, proteins, requests in
other languages; compiler/bioplan/evaluate/from_others.yaml, ids r11.*): the families their failures
stood for.
"""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize("query", [
    "Here, in the homework, we will go through practical sequence assembly in more detail than in class. However, "
    "this homework will be more about finding the right tools and pipelines than about implementation (you "
    "actually do not need to implement anything at all; only call existing tools).",
    "Assemble the genome; you only need to run the existing scripts.",
])
def test_an_instruction_whose_object_is_software_is_no_unread_analysis(knowledge, query):
    """'finding the right tools', 'call existing tools': how the work is done (course pages), not a step."""
    request = parse_request(query, knowledge)
    assert "genome_assembly" in request.operations
    assert not request.unmatched_clauses


def test_an_unread_instruction_on_data_is_still_said(knowledge):
    request = parse_request("Assemble the genome, then call the frobnicated widgets.", knowledge)
    assert request.unmatched_clauses
