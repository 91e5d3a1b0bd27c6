"""General causes of failing requests written by others, round 9 (compiler/bioplan/evaluate/from_others.yaml,
cases r9.*). Each test states the rule with phrasings that are not in the cases, both ways.

- Reads of single cells aligned ("质控、比对、基因表达定量" of 单细胞 data, "align the reads" of scRNA-seq) are the
  single-cell quantification's alignment (STARsolo, alevin-fry): a bulk aligner was planned and the request refused;
  datasets aligned (integrated) are not; the single-cell assay is read in Japanese and Korean too (kana and Hangul
  aliases never matched: only CJK ideographs started an alias inside a word).
- What the data already went through is not run again ("our data has passed some quality checks"), and two
  library layouts offered as alternatives ("either single-end or paired-end") are what a tool accepts, not two
  layouts of the user's data (refused as ambiguous).
- Phrasings of steps the lexicon missed: Korean differential expression (차등발현), "sequence assembly",
  "somatic analysis" and the CNVs it determines, a design formula of RNA-seq counts (the DE test), MetaPhlAn 2 named
  (refused by name), microsatellite instability (refused by analysis).
"""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _ops(query, knowledge):
    return {m.id for m in parse_request(query, knowledge).matches if m.kind == "operation" and not m.negated}


def _constraints(query, knowledge):
    return set(parse_request(query, knowledge).constraints)


@pytest.mark.parametrize("query", [
    "单细胞RNA测序数据: 比对到参考基因组, 然后计数",
    "10x single-cell data: map the reads to the genome and count UMIs per barcode",
    "for our scRNA-seq libraries, alignment and gene quantification, then clustering",
    "シングルセルRNA-seqのリードをマッピングし、細胞ごとにカウントする",
])
def test_reads_of_single_cells_aligned_are_the_single_cell_quantification(query, knowledge):
    ops = _ops(query, knowledge)
    assert "single_cell_quantification" in ops
    assert "read_alignment" not in ops


@pytest.mark.parametrize("query", [
    "single-cell: align the two datasets with Harmony before clustering",
    "scRNA-seq: alignment of the batches, then cluster the cells",
])
def test_datasets_aligned_in_single_cell_are_no_read_alignment(query, knowledge):
    assert "single_cell_quantification" not in _ops(query, knowledge)


def test_bulk_alignment_stays_read_alignment(knowledge):
    ops = _ops("bulk RNA-seq: align the reads to the genome with STAR and count per gene", knowledge)
    assert "read_alignment" in ops and "single_cell_quantification" not in ops


@pytest.mark.parametrize("query", [
    "シングルセル解析: 正規化とクラスタリング",
    "単一細胞のデータをクラスタリングする",
    "단일세포 RNA-seq 데이터 클러스터링",
])
def test_the_single_cell_assay_in_japanese_and_korean(query, knowledge):
    constraints = _constraints(query, knowledge)
    assert "single_cell_rna_seq" in constraints and "bulk_rna_seq" not in constraints


@pytest.mark.parametrize(("query", "done"), [
    ("the reads have passed quality control, so align them to hg38 with BWA", "read_qc"),
    ("our libraries have already undergone adapter trimming; quantify them with Salmon", "read_trimming"),
])
def test_a_step_the_data_went_through_is_not_run_again(query, done, knowledge):
    assert done not in _ops(query, knowledge)


def test_a_step_asked_after_the_data_went_through_another_still_runs(knowledge):
    ops = _ops("the reads have passed quality control; now trim the adapters and run FastQC again", knowledge)
    assert {"read_trimming", "read_qc"} <= ops


@pytest.mark.parametrize("query", [
    "Salmon accepts single-end or paired-end reads; quantify my samples",
    "the aligner takes either paired-end or single-end FASTQ files",
])
def test_layouts_offered_as_alternatives_name_no_layout(query, knowledge):
    constraints = _constraints(query, knowledge)
    assert not constraints & {"single_end_reads", "paired_end_reads"}


def test_both_layouts_said_of_the_data_are_still_ambiguous(knowledge):
    constraints = _constraints("I have single-end and paired-end samples to align", knowledge)
    assert {"single_end_reads", "paired_end_reads"} <= constraints


@pytest.mark.parametrize(("query", "op"), [
    ("두 그룹 간 발현 차이 유전자를 찾는 분석", "differential_expression"),
    ("RNA-seq 데이터로 차등 발현 유전자 분석", "differential_expression"),
    ("the course covers de novo sequence assembly of a bacterial isolate", "genome_assembly"),
    ("somatic variant analysis of the tumour exomes against their matched normal", "somatic_variant_calling"),
    ("the goal is to identify copy number alterations in these tumour BAMs", "copy_number_calling"),
    ("RNA-seq counts of three genotypes: which design matrix should I use?", "differential_expression"),
])
def test_step_phrasings_missed_before(query, op, knowledge):
    assert op in _ops(query, knowledge)


@pytest.mark.parametrize(("query", "op"), [
    ("assemble the transcripts of RNA-seq reads (de novo sequence assembly with Trinity)", "genome_assembly"),
    ("single-cell RNA-seq: 발현 차이 between clusters", "differential_expression"),
    ("MAGeCK mle needs a design matrix of the sgRNA screen", "differential_expression"),
])
def test_step_phrasings_do_not_fire_outside_their_context(query, op, knowledge):
    assert op not in _ops(query, knowledge)


def test_metaphlan_2_named_is_refused_by_name(knowledge):
    absent = parse_request("profile the stool metagenomes with MetaPhlAn2", knowledge).absent
    assert "metaphlan" in {a.id for a in absent if a.kind == "tool"}


@pytest.mark.parametrize("query", [
    "call somatic mutations and the MSI status of the colorectal tumours",
    "assess microsatellite instability in tumour-only WES",
])
def test_microsatellite_instability_is_an_analysis_bioplan_lacks(query, knowledge):
    absent = {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}
    assert "microsatellite_instability" in absent


def test_msi_said_of_a_computing_centre_is_no_analysis(knowledge):
    absent = {a.id for a in parse_request("align the reads with BWA on the MSI cluster", knowledge).absent
              if a.kind == "analysis"}
    assert "microsatellite_instability" not in absent


def test_a_single_cell_request_with_alignment_plans_the_quantification(knowledge):
    spec = build_spec(parse_request("单细胞转录组: 对原始序列数据进行质控、比对、基因表达定量", knowledge),
                      InputProfile(), knowledge)
    assert "single_cell_quantification" in spec.required_operations
    assert "read_alignment" not in spec.required_operations


@pytest.mark.parametrize(("query", "ops"), [
    ("Pour les données ChIP-seq, les régions présentant un enrichissement en lectures sont identifiées puis annotées "
     "selon les gènes les plus proches", {"peak_calling", "peak_annotation"}),
    ("analyse ChIP-seq : appel des pics puis annotation des pics", {"peak_calling", "peak_annotation"}),
])
def test_french_chip_seq_goals(query, ops, knowledge):
    assert ops <= _ops(query, knowledge)


def test_french_enrichment_without_chip_words_is_no_peak_calling(knowledge):
    ops = _ops("les régions présentant un enrichissement en termes GO sont annotées selon les gènes", knowledge)
    assert "peak_calling" not in ops
