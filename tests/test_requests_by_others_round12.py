"""Round 12 of requests written by others (nf-core pipelines not covered before, Biostars and Bioinformatics
StackExchange questions, GATK and GDC documentation, methods sections, courses in de/pt/zh/ja/ko;
compiler/bioplan/evaluate/from_others.yaml, ids r12.*): the families their failures stood for, in other words.
"""

from __future__ import annotations

import pytest

from bioplan.errors import UnknownToolError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


def _analyses(query, knowledge):
    return {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}


@pytest.mark.parametrize(("query", "family"), [
    ("nf-core/methylong is a bioinformatics pipeline that is tailored for long-read methylation calling.",
     "long_read_methylation"),
    ("call CpG methylation from our Oxford Nanopore reads", "long_read_methylation"),
    ("Methylation calls are extracted from the PacBio HiFi reads into bedMethyl", "long_read_methylation"),
    ("create a bedMethyl from the modBAM files", "long_read_methylation"),
    ("assess the methylation heterogeneity of each region", "methylation_heterogeneity"),
    ("compute the epipolymorphism of the CpG islands", "methylation_heterogeneity"),
    ("Genotype tandem repeats - produce spanning bams and vcf", "repeat_expansion"),
    ("characterize the tandem repeats of the PureTarget panel", "repeat_expansion"),
    ("Untargeted label-free quantitation (LFQ) of proteins", "proteomics"),
    ("quantitation of proteins across the two conditions", "proteomics"),
    ("Demultiplex reads with lima", "demultiplexing"),
    ("clustering of similar reads to generate Operational Taxonomic Units (OTUs)", "otu_picking"),
])
def test_analyses_bioplan_does_not_do_are_named(knowledge, query, family):
    assert family in _analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "align the bisulfite reads with Bismark and call methylation",
    "align the nanopore reads with minimap2",
    "cluster the chimera-free ASV sequences into OTUs at 97% identity",
    "call peaks with MACS2 on the long-range ChIP-seq reads",
])
def test_what_those_families_do_not_take(knowledge, query):
    assert not _analyses(query, knowledge) & {"long_read_methylation", "otu_picking", "methylation_heterogeneity"}


@pytest.mark.parametrize(("query", "tool"), [
    ("SNV calling - `clair3`", "clair3"),
    ("Call CNVs with HiFiCNV", "hificnv"),
    ("predict the functions of the 16S communities with PICRUSt2", "picrust2"),
    ("run Tax4Fun2 on the OTU table", "picrust2"),
    ("pileup of the modified bases with modkit", "modkit"),
    ("genotype the repeats with TRGT", "trgt"),
])
def test_tools_bioplan_lacks_are_named(knowledge, query, tool):
    assert tool in {a.id for a in parse_request(query, knowledge).absent if a.kind == "tool"}


@pytest.mark.parametrize(("query", "operation"), [
    ("Within this chapter we introduce the basic PLINK functions for reading in data, applying quality control, "
     "and running association analyses.", "association_test"),
    ("the differential expression analyses of the three contrasts", "differential_expression"),
    ("Search among a large cohort of individuals for common genetic variants, such as single nucleotide "
     "polymorphisms (SNPs), which associate with a trait, such as disease status.", "association_test"),
    ("find the SNPs associated with the phenotype", "association_test"),
    ("Somatic variants are identified by comparing allele frequencies in normal and tumor sample alignments, "
     "annotating each mutation", "variant_annotation"),
    ("call the variants, then annotate the called variants", "variant_annotation"),
    ("performs ChIP-seq peak-calling, QC and differential analysis", "differential_binding"),
    ("ATAC-seq: call peaks, then a differential analysis between the groups", "differential_binding"),
    ("High quality non-human reads were mapped against a custom database using Kraken2 v2.0.9.",
     "taxonomic_classification"),
    ("the metagenomic reads were classified against the standard Kraken2 database", "taxonomic_classification"),
    ("Isso inclui aparar sequências adaptadoras e alinhar as leituras a um genoma de referência.", "read_alignment"),
    ("Después hay que alinear las lecturas al genoma de referencia.", "read_alignment"),
    ("scRNA-seq 데이터는 전처리, 정규화, 차원 축소, 클러스터링 과정을 거쳐야 합니다.", "sc_normalization"),
    ("scRNA-seq 데이터는 전처리, 정규화, 차원 축소, 클러스터링 과정을 거쳐야 합니다.", "cell_clustering"),
    ("단일세포 데이터의 군집화", "cell_clustering"),
    ("塩基スコアの再計算", "base_recalibration"),
    ("塩基品質スコアの再較正を行う", "base_recalibration"),
    ("1サンプルごとの変異検出 - 複数サンプルの変異検出結果の統合", "gvcf_calling"),
    ("1サンプルごとの変異検出 - 複数サンプルの変異検出結果の統合", "joint_genotyping"),
    ("Which binding motif has the transcription factor GATA1?", "motif_discovery"),
    ("Which binding motif has the transcription factor GATA1?", "peak_calling"),
    ("find the binding motifs of the transcription factor CTCF", "motif_discovery"),
    ("Pre-mapping to e.g. rRNA and tRNA sequences", "rrna_removal"),
    ("map the reads against the rRNA database first", "rrna_removal"),
])
def test_the_words_others_use_reach_the_step(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


@pytest.mark.parametrize(("query", "operation"), [
    ("performs RNA-seq alignment, QC and differential analysis", "differential_binding"),
    ("build a custom Kraken2 database from these genomes", "taxonomic_classification"),
    ("Which genes are differentially expressed after the knockdown?", "motif_discovery"),
    ("cluster the samples by their expression profiles", "cell_clustering"),
    ("associate the expression of the genes with the trait", "association_test"),
])
def test_what_those_words_do_not_name(knowledge, query, operation):
    assert operation not in parse_request(query, knowledge).operations


def test_a_chip_seq_differential_analysis_is_no_expression_analysis(knowledge):
    assert "differential_expression" not in parse_request(
        "performs ChIP-seq peak-calling, QC and differential analysis", knowledge).operations


@pytest.mark.parametrize("query", [
    "With this raw counts matrix for all 18 samples, I performed differential accessibility testing between treated "
    "and control samples using DESeq2.",
    "test differential binding between the knockout and wild-type samples with DESeq2",
])
def test_deseq2_named_for_a_peak_comparison_between_two_groups_tests_the_peaks(knowledge, query):
    """'between treated and control samples using DESeq2': the 'and' joins the two groups; DESeq2 stays in the
    clause of the differential accessibility, so it is DESeq2 on the peaks, not a gene expression test beside it."""
    spec = _spec(query, knowledge)
    assert "differential_expression" not in spec.required_operations
    assert "deseq2_differential_binding" in spec.preferred_tools


def test_a_tool_named_alone_after_and_is_still_its_own_step(knowledge):
    """'normalise and run DESeq2' keeps its meaning: 'and' still ends a clause outside 'between X and Y'."""
    assert "deseq2" in _spec("call differential peaks and run DESeq2", knowledge).preferred_tools


@pytest.mark.parametrize("query", [
    "1. 数据预处理 1.1. 过滤低表达的基因 1.2. 标准化",
    "filter out lowly expressed genes, then normalize the counts",
    "remove genes with low counts before DESeq2",
])
def test_lowly_expressed_genes_filtered_is_a_setting_of_the_de_step(knowledge, query):
    request = parse_request(query, knowledge)
    assert "low_expression_filter" in {a.id for a in request.absent if a.kind == "setting"}
    assert not request.unmatched_clauses


def test_bowtie2_named_for_rrna_pre_mapping_is_refused_by_name(knowledge):
    """nf-core/clipseq maps to rRNA/tRNA with Bowtie 2 before the genome: bioplan removes rRNA with SortMeRNA,
    so Bowtie 2 named for it is refused, not read as a genome alignment."""
    with pytest.raises(UnknownToolError):
        _spec("Pre-mapping to e.g. rRNA and tRNA sequences (`Bowtie 2`)", knowledge)


@pytest.mark.parametrize("query", [
    "RNA-seq: Analyse Schritte 1. Ausrichtung 2. Quantifizierung 3. Normalisierung 4. Differentielle Ausdrucksanalyse "
    "(Statistik)",
    "Quality control of the reads (Qualitätskontrolle), then differential expression (Normalisierung, Statistik)",
])
def test_a_german_noun_in_parentheses_is_no_tool(knowledge, query):
    """German capitalises its nouns: '(Statistik)' after a step glosses it, it names no unknown tool (this raised
    UnknownToolError naming 'Statistik')."""
    assert _spec(query, knowledge).required_operations


def test_a_capitalised_tool_name_in_parentheses_is_still_one(knowledge):
    with pytest.raises(UnknownToolError):
        _spec("Differential expression analysis (Frobnitz)", knowledge)


def test_differentielle_ausdrucksanalyse_is_differential_expression(knowledge):
    assert "differential_expression" in parse_request("4. Differentielle Ausdrucksanalyse (Statistik)",
                                                      knowledge).operations


@pytest.mark.parametrize(("query", "operation"), [
    ("Combines VCF files positionally, combining samples when sites and alleles are identical.", "variant_merging"),
    ("combine the two VCFs into one", "variant_merging"),
    ("Horizontally mergeable VCFs can be combined into a single multi-sample file", "variant_merging"),
    ("Vertically mergeable VCFs can be combined into a single multi-chromosome file", "variant_concatenation"),
    ("Computational removal of batch-to-batch variation allows us to combine data across multiple batches",
     "batch_correction"),
    ("Single-cell integration harmonizes the data so that shared cell populations align across datasets",
     "batch_correction"),
])
def test_vcfs_combined_and_batches_removed_reach_their_steps(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_vertically_merged_vcfs_are_no_sample_merge(knowledge):
    ops = parse_request("Vertically mergeable VCFs have identical sample sets", knowledge).operations
    assert "variant_merging" not in ops and "variant_concatenation" in ops


def test_cells_that_align_across_datasets_align_no_reads(knowledge):
    ops = parse_request("so that shared cell populations align across datasets", knowledge).operations
    assert "read_alignment" not in ops and "bisulfite_alignment" not in ops


@pytest.mark.parametrize("query", [
    "La metagenómica shotgun puede ser usada para determinar que genes están presentes (clasificación funcional).",
    "A metagenômica permite a análise funcional das comunidades microbianas",
    "le profil fonctionnel du métagénome",
])
def test_functional_profiling_of_metagenomes_in_romance_languages_is_named(knowledge, query):
    assert "functional_profiling" in _analyses(query, knowledge)


def test_a_taxonomic_classification_is_no_functional_one(knowledge):
    assert "functional_profiling" not in _analyses(
        "La metagenómica shotgun: clasificación taxonómica de las lecturas con Kraken 2", knowledge)


@pytest.mark.parametrize(("query", "family"), [
    ("In this section, we will demonstrate methods to deconvolve cell types per spot.", "spatial"),
    ("Groups tissue regions based on similar gene expression patterns.", "spatial"),
    ("find the spatial domains of the section", "spatial"),
    ("Predicts future cell states by comparing spliced vs unspliced RNA.", "rna_velocity"),
    ("count the unspliced reads of each cell", "rna_velocity"),
    ("differences in transcript isoform usage within a gene", "alternative_splicing"),
    ("test for DTU between the two tissues", "alternative_splicing"),
])
def test_spatial_velocity_and_isoform_usage_are_named(knowledge, query, family):
    assert family in _analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "We dissected three tissue regions and measured gene expression with RNA-seq",
    "align the reads with STAR, a spliced aligner",
    "quantify the transcripts with Salmon",
])
def test_what_spatial_velocity_and_isoform_usage_do_not_take(knowledge, query):
    assert not _analyses(query, knowledge) & {"spatial", "rna_velocity", "alternative_splicing"}


@pytest.mark.parametrize("query", [
    "For differential gene expression in Deseq2, can I exclude the Sample3 in control and compare Controls (Sample1, "
    "Sample2) vs Experiment (Sample1, Sample2, Sample3).",
    "run DESeq2 on the treated (rep1, rep2) and control (ctrl_1, ctrl_2) samples",
])
def test_samples_generic_names_in_parentheses_are_no_tools(knowledge, query):
    """'Controls (Sample1, Sample2)': the samples of a group, not unknown tools (this raised UnknownToolError)."""
    assert "differential_expression" in _spec(query, knowledge).required_operations


def test_a_tool_shaped_name_in_parentheses_is_still_one_beside_sample_names(knowledge):
    with pytest.raises(UnknownToolError):
        _spec("differential expression of Sample1 vs Sample2 (DiffFrobnic2)", knowledge)


@pytest.mark.parametrize("query", [
    "the adapters are removed from the reads",
    "Unless it is removed this adapter sequence will cause problems for downstream mapping",
    "adapter sequences were trimmed before mapping",
])
def test_adapters_removed_in_the_passive_are_trimming(knowledge, query):
    assert "read_trimming" in parse_request(query, knowledge).operations


def test_the_de_genes_expression_visualised_is_a_heatmap(knowledge):
    query = "identify differentially expressed genes, then visualize their expression"
    ops = parse_request(query, knowledge).operations
    assert "heatmap_plotting" in ops and "differential_expression" in ops


@pytest.mark.parametrize("query", [
    "These peaks are then annotated with relevant information, such as gene start sites, known promoter locations, "
    "etc.",
    "the called regions were annotated with genomic features like promoters, exons and introns",
])
def test_what_peaks_are_annotated_with_is_the_annotation(knowledge, query):
    request = parse_request(query, knowledge)
    assert "peak_annotation" in request.operations and not request.unmatched_clauses
