"""Request parsing: English and Chinese, synonyms, typos, negation, organisms, formats."""

from __future__ import annotations

import pytest

from bioplan.errors import EmptyQueryError
from bioplan.request.lexicon import normalize
from bioplan.request.parse import parse_request


@pytest.mark.parametrize(
    "query, operations",
    [
        ("DE then KEGG enrichment", {"differential_expression", "kegg_enrichment"}),
        ("find DEGs between treated and control", {"differential_expression"}),
        ("差异表达分析，然后做KEGG富集", {"differential_expression", "kegg_enrichment"}),
        ("差異表達 然後 GO富集", {"differential_expression", "go_enrichment"}),  # traditional Chinese
        ("align reads to the genome and count reads per gene", {"read_alignment", "read_counting"}),
        ("把reads比对到参考基因组", {"read_alignment"}),
        ("cluster the cells and find marker genes", {"cell_clustering", "marker_gene_detection"}),
        ("单细胞聚类，找marker基因", {"cell_clustering", "marker_gene_detection"}),
        ("annotate variant consequences", {"variant_annotation"}),
        ("classify reads taxonomically with kraken2", {"taxonomic_classification"}),
        ("differental expresion analysis", {"differential_expression"}),  # typos
    ],
)
def test_operations_are_recognised(knowledge, query, operations):
    request = parse_request(query, knowledge)
    assert operations <= set(request.operations), request.matches


@pytest.mark.parametrize(
    "query, constraint",
    [
        ("mouse counts: DE", "organism_mouse"),
        ("小鼠的表达矩阵做差异分析", "organism_mouse"),
        ("GRCm39 alignment", "organism_mouse"),
        ("reads from hg38 samples, align them", "organism_human"),
        ("Homo sapiens DE", "organism_human"),
        ("paired-end FASTQ alignment", "paired_end_reads"),
        ("scRNA-seq clustering", "single_cell_rna_seq"),
        ("宏基因组物种分类", "shotgun_metagenomics"),
    ],
)
def test_constraints_are_recognised(knowledge, query, constraint):
    assert constraint in parse_request(query, knowledge).constraints


def test_tool_preference_and_exclusion(knowledge):
    request = parse_request("align with STAR, not HISAT2; DE with DESeq2 but not edgeR", knowledge)
    assert "star" in request.preferred_tools
    assert "deseq2" in request.preferred_tools
    assert "hisat2" in request.excluded_tools
    assert "edger" in request.excluded_tools
    assert "edger" not in request.preferred_tools


def test_chinese_exclusion(knowledge):
    request = parse_request("差异表达分析，不要用edgeR", knowledge)
    assert "edger" in request.excluded_tools
    assert "differential_expression" in request.operations


def test_output_format(knowledge):
    assert parse_request("merge KEGG and GO into one table as CSV", knowledge).output_format == "csv"


def test_every_match_carries_its_span(knowledge):
    request = parse_request("Mouse RNA-seq: differential expression then GO enrichment", knowledge)
    for m in request.matches:
        assert request.normalized[m.start:m.end] == m.text
    assert any(m.id == "go_enrichment" for m in request.matches)


def test_go_as_a_verb_is_not_gene_ontology(knowledge):
    request = parse_request("which genes go up in treated mice", knowledge)
    assert "go_enrichment" not in request.operations
    assert "differential_expression" in request.operations


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query(knowledge, query):
    with pytest.raises(EmptyQueryError):
        parse_request(query, knowledge)


def test_normalize():
    assert normalize("ＤＥＧｓ  of  RNA-seq_data") == "degs of rna seq data"
    assert normalize("差異表達") == "差异表达"


def test_chinese_typo_gets_a_did_you_mean(knowledge):
    from bioplan.request.parse import suggestions

    request = parse_request("帮我做一下差意表达的分析", knowledge)
    assert not request.operations
    assert "差异表达" in suggestions(request.unrecognized, knowledge)


def test_has_word_is_the_whole_word_regular_expression():
    """`has_word` (negation markers, instruction words) answers as `(?<![a-z])WORD(?![a-z])` would."""
    import itertools
    import re

    from bioplan.knowledge.words import has_word

    texts = ["", "not", "nothing", "cannot do", "do not use edger", "not-edger", "x not", "knot not", "2not3",
             "without trimming", "find markers", "refind", "finds", "find", "ab ab", "aba"]
    words = ["not", "find", "without", "ab", "a", "", "do not"]
    for text, word in itertools.product(texts, words):
        expected = re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text) is not None
        assert has_word(text, word) == expected, (text, word)


def test_the_typo_windows_try_only_aliases_of_a_length_that_can_reach_the_score(knowledge):
    """`_fuzzy_choices` keeps, for a window of n characters, the aliases of a length whose best possible
    ratio (100 * (1 - |a - n| / (a + n)): an edit distance is at least the length difference) reaches the
    cutoff. Every length it leaves out cannot reach it, and the best choice among those kept is the best of
    all aliases (same alias, same score, the first of equals): checked on near-misses of the aliases."""
    from rapidfuzz import fuzz, process

    from bioplan.request.parse import _FUZZY_MIN_SCORE, _fuzzy_choices, _tables

    tables = _tables(knowledge)
    lengths = {len(t.alias) for t in tables.fuzzy_terms}
    for size in range(1, 80):
        kept = {len(a) for a in _fuzzy_choices(tables, size)[1]}
        for length in lengths - kept:
            assert 100 * (1 - abs(length - size) / (length + size)) < _FUZZY_MIN_SCORE, (size, length)
    everything = [t.alias for t in tables.fuzzy_terms]
    texts = [a[:len(a) // 2] + a[len(a) // 2 + 1:] for a in everything[::31]]  # a letter dropped
    texts += [a[:2] + "x" + a[2:] + "e" for a in everything[3::37]]  # two added
    found = 0
    for text in texts:
        terms, choices = _fuzzy_choices(tables, len(text))
        full = process.extractOne(text, everything, scorer=fuzz.ratio, score_cutoff=_FUZZY_MIN_SCORE)
        kept_best = process.extractOne(text, choices, scorer=fuzz.ratio, score_cutoff=_FUZZY_MIN_SCORE)
        assert (full is None) == (kept_best is None), text
        if full is not None:
            assert (tables.fuzzy_terms[full[2]], full[1]) == (terms[kept_best[2]], kept_best[1]), text
            found += 1
    assert found > len(texts) // 2
