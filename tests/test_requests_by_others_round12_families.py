"""Families of the requests by others that failed before session 16 (from_others.yaml: r11.swbioinf.crohn_epithelial,
r11.ko.dohlee.dedup_before_peaks, r11.genomemedicine.somatic_filters, r11.utsw.homer_annotate,
r11.quantumpulse.missingness, r11.authorea.bismark_bowtie2, r11.abcam.cutrun_bowtie2), each checked on other
phrasings of the same thing, written the way other people write it, and on a near phrasing that must keep its old
reading. Spec-level only (no planning): each test is a parse and the spec passes."""

from __future__ import annotations

import pytest

from bioplan.errors import BioplanError, PartiallyUnderstoodError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(knowledge, query):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


# DE within a named cell type between groups of individuals: the per cell type comparison of the samples
@pytest.mark.parametrize("query", [
    "Which genes are differentially expressed in CD8 T cells between COVID-19 patients and healthy donors?",
    "find DEGs in alveolar epithelial cells of IPF patients compared to controls",
    "DE genes in microglia from Alzheimer's disease donors versus age-matched controls",
])
def test_de_within_a_cell_type_between_individuals_is_pseudobulk(knowledge, query):
    ops = _spec(knowledge, query).required_operations
    assert "pseudobulk_differential_expression" in ops
    assert "differential_expression" not in ops


@pytest.mark.parametrize("query", [
    "differentially expressed genes in HeLa cells treated with the drug vs untreated",
    "DE analysis of the knockdown vs control samples",
])
def test_de_of_treatments_names_no_individuals_and_stays_bulk(knowledge, query):
    ops = _spec(knowledge, query).required_operations
    assert "differential_expression" in ops
    assert "pseudobulk_differential_expression" not in ops


# duplicates removed, in Korean and Japanese, before the peaks
@pytest.mark.parametrize("query", [
    "MACS2로 peak calling 하기 전에 중복 리드를 제거해야 합니다",
    "ピークコールの前にPCR重複を除去する",
    "peak calling 전에 PCR duplicate들을 제거한다",
])
def test_duplicates_removed_in_korean_or_japanese_are_marked(knowledge, query):
    ops = _spec(knowledge, query).required_operations
    assert {"duplicate_marking", "peak_calling"} <= set(ops)


def test_dereplication_of_an_amplicon_study_stays_asv_inference(knowledge):
    ops = _spec(knowledge, "16S amplicon: merge된 read들은 중복을 제외하고 feature로 선별").required_operations
    assert "duplicate_marking" not in ops


# variants present in the tumour and absent from its matched normal: somatic calling
@pytest.mark.parametrize("query", [
    "We keep the mutations found in the tumour but not in the matched normal, then filter the variants",
    "Mutations detected in tumor samples and absent from the paired normal sample were reported",
    "Somatic SNVs are the ones observed in the tumor but not in the germline DNA.",
])
def test_variants_of_the_tumour_absent_from_its_normal_are_somatic(knowledge, query):
    ops = _spec(knowledge, query).required_operations
    assert "somatic_variant_calling" in ops
    assert "variant_calling" not in ops


def test_a_matched_normal_said_not_wanted_is_still_negated(knowledge):
    request = parse_request("call germline variants, not a matched normal comparison", knowledge)
    assert not any(m.id == "somatic_variant_calling" and not m.negated for m in request.matches)


# peaks or called regions said to be annotated: peak annotation (HOMER annotatePeaks, not its motif finder)
@pytest.mark.parametrize("query", [
    "The peaks were then annotated with HOMER",
    "Called regions get annotated using HOMER relative to the nearest TSS",
    "ChIP-seq: annotate the identified peaks with HOMER",
])
def test_peaks_said_annotated_with_homer_are_annotated_not_motifs(knowledge, query):
    spec = _spec(knowledge, query)
    assert "peak_annotation" in spec.required_operations
    assert "motif_discovery" not in spec.required_operations
    assert "homer_annotatepeaks" in spec.preferred_tools


def test_variants_in_regions_annotated_stay_variant_annotation(knowledge):
    ops = _spec(knowledge, "variants in coding regions are annotated with SnpEff").required_operations
    assert "variant_annotation" in ops
    assert "peak_annotation" not in ops


# a tool said to be the default, then one for the other cases: the default runs, the other is offered
@pytest.mark.parametrize(("query", "runs", "offered"), [
    ("Peaks are annotated by default with HOMER, and peaks from other callers use SnpEff", "homer_annotatepeaks",
     "snpeff"),
    ("By default the reads are aligned with STAR; other users prefer HISAT2", "star", "hisat2"),
])
def test_the_default_tool_runs_and_the_one_for_other_cases_is_offered(knowledge, query, runs, offered):
    spec = _spec(knowledge, query)
    assert runs in spec.preferred_tools
    assert offered not in spec.preferred_tools
    assert any(f"({knowledge.tools[offered].name}) was offered as an alternative" in d for d in spec.deviations)


def test_otherwise_offers_a_missing_tool_beside_the_default(knowledge):
    spec = _spec(knowledge, "Peaks are annotated with HOMER by default; otherwise ChIPseeker is used")
    assert "homer_annotatepeaks" in spec.preferred_tools
    assert any("ChIPseeker" in d and "offered as an alternative" in d for d in spec.deviations)


def test_two_tools_of_two_steps_without_a_default_both_run(knowledge):
    spec = _spec(knowledge, "annotate the peaks with HOMER and annotate the variants with SnpEff")
    assert {"homer_annotatepeaks", "snpeff"} <= set(spec.preferred_tools)


# a clause that says why the step before is done is no instruction
@pytest.mark.parametrize("query", [
    "Run genotype QC with PLINK. This ensures that only reliable genotype calls remain.",
    "Remove individuals and markers with high rates of missing data, which helps avoid spurious calls.",
])
def test_a_rationale_clause_is_no_instruction(knowledge, query):
    spec = _spec(knowledge, query)
    assert "genotype_qc" in spec.required_operations


def test_an_instruction_nobody_understood_is_still_refused(knowledge):
    with pytest.raises(PartiallyUnderstoodError):
        _spec(knowledge, "Run genotype QC with PLINK. Then calculate the frobnication calls.")


# Bismark's alignments of bisulfite reads, its genome indexed by Bowtie 2 inside it
@pytest.mark.parametrize("query", [
    "Alignments of the bisulfite-converted reads were performed with Bismark, which indexes the converted genome "
    "using Bowtie2",
    "Bismark (Bowtie 2 as the aligner) was used to perform the alignments of the RRBS reads",
])
def test_bowtie2_inside_bismark_is_its_engine(knowledge, query):
    spec = _spec(knowledge, query)
    assert "bisulfite_alignment" in spec.required_operations
    assert "read_alignment" not in spec.required_operations
    assert "bowtie2" not in spec.preferred_tools


def test_bowtie2_for_bisulfite_reads_without_bismark_is_refused(knowledge):
    with pytest.raises(BioplanError, match="Bowtie2"):
        _spec(knowledge, "The bisulfite-converted genome was indexed and the bisulfite reads aligned using bowtie2")


# data a step is then said to be done to: the step's input, not a step of its own
@pytest.mark.parametrize(("query", "given"), [
    ("Quality-trimmed reads were mapped to GRCh38 with BWA", "trimmed_reads"),
    ("The trimmed reads (Q>30) are then aligned to the genome using Bowtie2", "trimmed_reads"),
])
def test_data_a_step_is_done_to_is_its_input(knowledge, query, given):
    spec = _spec(knowledge, query)
    assert "read_trimming" not in spec.required_operations
    assert given in spec.input_types


def test_data_a_step_makes_stays_its_result(knowledge):
    # "are produced" makes the trimmed reads: the trimming is the step asked for, not its input
    spec = _spec(knowledge, "Trimmed reads were produced from the raw FASTQ files")
    assert "read_trimming" in spec.required_operations


def test_trimming_and_aligning_the_trimmed_reads_keeps_both(knowledge):
    spec = _spec(knowledge, "Trim the adapters with fastp, then align the trimmed reads with Bowtie2")
    ops = spec.required_operations
    assert {"read_trimming", "read_alignment"} <= set(ops)


# Japanese single-cell steps (r9.ja.sc_qc_norm_cluster's words, which still fails: it compares bulk and single-cell
# RNA-seq, two assays, and is refused as ambiguous)
@pytest.mark.parametrize(("query", "steps"), [
    ("scRNA-seqデータの次元削減、細胞亜集団の同定、軌跡解析を行う", {"cell_clustering", "trajectory_inference"}),
    ("シングルセルデータで擬似時間解析をしたい", {"trajectory_inference"}),
])
def test_japanese_single_cell_steps(knowledge, query, steps):
    assert steps <= set(_spec(knowledge, query).required_operations)


def test_japanese_cell_type_identification_is_no_clustering_word(knowledge):
    request = parse_request("scRNA-seqの細胞型の同定", knowledge)
    assert not any(m.id == "cell_clustering" and "同定" in m.text for m in request.matches)
