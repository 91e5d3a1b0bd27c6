"""General causes of failing requests written by others (compiler/bioplan/evaluate/from_others.yaml, after
round 7). Each test states the rule with phrasings that are not in the cases, both ways.

- One step made for one assay alone (methylation calling) reads its neighbours' words of several readings in
  that assay, also when a longer any-assay phrase matched first ("与参考基因组比对" holds "比对", bisulfite
  alignment's own word): Chinese methylation requests align bisulfite reads.
"""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize("query", [
    "先将测序数据与参考基因组比对,再提取每个胞嘧啶位点的甲基化状态",
    "把reads比对到参考基因组上,然后计算每个CpG位点的甲基化水平",
    "与参考基因组比对之后进行甲基化状态提取",
    "将双端数据与参考基因组比对,随后对比对结果进行甲基化状态提取",
])
def test_alignment_beside_methylation_calls_is_bisulfite_alignment(query, knowledge):
    anchors = _spec(query, knowledge).required_operations
    assert "bisulfite_alignment" in anchors
    assert "methylation_calling" in anchors
    assert "read_alignment" not in anchors
    assert "long_read_alignment" not in anchors


@pytest.mark.parametrize("query", [
    "将测序数据与参考基因组比对,然后call SNP",
    "将数据与参考基因组比对后统计比对率",
    "align the reads to the reference genome and call variants",
    # a one-assay step whose words are shared with another step reads nothing else
    "quality control of the data at every level: fastq, bam and vcf",
])
def test_alignment_without_a_bisulfite_step_stays_read_alignment(query, knowledge):
    anchors = _spec(query, knowledge).required_operations
    assert "bisulfite_alignment" not in anchors


def _matches(query, knowledge):
    return {(m.kind, m.id, m.how) for m in parse_request(query, knowledge).matches}


def _fuzzy_texts(query, knowledge):
    return [m.text for m in parse_request(query, knowledge).matches if m.how == "fuzzy"]


@pytest.mark.parametrize("query", [
    "Il consiste en une série d'étapes permettant de filtrer les séquences brutes",
    "Nous voulons de filtrer les lectures avant l'assemblage",
    "quero de filtrar as leituras de baixa qualidade",
    "el paso de filtrar las lecturas",
])
def test_no_typo_reading_across_a_foreign_function_word(query, knowledge):
    assert not any(t.split(" ")[0] in ("de", "el") for t in _fuzzy_texts(query, knowledge))
    assert not any(i == "de_filter" for _, i, _ in _matches(query, knowledge))


@pytest.mark.parametrize(("query", "operation"), [
    ("adapter trimmng before the alignment", "read_trimming"),
    ("variant calling then varaint annotation", "variant_annotation"),
])
def test_typos_of_english_words_are_still_read(query, operation, knowledge):
    assert ("operation", operation, "fuzzy") in _matches(query, knowledge)
