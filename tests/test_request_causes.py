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


def _tools(query, knowledge):
    request = parse_request(query, knowledge)
    tools = {m.id: m.offered_beside for m in request.matches if m.kind == "tool"}
    return tools, {a.id: a.alternative_to for a in request.absent if a.kind == "tool"}


@pytest.mark.parametrize(("query", "first", "offered"), [
    # two tools of one step joined by "/" are alternatives, as "or" makes them: the first runs
    ("align the reads with STAR/HISAT2 and count them", "star", "hisat2"),
    ("align with BWA / Bowtie2 and call peaks with MACS2", "bwa_index", "bowtie2"),
])
def test_tools_of_one_step_joined_by_a_slash_are_alternatives(query, first, offered, knowledge):
    tools, _ = _tools(query, knowledge)
    assert tools[first] is None
    assert tools[offered] == first


@pytest.mark.parametrize(("query", "absent", "beside"), [
    ("map the reads (BWA-MEM2 / minimap2)", "bwa_mem2", "minimap2_align"),
    ("trim the adapters with fastp/Trimmomatic", "trimmomatic", "fastp"),
])
def test_a_missing_tool_joined_to_a_known_one_of_its_step_is_offered(query, absent, beside, knowledge):
    _, absent_tools = _tools(query, knowledge)
    assert absent_tools[absent] == beside


@pytest.mark.parametrize(("query", "absent"), [
    ("annotate the variants with ANNOVAR and SnpEff", "annovar"),  # no marker, no slash, no list
    ("tools used (FastQC, STAR, ANNOVAR)", "annovar"),  # a list of tools of other steps
    # a list without a marker names tools to run, as the refusal conventions read "Peak calling (SEACR, MACS2)"
    ("annotate the variants (SnpEff, VEP, ANNOVAR)", "annovar"),
    ("PCR duplicate detection (Sambamba MarkDup)", "sambamba"),
    ("trim with fastp, then align with BWA-MEM2", "bwa_mem2"),
])
def test_a_missing_tool_not_offered_as_an_alternative_stays_missing(query, absent, knowledge):
    _, absent_tools = _tools(query, knowledge)
    assert absent_tools[absent] is None


@pytest.mark.parametrize(("query", "tools"), [
    # two tools of two steps joined by "/" are a pipeline of both, neither hidden nor offered
    ("profile the community with Kraken2/Bracken", {"kraken2", "bracken"}),
    ("classify the reads using Kraken2 / Bracken", {"kraken2", "bracken"}),
])
def test_tools_of_two_steps_joined_are_a_pipeline_of_both(query, tools, knowledge):
    found, _ = _tools(query, knowledge)
    assert tools <= set(found)
    assert all(found[t] is None for t in tools)


def test_kraken2_bracken_or_a_missing_profiler_runs_kraken2_and_bracken(knowledge):
    spec = _spec("Profile the microbial community from shotgun reads using Kraken2/Bracken or MetaPhlAn 4", knowledge)
    assert {"taxonomic_classification", "abundance_estimation"} <= set(spec.required_operations)


def _absent_analyses(query, knowledge):
    return {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}


@pytest.mark.parametrize("query", [
    # "AS event(s)" is alternative splicing (rMATS, SUPPA), refused by name
    "I want all the AS events in each sample",
    "list the differential AS events between knockout and control",
    "count every AS event detected by rMATS",
])
def test_as_events_are_alternative_splicing(query, knowledge):
    assert "alternative_splicing" in _absent_analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "call variants as well as events of copy number",
    "these are counted as events in the log",
    "such as events of recombination",
])
def test_as_before_events_in_prose_is_no_splicing(query, knowledge):
    assert "alternative_splicing" not in _absent_analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "Add copy number to somatic exome workflow",
    "please include somatic copy number in the tumour pipeline",
    "estimate copy number from the exome alignments",
])
def test_a_copy_number_result_added_is_copy_number_calling(query, knowledge):
    assert "copy_number_calling" in {m.id for m in parse_request(query, knowledge).matches if m.kind == "operation"}


def test_copy_number_segments_given_are_no_step(knowledge):
    ops = {m.id for m in parse_request("plot the copy number segments", knowledge).matches if m.kind == "operation"}
    assert "copy_number_calling" not in ops
