"""The SnpEff database is the genome's: built once per workflow from the genome FASTA and the GTF, never once
per sample or per tumour/normal pair (a human database takes about 16 GB and an hour to build).

Two patients' tumour/normal pairs annotated with SnpEff (nf-core/sarek's SNPEFF_BUILD runs once per
genome too): the Snakemake target's `<step>_build_db` rule has no wildcard, so one job builds the database
both pairs' annotation jobs read. Compiled only; no Snakemake process runs here.
"""

from __future__ import annotations

import re

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from test_lanes import sarek_sheet

QUERY = "call somatic variants with Mutect2 for each patient's tumour/normal pair and annotate with snpEff"
PAIRS = [("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "1"), ("p2", "p2_n", "0")]


@pytest.fixture(scope="module")
def annotation_rules(knowledge, tmp_path_factory) -> str:
    base = tmp_path_factory.mktemp("snpeff_pairs")
    result = plan_request(QUERY, sarek_sheet(base / "in", lanes=("L001",), rows=PAIRS), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out"))
    annotate = next(s for s in workflow.steps if s.tool == "snpeff")
    assert annotate.group_by == "pair"  # one annotation job per tumour/normal pair
    return SnakemakeGenerator(knowledge).files(workflow)[f"workflow/rules/{annotate.id}.smk"]


def _rule(text: str, name: str) -> str:
    start = text.index(f"rule {name}:")
    end = text.find("\nrule ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_database_is_built_by_one_job(annotation_rules):
    build = _rule(annotation_rules, "variant_annotation_build_db")
    output = re.search(r"output:\n\s+db=(.+),\n\s+log:\n\s+(.+),\n", build)
    assert output is not None, build
    assert output.groups() == ('directory("results/variant_annotation/snpeff_db")',
                               '"logs/variant_annotation/build_db.log"')
    assert "{pair}" not in build and "{sample}" not in build and "wildcards." not in build


def test_every_pair_is_annotated_with_that_database(annotation_rules):
    annotate = _rule(annotation_rules, "variant_annotation")
    assert "db=rules.variant_annotation_build_db.output.db," in annotate
    assert '"logs/variant_annotation/{pair}.log"' in annotate  # the annotation stays one job per pair
