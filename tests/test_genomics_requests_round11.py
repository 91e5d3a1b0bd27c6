"""Requests written by others, round 11 (genomics, variants, epigenomics, long reads): the families their
failures stood for. A tool a substitution marker replaces is not used, the step it did still is; a versioned
tool's name with a letter missing is that tool; a citation's authors in parentheses are no tool; an assay a
method "was developed for" is not the data's; a replaced library layout is not said; per-sample calling before
joint calling is GVCF calling, in every language of the course; a transcription factor's regulated genes are
its annotated peaks; GWAS case-control words are no differential expression; methylation outliers, long-read
SVs and read phasing are refused by analysis.
"""
from __future__ import annotations

import pytest

from bioplan.errors import UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


def test_a_tool_replaced_after_a_step_is_excluded_and_the_step_kept(knowledge):
    request = parse_request("As an alternative to calling peaks with SEACR, we recommend using MAC2 because the "
                            "resulting peaks tend to be narrower", knowledge)
    assert not any(a.id == "seacr" and not a.negated for a in request.absent)
    assert "peak_calling" in request.operations
    assert "macs2_callpeak" in request.preferred_tools


@pytest.mark.parametrize(("word", "tool"), [("MAC2", "macs2_callpeak"), ("bowtei2", "bowtie2")])
def test_a_versioned_tool_name_one_letter_off_is_that_tool(knowledge, word, tool):
    assert tool in parse_request(f"align and call peaks using {word}", knowledge).preferred_tools


def test_a_word_with_digits_near_no_tool_is_no_tool(knowledge):
    assert parse_request("call peaks of the K562 cells with MACS2", knowledge).preferred_tools == ("macs2_callpeak",)


def test_a_citation_in_parentheses_names_no_tool(knowledge):
    spec = _spec("Bismark software (version 0.16.3) was used to perform alignments of bisulfite-treated reads to a "
                 "reference genome (Krueger & Andrews, 2011).", knowledge)
    assert "bisulfite_alignment" in spec.required_operations


def test_the_assay_a_method_was_developed_for_is_not_the_data(knowledge):
    spec = _spec("This workflow demonstrates that differential methylation analysis of RRBS data can be conducted "
                 "using software and methodology originally developed for RNA-seq data.", knowledge)
    assert spec.constraints.get("assay") == "bisulfite_sequencing"


def test_a_replaced_library_layout_is_not_said(knowledge):
    spec = _spec("Since the sequencing is in a paired-end mode (instead of single-end like we had before) other "
                 "parameters are needed for the alignment with bowtie2.", knowledge)
    assert "paired_end_reads" in spec.constraint_ids
    assert "single_end_reads" not in spec.constraint_ids


@pytest.mark.parametrize("query", [
    "먼저 각 샘플에서 독립적으로 변이를 호출하는 간단한 샘플별 접근법부터 시작하겠습니다. "
    "그런 다음 여러 샘플을 함께 분석하여 더 정확하고 유익한 결과를 생성하는 "
    "더 정교한 공동 호출 접근법을 보여드리겠습니다.",
    "Najpierw zaczniemy od prostego podejścia per-próbka, które wykrywa warianty niezależnie dla każdej próbki. "
    "Następnie pokażemy Ci bardziej zaawansowane podejście wspólnego wykrywania.",
    "Primer començarem amb un enfocament simple per mostra que crida variants independentment de cada mostra. "
    "Després us mostrarem un enfocament de crida conjunta més sofisticat.",
    "joint genotyping を行うには、まず個々のサンプルに対してハプロタイプの推定を行い、その中間結果 gVCF を保存する。",
])
def test_per_sample_calling_before_joint_calling_is_gvcf_calling(knowledge, query):
    ops = parse_request(query, knowledge).operations
    assert "gvcf_calling" in ops and "joint_genotyping" in ops


def test_mapping_results_given_are_alignments_not_a_mapping_step(knowledge):
    request = parse_request("このコマンドにリファレンス配列(FASTA)、マッピング結果(BAM)を与えると、"
                            "VCF を得ることができる。HaplotypeCaller", knowledge)
    assert "read_alignment" not in request.operations
    assert "aligned_reads" in request.datatypes


def test_the_genes_a_factor_regulates_are_its_annotated_peaks(knowledge):
    ops = parse_request("Which genes are regulated by TAL1?", knowledge).operations
    assert {"peak_calling", "peak_annotation"} <= set(ops)
    assert "peak_annotation" not in parse_request(
        "Which genes are regulated by TAL1 in the knockdown RNA-seq?", knowledge).operations


def test_case_control_words_of_a_gwas_are_no_differential_expression(knowledge):
    spec = _spec("Within plink, the association between SNPs and a binary outcome (alcohol dependent patients vs. "
                 "healthy controls) can be tested with the options --assoc or --logistic.", knowledge)
    assert "association_test" in spec.required_operations
    assert "differential_expression" not in spec.required_operations


@pytest.mark.parametrize(("query", "family"), [
    ("Borealis is a package for the detection of outlier methylation at single CpG-site resolution",
     "methylation_outliers"),
    ("an R package for calling hypermethylated variant epiallele frequencies (VEF)", "methylation_outliers"),
    ("The pipeline is optimized for long-read sequencing data from Oxford Nanopore and PacBio platforms, providing "
     "comprehensive SV calling", "long_read_structural_variants"),
    ("now I am trying to phase the reads and find imprinted regions", "phasing_imputation"),
    ("analyzing population structure by using various methods", "ancestry_inference"),
    ("chipenrich includes two methods that adjust for potential confounders of gene set enrichment testing",
     "region_set_enrichment"),
])
def test_what_bioplan_does_not_do_is_refused_by_analysis(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in err.value.details["analyses"]


def test_codex_is_an_exome_cnv_caller_bioplan_lacks(knowledge):
    request = parse_request("CODEX: a normalization and copy number variation detection method for whole exome "
                            "sequencing.", knowledge)
    assert any(a.id == "codex" and a.kind == "tool" for a in request.absent)
