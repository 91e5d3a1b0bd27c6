"""The lexicon's pattern prefilter (request/lexicon.py): a pattern is compiled and run only for a
text containing one of its triggers, so the triggers must be necessary: every text a pattern
matches contains one of them. Checked on every pattern of the knowledge against every request of
the development sets, and on hand-made patterns."""

from __future__ import annotations

import re
from functools import cache

import pytest

from bioplan.request.lexicon import (
    _PATTERNS,
    _compiled,
    _from_program,
    _passing,
    lexicon_index,
    lexicon_pattern,
    normalize,
    required_literals,
)
from conftest import ROOT
from helpers import read_yaml

CASE_FILES = [ROOT / "compiler" / "bioplan" / "evaluate" / name for name in ("dev_set.yaml", "from_others.yaml")]


@cache  # read once for the tests of this file
def _requests() -> list[str]:
    out = []
    for path in CASE_FILES:
        out += [normalize(case["request"]) for case in read_yaml(path)["cases"]]
    return list(dict.fromkeys(out))  # a request in both sets, or twice in one, is checked once


@pytest.mark.parametrize("pattern, triggers", [
    (r"\bgenes? (that )?differ\b", [{"gene"}, {" "}, {"differ"}]),  # each literal run is required
    (r"(up|down) ?regulat\w*", [{"up", "down"}, {"regulat"}]),  # so is an alternation: any branch
    (r"^(?!.*single cell).*?(?P<m>\bpathway (enrichment|analysis)\b)", [{"pathway "}, {"enrichment", "analysis"}]),
    (r"融合基因|\bfusions?\b", [{"融合基因", "fusion"}]),
    (r"(?i)KEGG", [{"kegg"}]),
    (r"\w+ome\b", [{"ome"}]),
    (r"(a|\d)+", []),  # no literal is required: always compiled
    (r"x?y*|z", []),
])
def test_the_triggers_of_a_pattern(pattern, triggers):
    assert [set(needed) for needed in required_literals(pattern)] == triggers


def test_every_text_a_lexicon_pattern_matches_holds_one_of_its_triggers(knowledge):
    texts = _requests()
    assert len(texts) > 300
    triggers = lexicon_index(knowledge).triggers
    assert len(triggers) > 200 and sum(not t for t in triggers.values()) < 10
    for pattern, needs in triggers.items():
        # the pattern the product runs: built from the program the cached index keeps, equal to re.compile's
        # (test_the_cached_index_keeps_each_patterns_program_and_it_builds_the_same_pattern), ~0.3 s less
        compiled = _compiled(pattern, knowledge)
        for text in texts:
            if compiled.search(text):
                assert all(any(t in text.lower() for t in needed) for needed in needs), (pattern, text)


def test_the_patterns_passing_a_text_are_those_whose_every_trigger_set_it_holds(knowledge):
    """`_passing` tests the triggers once per text (each string by its first three characters, each pattern
    by its key set first): the same patterns as testing every set of every pattern with `in`, as
    `lexicon_pattern` did. On requests of the development sets, upper case, Chinese and texts of 0-3
    characters."""
    index = lexicon_index(knowledge)
    texts = _requests()[::25] + ["", "a", "qc", "gsea", "KEGG Pathway ENRICHMENT of DEGs",
                                 "差异表达基因的GO富集和融合基因", "call peaks (macs2), then ATAC-seq footprinting"]
    for text in texts:
        lowered = text.lower()
        expected = {p for p, triggers in index.triggers.items()
                    if all(any(t in lowered for t in needed) for needed in triggers)}
        assert _passing(text, index) == expected, text


def test_a_pattern_is_not_compiled_for_a_text_without_its_triggers(knowledge):
    rule = next(r for r in knowledge.lexicon.phrases if "pathway" in r.pattern)
    assert lexicon_pattern(rule.pattern, "count reads per gene", knowledge) is None
    compiled = lexicon_pattern(rule.pattern, "which pathways are enriched", knowledge)
    assert compiled is not None and compiled.pattern == rule.pattern


def test_the_cached_index_keeps_each_patterns_program_and_it_builds_the_same_pattern(knowledge):
    """A request process builds a lexicon pattern from the program kept in the cached index instead of
    compiling it (issue 10): the pattern built must be the one `re.compile` makes (same flags, same
    code: `Pattern.__eq__`), with the same groups."""
    index = lexicon_index(knowledge)
    assert set(index.programs) == set(index.triggers)  # the shipped knowledge is cached on disk
    for pattern, program in index.programs.items():
        built, expected = _from_program(pattern, program), re.compile(pattern)
        assert built == expected and built.groupindex == expected.groupindex and built.groups == expected.groups


def test_a_program_sre_refuses_falls_back_to_compiling_the_pattern(knowledge, monkeypatch):
    pattern = r"zz(?P<m>program) test"
    monkeypatch.setitem(lexicon_index(knowledge).programs, pattern, (32, b"\0\0\0\0", 1, {"m": 1}, (None, "m")))
    _PATTERNS.pop(pattern, None)
    try:
        assert _compiled(pattern, knowledge) == re.compile(pattern)
    finally:
        _PATTERNS.pop(pattern, None)
