"""The spec parses a request a second time with its inputs' context (`passes/readings.py`). That
second parse reuses the first one's context-free steps (`parse._RECENT`) and recomputes only the
intent phrases, and the rest only when the phrases differ: it must give exactly what a whole parse
with that context gives, on every request of the development sets."""

from __future__ import annotations

import pytest

from bioplan.request import parse
from bioplan.request.lexicon import normalize
from bioplan.request.parse import parse_request
from conftest import ROOT
from helpers import read_yaml

CASE_FILES = [ROOT / "compiler" / "bioplan" / "evaluate" / name for name in ("dev_set.yaml", "from_others.yaml")]
FORMATS = ("h5ad", "fastq", "vcf", "bam", "csv tsv", "gmt", "fasta gtf", "mtx")


def _requests() -> list[str]:
    out = []
    for path in CASE_FILES:
        out += [case["request"] for case in read_yaml(path)["cases"]]
    return [r for r in out if r and r.strip()]


def _contexts(knowledge) -> list[str]:
    """Contexts as `readings.input_context` writes them: the inputs' assay, then their formats."""
    assays = sorted(normalize(c.label) for c in knowledge.constraints.values() if c.kind == "assay")
    return [f"{assay} {FORMATS[i % len(FORMATS)]}" for i, assay in enumerate(assays)] + list(FORMATS)


def _whole(query: str, knowledge, context: str):
    parse._RECENT.clear()
    return parse_request(query, knowledge, context=context)


def _second(query: str, knowledge, context: str):
    parse._RECENT.clear()
    first = parse_request(query, knowledge)
    return first, parse_request(query, knowledge, context=context)


@pytest.fixture(scope="module")
def requests_and_contexts(knowledge):
    requests, contexts = _requests(), _contexts(knowledge)
    assert len(requests) > 300 and len(contexts) > 10
    return [(q, contexts[i % len(contexts)]) for i, q in enumerate(requests)]


def _check(pairs, knowledge) -> tuple[int, int]:
    changed = reused = 0
    for query, context in pairs:
        first, second = _second(query, knowledge, context)
        assert second == _whole(query, knowledge, context), (query, context)
        changed += second != first
        reused += second is first
    return changed, reused


def test_the_second_parse_is_a_whole_parse_with_the_context(knowledge, requests_and_contexts):
    """Every 16th request (each parse is a few ms; the e2e tier checks them all)."""
    changed, reused = _check(requests_and_contexts[::16], knowledge)
    assert reused >= 10, reused  # the phrases found again unchanged: nothing else recomputed


@pytest.mark.e2e
def test_the_second_parse_of_a_quarter_of_the_development_requests(knowledge, requests_and_contexts):
    """Every 4th request (~10 s on 2 cores; CI's budget is nearly spent). All 560 dev-set and
    from-others requests, each with its real inputs, gave byte-identical plans and parses when the
    change was made."""
    changed, reused = _check(requests_and_contexts[1::4], knowledge)
    # both paths are exercised: contexts that change the reading, and phrases found again unchanged
    assert changed >= 2 and reused >= 50, (changed, reused)


def test_a_context_that_changes_the_phrases_changes_the_request(knowledge):
    query = "filter out cells with high mitochondrial content"
    first, second = _second(query, knowledge, "single cell rna seq h5ad")
    assert second == _whole(query, knowledge, "single cell rna seq h5ad")
    assert second.operations != first.operations


def test_only_recent_parses_are_kept(knowledge):
    parse._RECENT.clear()
    for i in range(parse._RECENT_MAX + 5):
        parse_request(f"differential expression {i}", knowledge)
    assert len(parse._RECENT) == parse._RECENT_MAX
