"""Families of requests written by others (GTN objectives, Bioconductor package texts, workshop and
issue-tracker posts; compiler/bioplan/evaluate/from_others.yaml, engineer G's block): the data named
after "from" is where a workflow starts, a reference alone is no result, analyses bioplan does not
do are refused by name, and the phrasings those authors use reach the operation they mean.
"""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError, NoOperationRecognizedError, UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


# --------------------------------------------------------------------------- what is a source


@pytest.mark.parametrize("query", [
    "Select and run workflow to extract annotated allelic variants from FASTQ files",
    "get annotated germline variants starting from the FASTQ files",
])
def test_the_data_named_after_from_is_the_input_not_the_result(knowledge, query):
    spec = _spec(query, knowledge)
    assert spec.target_output.semantic_type == "annotated_variants"
    assert spec.input_types == ("raw_reads",)
    ops = [s.operation for s in plan_request(query, [], knowledge).plans[0].steps]
    assert {"read_alignment", "variant_calling", "variant_annotation"} <= set(ops)


def test_a_datatype_word_inside_a_datatype_phrase_is_not_a_second_datatype(knowledge):
    request = parse_request("extract annotated allelic variants", knowledge)
    assert request.datatypes == ("annotated_variants",)


@pytest.mark.parametrize("query", [
    "compare my reads with the reference genome",
    "I have a reference genome",
])
def test_a_reference_alone_is_no_result(knowledge, query):
    """Before, these planned nothing (an empty workflow) without saying so."""
    with pytest.raises(NoOperationRecognizedError) as err:
        _spec(query, knowledge)
    assert "reference_genome" in err.value.message


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("query", "family", "words"), [
    ("Carry out local realignment on our aligned reads", "indel_realignment", "realignment around indels"),
    ("Select and run tools to assign clades/lineages", "lineage_assignment", "lineage"),
    ("Learn the tools necessary to perform a de novo assembly of a vertebrate genome", "eukaryotic_genome_assembly",
     "eukaryotic genomes"),
    ("Identify short variants (SNPs and Indels) in RNAseq data.", "rna_variant_calling", "rna-seq"),
])
def test_analyses_bioplan_does_not_do_are_refused_not_planned_as_something_else(knowledge, query, family, words):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details) and words in err.value.message.lower()


@pytest.mark.parametrize(("query", "tool"), [
    ("Visually inspect TAL1 peaks with Trackster", "Trackster"),
    ("Contamination of the assembly is checked using Kraken2 and Kmerfinder to verify sample purity.", "KmerFinder"),
    ("Visualize sample diversity using Krona and Phinch", "Phinch"),
])
def test_tools_named_by_tutorials_are_refused_by_name(knowledge, query, tool):
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert err.value.code in ("unknown_tool", "unsupported_analysis")
    assert tool in err.value.message


def test_a_tss_profile_of_peaks_is_not_refused_as_a_profile_over_peaks(knowledge):
    """'profiles of peaks binding to TSS regions' is the TSS profile bioplan plots."""
    request = parse_request("profiles of peaks binding to TSS regions", knowledge)
    assert "region_signal_computation" not in request.operations


# --------------------------------------------------------------------------- phrasings


@pytest.mark.parametrize(("query", "operation"), [
    ("Determine the effect of those variants on genomic features", "variant_annotation"),
    ("Annotate our called variants with reference information", "variant_annotation"),
    ("How do we detect differences between a set of reads from a microorganism and a reference genome",
     "variant_calling"),
    ("How to identify the genetic variation with the use of exome sequencing?", "variant_calling"),
    ("Learn how to analyse methylation data", "methylation_calling"),
    ("How can I infer lineage relationships between single cells based on their RNA, without a time series?",
     "trajectory_inference"),
    ("Determining the top most expressive genes per cluster", "marker_gene_detection"),
    ("Evaluate the quality of the assembly", "assembly_qc"),
    ("After read mappings and peak callings, the peak should be annotated to answer the biological questions.",
     "peak_annotation"),
    ("annotation of regions with genes", "peak_annotation"),
    ("Assess quality and reproducibility of experiments", "sample_correlation"),
])
def test_phrasings_of_others_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_variation_in_a_microbiome_is_not_variant_calling(knowledge):
    request = parse_request("What is the effect of normal variation in the gut microbiome on host health?", knowledge)
    assert "variant_calling" not in request.operations
    assert "variant_annotation" not in request.operations


def test_a_refusal_through_a_tool_names_the_tool_the_request_named(knowledge):
    """mothur sits in the OTU-clustering entry beside VSEARCH: the refusal says 'mothur', as written."""
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec("Analyze of 16S rRNA sequencing data using the mothur toolsuite in Galaxy", knowledge)
    assert "mothur" in err.value.message and "VSEARCH" not in err.value.message


def test_comparing_several_callers_is_refused_not_planned_as_one_caller(knowledge):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec("Compare the performance of different variant calling tools", knowledge)
    assert "caller_benchmarking" in str(err.value.details)


def test_steps_named_in_a_row_are_one_chain_without_files(knowledge):
    """'read mapping, peak calling, ... motifs': peak calling reads the mapping's alignments, not
    alignments of its own from nowhere (before: a second, disconnected input)."""
    query = ("We will focus on the following steps: initial quality control, read mapping, peak calling, "
             "identification of over represented sequence motifs, annotation of regions with genes")
    spec = _spec(query, knowledge)
    assert spec.input_types == ("raw_reads",)
    plan = plan_request(query, [], knowledge).plans[0]
    by_op = {s.operation: s for s in plan.steps}
    assert {"read_alignment", "peak_calling", "motif_discovery", "peak_annotation"} <= set(by_op)
    assert by_op["peak_calling"].sources == {"bams": "duplicate_marking"}
    assert ("read_alignment", "duplicate_marking") in plan.edges


@pytest.mark.parametrize(("query", "datatype", "operation"), [
    ("gtf file with the genome annotation", "gene_annotation", "genome_annotation"),
    ("BAM files with the duplicates marked", "aligned_reads", "duplicate_marking"),
])
def test_words_after_a_file_with_say_what_it_holds(knowledge, query, datatype, operation):
    """'Input: ..., gtf file with the genome annotation' planned Prokka genome annotation before."""
    request = parse_request(query, knowledge)
    assert operation not in request.operations and datatype in request.datatypes


def test_a_step_on_a_file_is_still_a_step(knowledge):
    assert "duplicate_marking" in parse_request("mark duplicates in the BAM files", knowledge).operations


def test_an_issue_asking_for_gene_counts_from_bam_counts_reads(knowledge):
    query = ('Given a bam-format file with read-to-genome alignments, determine the read count corresponding to each '
             'gene. Input: Bam-files formatted files with read-to-genome alignments, gtf file with the genome '
             'annotation. Output: Csv-formatted file ("GeneID,Counts")')
    spec = _spec(query, knowledge)
    assert "read_counting" in spec.required_operations and "genome_annotation" not in spec.required_operations
    assert spec.target_output.format == "csv"


def test_processing_raw_chipseq_data_is_alignment_then_peaks(knowledge):
    spec = _spec("How is raw ChIP-seq data processed and analyzed?", knowledge)
    assert {"read_alignment", "peak_calling"} <= set(spec.required_operations)
    assert spec.input_types == ("raw_reads",)


@pytest.mark.parametrize("query", [
    "How to identify the genetic variation with the use of exome sequencing?",
    "call variants from whole genome sequencing",
])
def test_a_request_naming_the_sequencing_starts_from_the_reads(knowledge, query):
    assert _spec(query, knowledge).input_types == ("raw_reads",)


def test_without_the_sequencing_named_the_first_step_starts_from_its_own_input(knowledge):
    assert "raw_reads" not in _spec("call variants", knowledge).input_types


def test_quality_control_at_the_levels_listed_checks_each_level(knowledge):
    ops = parse_request("Perform in-depth quality control of sequencing data at multiple levels (fastq, bam, vcf)",
                        knowledge).operations
    assert {"read_qc", "alignment_qc", "variant_statistics"} <= set(ops)
    assert "alignment_qc" not in parse_request("quality control of the reads, then align them to a BAM",
                                               knowledge).operations


@pytest.mark.parametrize(("query", "aligns"), [
    ("Learn how to analyse methylation data", True),
    ("analyse the methylation data of my aligned BAM files", False),
])
def test_analysing_methylation_data_aligns_only_reads_not_yet_aligned(knowledge, query, aligns):
    ops = parse_request(query, knowledge).operations
    assert "methylation_calling" in ops and ("bisulfite_alignment" in ops) == aligns


def test_assessing_the_quality_of_a_single_cell_dataset_is_cell_qc(knowledge):
    """With an AnnData input the question is cell QC; with nothing to say which data, bioplan asks."""
    query = "How can I assess my dataset quality?"
    assert "sc_quality_filtering" in parse_request(query, knowledge, context="single cell rna seq h5ad").operations
    with pytest.raises(NoOperationRecognizedError):
        _spec(query, knowledge)


# --------------------------------------------------------------------------- round 2 (nf-core sarek, raredisease,
# nanoseq, hic, eager, mag; GTN CLIP-seq, TB, ChIP-seq; scanpy; methods paragraphs; Chinese posts)


@pytest.mark.parametrize(("query", "family"), [
    ("build duplex consensus reads from the UMIs", "umi_consensus"),
    ("call variants and rank the candidate variants for a rare disease", "variant_prioritisation"),
    ("check the sex of each sample and their relatedness", "sample_identity_qc"),
    ("genotype short tandem repeats in the exomes", "repeat_expansion"),
    ("detect m6A sites in nanopore direct RNA reads", "rna_modification"),
    ("find the binding sites of an RNA-binding protein in eCLIP data", "clip_seq"),
    ("predict antibiotic resistance from the SNPs", "resistance_from_variants"),
    ("estimate DNA damage patterns of the ancient samples", "ancient_dna"),
    ("call A/B compartments at 100 kb", "hic"),
    ("realign indels before calling", "indel_realignment"),
])
def test_analyses_of_round_two_are_refused_not_planned_as_something_else(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


@pytest.mark.parametrize(("query", "tool"), [
    ("remove the mouse reads with BBSplit", "bbsplit"),
    ("call germline CNVs with CNVnator", "cnvnator"),
    ("call structural variants with Sniffles", "sniffles"),
    ("map the nanopore reads with GraphMap2", "graphmap2"),
    ("call peaks with PureCLIP", "pureclip"),
    ("bin the contigs with SemiBin2", "semibin2"),
])
def test_tools_of_round_two_are_refused_by_name_not_silently_replaced(knowledge, query, tool):
    """Before, these names were only 'not understood' and bioplan's own tool ran in their place."""
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert err.value.code == "unknown_tool"
    assert tool in err.value.message.lower()


def test_copy_number_variant_calling_is_copy_number_not_small_variants(knowledge):
    operations = parse_request("copy number variant calling on the exomes", knowledge).operations
    assert "copy_number_calling" in operations and "variant_calling" not in operations


@pytest.mark.parametrize(("query", "operation"), [
    ("which isoforms are differentially expressed between the two tissues", "differential_expression"),
    ("demultiplex the 10x single-cell reads into cells", "single_cell_quantification"),
    ("this notebook clusters the cells", "cell_clustering"),
    ("extract normalized coverage files", "coverage_computation"),
    ("we assemble and annotate the genome of the isolate", "genome_annotation"),
    ("GO与KEGG富集", "go_enrichment"),
    ("find polymorphic sites in the population", "variant_calling"),
    ("keep genes with an FDR below 0.01", "gene_filtering"),
    ("keep only PASS variants", "variant_filtering"),
    ("run a gene set analysis on the ranked genes", "gsea"),
    ("a workflow for the analysis of ChIP-seq data", "peak_calling"),
])
def test_phrasings_of_round_two_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_a_pipeline_named_by_its_name_runs_its_steps(knowledge):
    """'the GATK best-practices workflow for calling small germline variants' (snakemake-workflows): the
    motif's aliases were never matched, so only HaplotypeCaller on an invented BAM was planned."""
    result = plan_request("This Snakemake pipeline implements the GATK best-practices workflow for calling small "
                          "germline variants.", [], knowledge)
    ops = {s.operation for s in result.plans[0].steps}
    assert {"read_alignment", "duplicate_marking", "base_recalibration", "variant_calling"} <= ops
    assert "peak_calling" in {s.operation for s in plan_request("an ATAC-seq pipeline", [], knowledge).plans[0].steps}


def test_a_request_listing_its_steps_is_not_widened_by_a_pipeline_name(knowledge):
    """'Joint germline' names a pipeline that ends in filtering; the request lists its own three steps."""
    spec = _spec("Joint germline variant calling: run HaplotypeCaller per sample in GVCF mode, combine the GVCFs "
                 "with GenomicsDBImport and jointly genotype the cohort with GenotypeGVCFs", knowledge)
    assert "variant_filtering" not in spec.required_operations


@pytest.mark.parametrize(("query", "family"), [
    ("type the HLA class I alleles of each exome", "hla_typing"),
    ("find conserved markers for every cluster across the two conditions", "conserved_markers"),
    ("variant detection from RNA-seq of the tumours", "rna_variant_calling"),
])
def test_round_two_single_cell_and_variant_analyses_are_refused_by_name(knowledge, query, family):
    """Conserved markers were planned as markers over all cells; RNA-seq variant calling met a constraint
    error about the assay instead of the refusal that names the missing SplitNCigarReads step."""
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


@pytest.mark.parametrize(("query", "operation"), [
    ("build an integrated assay of the three donors", "batch_correction"),
    ("find the cell types shared across both datasets", "batch_correction"),
    ("cell-type specific changes after treatment", "pseudobulk_differential_expression"),
    ("找出特定细胞类型在处理后的差异", "pseudobulk_differential_expression"),
])
def test_seurat_integration_goals_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


@pytest.mark.parametrize("query", [
    "Differential expression analysis of RNA-seq expression profiles with biological replication. Implements a range "
    "of statistical methodology based on the negative binomial distributions, including empirical Bayes estimation, "
    "exact tests, generalized linear models and quasi-likelihood tests.",
    "test differential expression of the read counts with a negative binomial GLM",
])
def test_the_statistics_a_de_package_describes_are_de_not_an_unread_instruction(knowledge, query):
    """edgeR's description was refused as partially understood: its statistics words were nobody's."""
    request = parse_request(query, knowledge)
    assert "differential_expression" in request.operations
    assert not request.unmatched_clauses


def test_statistics_words_without_expression_data_plan_no_de(knowledge):
    request = parse_request("fit a negative binomial model to the taxa", knowledge)
    assert "differential_expression" not in request.operations


@pytest.mark.parametrize(("query", "operation"), [
    ("How can we annotate a bacterial genome?", "genome_annotation"),
    ("annotate each isolate genome", "genome_annotation"),
    ("How to improve the quality of a dataset?", "read_trimming"),
    ("improve the read quality before mapping", "read_trimming"),
])
def test_gtn_quality_and_annotation_questions_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_improving_quality_of_cells_is_not_read_trimming(knowledge):
    assert "read_trimming" not in parse_request("improve the quality of the cells", knowledge).operations


def test_a_bare_sequencing_names_no_assay(knowledge):
    """'count data from high-throughput sequencing assays' (DESeq2's description) typo-read 'sequencing' as
    'resequencing' (whole-genome sequencing) and refused DE as a constraint violation."""
    request = parse_request("test for differential expression of count data from high-throughput sequencing assays",
                            knowledge)
    assert "whole_genome_sequencing" not in request.constraints
    assert "differential_expression" in _spec("test for differential expression of count data from high-throughput "
                                              "sequencing assays", knowledge).required_operations


def test_transcript_level_estimates_for_gene_level_analysis_is_tximport(knowledge):
    request = parse_request("Imports transcript-level abundance, estimated counts and transcript lengths, and "
                            "summarizes into matrices for use with downstream gene-level analysis packages.", knowledge)
    assert "quantification_aggregation" in request.operations and not request.unmatched_clauses


def test_merging_a_samples_sequencing_runs_is_the_lane_merging_step(knowledge):
    """A sample's runs or lanes are concatenated before its first step (codegen/lanes.py); a request to merge
    them names that step, not dropped and not refused."""
    assert "lane_merging" in _spec("trim the reads with fastp and merge multiple sequencing runs",
                                   knowledge).required_operations


# --------------------------------------------------------------------------- round three (nf-core pipelines not used
# before, snakemake/nextflow READMEs, methods sections, Chinese Scanpy posts, Portuguese and Spanish text)


@pytest.mark.parametrize(("query", "family"), [
    ("This pipeline is designed to process the sequencing output of nascent transcription assays, like GRO-seq or "
     "PRO-seq.", "nascent_transcription"),
    ("The GRO-seq analysis pipeline processes raw FASTQ data through a series of steps including adapter trimming, "
     "quality control, genome mapping, peak calling, mRNA contamination, pause index, and TSS enrichment analysis.",
     "nascent_transcription"),
    ("riboseq is a Nextflow DSL2 pipeline for the analysis of Ribo-seq data.", "ribosome_profiling"),
    ("Analyzing PBMC scATAC-seq", "single_cell_atac"),
    ("Joint RNA and ATAC analysis: 10x multiomic", "single_cell_atac"),
    ("分析由10x Genomics提供的人类外周血单核细胞(PBMCs)的单细胞ATAC-seq数据集", "single_cell_atac"),
    ("Transcription factor footprinting", "tf_footprinting"),
    ("nf-core/airrflow is a bioinformatics best-practice pipeline to analyze B-cell or T-cell bulk repertoire "
     "sequencing data.", "immune_repertoire"),
    ("10X Genomics single-cell/nuclei RNA-seq for data derived from Oxford Nanopore Q20+ chemistry",
     "long_read_single_cell"),
    ("Picking OTU's", "otu_picking"),
])
def test_analyses_of_round_three_are_refused_not_planned_as_something_else(knowledge, query, family):
    """Before, these were planned as ChIP-like peak calling or RNA-seq, refused for the wrong reason
    (two assays, nothing derives raw reads), or answered 'no operation recognised'."""
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


@pytest.mark.parametrize(("query", "tool"), [
    ("DRAGMAP - Open-source software implementation of the DRAGEN mapper", "dragmap"),
    ("UniverSC", "universc"),
    ("Alevin-Fry + AlevinQC", "alevinqc"),
    ("没有生物学重复的差异峰分析可以使用macs2 bdgdiff。", "bdgdiff"),
    ("GroHMM - Predicts transcripts from aligned GROSeq data in the form of bed files.", "grohmm"),
    ("P-site identification, CDS occupancy and P-site diagnostics (riboWaltz)", "ribowaltz"),
    ("Finding co-accessible networks with Cicero", "cicero"),
    ("Redundancy reduction with EvidentialGene", "evidentialgene"),
])
def test_tools_of_round_three_are_refused_by_name(knowledge, query, tool):
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert err.value.code in ("unknown_tool", "unsupported_analysis")
    assert tool in err.value.message.lower()


def test_splice_sites_found_by_the_aligner_are_no_splicing_analysis(knowledge):
    """HISAT '寻找可变剪切位点' (finds splice sites while aligning); the refusal is Ballgown's, not
    alternative splicing's."""
    with pytest.raises(BioplanError) as err:
        _spec("【HISAT】將RNA-seq reads 比對到參考基因組上,尋找可變剪切位點。【Ballgown】分析差異表達基因", knowledge)
    assert err.value.code == "unknown_tool" and "Ballgown" in err.value.message


@pytest.mark.parametrize("query", ["Host removal (Kraken2, tipically against _Homo sapiens_)",
                                   "Removal of host reads (Kraken 2)"])
def test_kraken2_named_for_host_removal_is_refused_not_run_beside_bowtie2(knowledge, query):
    """Before, 'Host removal (Kraken2)' planned Bowtie2 host removal and a Kraken2 classification: the
    operation alias 'Kraken2' made the tool's own name ask for classification."""
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert err.value.code == "unknown_tool" and "host read removal" in err.value.message


@pytest.mark.parametrize("query", ["kraken2", "run Kraken2 on my reads", "用kraken2做物种分类"])
def test_kraken2_alone_still_classifies(knowledge, query):
    assert _spec(query, knowledge).required_operations == ("taxonomic_classification",)


def test_a_list_of_tools_after_with_names_each_tool_for_its_own_step(knowledge):
    spec = _spec("Pre-processing of paired-end RNA-seq reads with FastQC, fastp, and SortMeRNA", knowledge)
    assert set(spec.required_operations) == {"read_qc", "read_trimming", "rrna_removal"}


def test_a_tool_listed_for_the_step_before_the_list_is_still_checked(knowledge):
    with pytest.raises(BioplanError) as err:
        _spec("Variant annotation (SnpEff, SnpSift)", knowledge)
    assert err.value.code == "unknown_tool" and "snpsift" in err.value.message


def test_reads_aligned_against_a_genome_assembly_are_aligned_not_assembled(knowledge):
    """A methods sentence: before, 'genome assembly' planned MEGAHIT and 'were aligned using STAR' read
    STAR as existing alignments."""
    request = parse_request("reads were aligned using STAR against the human genome assembly.", knowledge)
    assert "genome_assembly" not in request.operations
    assert "reference_genome" in request.datatypes and "star" in request.preferred_tools
    assert "genome_assembly" in parse_request("perform genome assembly", knowledge).operations


@pytest.mark.parametrize("query", ["trim reads prior to genome assembly", "from raw reads to genome assembly",
                                   "trim the reads and proceed to the genome assembly"])
def test_genome_assembly_after_to_without_aligned_reads_is_still_the_step(knowledge, query):
    assert "genome_assembly" in parse_request(query, knowledge).operations


def test_data_made_on_the_way_from_the_named_start_is_not_an_input(knowledge):
    """'start from the FASTQ files ... prepare a count matrix': before, DESeq2 read a given count
    matrix and the FASTQ files were never used."""
    query = ("We will start from the FASTQ files, show how these were quantified with respect to a reference "
             "transcriptome, and prepare a count matrix, then test differential expression.")
    spec = _spec(query, knowledge)
    assert "raw_count_matrix" not in spec.input_types and "raw_reads" in spec.input_types
    assert "transcript_quantification" in spec.required_operations


@pytest.mark.parametrize(("query", "operation"), [
    ("The host sequence removal system uses bowtie2 alignment followed by samtools filtering to identify and remove "
     "reads that map to host reference genomes", "host_read_removal"),
    ("Quantification: UMI-based gene counting using STAR Solo", "single_cell_quantification"),
])
def test_phrasings_of_round_three_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in _spec(query, knowledge).required_operations


@pytest.mark.parametrize(("query", "wanted"), [
    ("以 PBMC 3k 为例，用 Scanpy 跑通 scRNA-seq 全流程——QC 过滤、归一化、高变基因筛选、"
     "PCA 降维、UMAP 可视化、Leiden 聚类与细胞类型注释",
     {"sc_quality_filtering", "sc_normalization", "embedding_visualization", "cell_clustering",
      "cell_type_annotation"}),
    ("QC过滤 → 归一化 → 选高变基因 → 降维(PCA→UMAP) → 聚类(Leiden) → 注释 → 差异表达",
     {"sc_quality_filtering", "sc_normalization", "cell_clustering", "cell_type_annotation", "marker_gene_detection"}),
])
def test_steps_of_a_single_cell_pipeline_are_single_cell_steps(knowledge, query, wanted):
    """Before: PCA was a bulk sample PCA (refused in single-cell), 归一化 a DESeq2 VST, 差异表达 a bulk
    DE test, QC a FastQC of reads."""
    anchors = set(_spec(query, knowledge).required_operations)
    assert wanted <= anchors
    assert not anchors & {"sample_pca", "count_normalization", "differential_expression", "read_qc"}


def test_a_portuguese_de_is_a_preposition_and_accented_words_stay_whole(knowledge):
    query = ("As leituras de qualidade filtradas estão alinhadas ao genoma de referência através do HISAT2. "
             "As leituras mapeadas são resumidas e agregadas sobre os genes via HTSeq.")
    request = parse_request(query, knowledge)
    assert "differential_expression" not in request.operations
    assert {"referência", "através", "estão"} <= set(request.unrecognized)
    for english in ("run DE", "run de", "run de on my counts", "do de with DESeq2"):
        assert "differential_expression" in parse_request(english, knowledge).operations, english


@pytest.mark.parametrize("query", [
    "Assigning reads to genes or genomic features from a BAM file",
    "Count read pairs for each gene across multiple BAM files.",
    "After aligning your RNA-Seq reads to a reference genome, the next step is to quantify how many reads map to each "
    "gene.",
])
def test_counting_reads_per_gene_phrasings_are_read_counting(knowledge, query):
    """Before: 'reads to genes' named the assembly pipeline (MEGAHIT, Prodigal); the others were refused."""
    anchors = _spec(query, knowledge).required_operations
    assert "read_counting" in anchors and "genome_assembly" not in anchors


def test_comparing_tumour_and_normal_alleles_is_no_expression_test(knowledge):
    request = parse_request("Somatic variants are identified by comparing allele frequencies in normal and tumor "
                            "sample alignments", knowledge)
    assert "differential_expression" not in request.operations


def test_a_result_named_in_sequencing_data_starts_from_the_reads(knowledge):
    spec = _spec("The GDC DNA-Seq analysis pipeline identifies somatic variants within whole exome sequencing (WXS) "
                 "and whole genome sequencing (WGS) data.", knowledge)
    assert spec.input_types == ("raw_reads",) and spec.target_output.semantic_type == "somatic_variant_calls"


@pytest.mark.parametrize(("query", "family"), [
    ("limma design and contrast matrix for paired experiment", "paired_design"),
    ("Custom Panel of Normals – Creating study-specific artifact databases", "panel_of_normals"),
])
def test_designs_and_resources_bioplan_does_not_build_are_refused(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


@pytest.mark.parametrize("query", ["call somatic variants with Mutect2 using a panel of normals",
                                   "tumor normal paired analysis with Mutect2",
                                   "Tumor-Only Analysis – Working without any normal controls"])
def test_somatic_calling_with_a_pon_or_pairs_or_tumour_only_is_planned(knowledge, query):
    assert "somatic_variant_calling" in _spec(query, knowledge).required_operations


# --------------------------------------------------------------------------- round 4 (held-out r4.* cases)


@pytest.mark.parametrize("query", [
    "Map the read data to the reference and mark duplicates.",
    "We only want to do the alignments and SNP calling once for the entire set of samples",
    "align the trimmed reads against the genome, then call variants",
    "run the mapping before peak calling",
])
def test_the_act_of_aligning_is_read_alignment_not_an_aligned_reads_input(knowledge, query):
    """Before: 'the read data' and 'the alignments' were read as BAM inputs and the alignment dropped."""
    assert "read_alignment" in _spec(query, knowledge).required_operations


@pytest.mark.parametrize("query", ["evaluate the alignment results", "summarise the mapping rates of all samples"])
def test_alignment_results_are_still_no_alignment_step(knowledge, query):
    assert "read_alignment" not in parse_request(query, knowledge).operations


@pytest.mark.parametrize("query", [
    "call peaks with MACS2, filter them against the ENCODE blacklist",
    "peaks overlapping the ENCODE blacklist were removed",
    "call peaks with MACS2; blacklisted regions were excluded",
])
def test_blacklist_filtering_phrasings_filter_the_peaks(knowledge, query):
    """Before: the blacklist was read as an input and left unused; the peaks were not filtered."""
    steps = plan_request(query, [], knowledge).plans[0].steps
    assert "blacklist_filtering" in {s.operation for s in steps}


def test_differential_genes_in_each_cluster_are_markers(knowledge):
    anchors = _spec("Let us compute a ranking for the highly differential genes in each cluster.",
                    knowledge).required_operations
    assert "marker_gene_detection" in anchors and "differential_expression" not in anchors


@pytest.mark.parametrize(("query", "family"), [
    ("Cancer panel specific panel of normals for Mutect2 based on bait sets or whole exome data.", "panel_of_normals"),
    ("A panel of normals from 40 exomes for Mutect2", "panel_of_normals"),
    ("it can be standardized as a pipeline for DamID data analysis", "damid"),
])
def test_round_four_analyses_bioplan_does_not_do_are_refused_by_name(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


def test_mutect2_with_an_existing_panel_of_normals_for_exomes_is_planned(knowledge):
    spec = _spec("call somatic variants with Mutect2 with a panel of normals for the exome", knowledge)
    assert "somatic_variant_calling" in spec.required_operations


@pytest.mark.parametrize("query", [
    "16S amplicons with DADA2; the output will be a feature counts table (raw counts of ASVs per sample), the "
    "taxonomy of each representative sequence",
    "denoise the 16S reads with DADA2 and give the taxonomy of the ASVs",
])
def test_an_amplicon_feature_table_and_the_taxonomy_of_asvs_are_the_dada2_route(knowledge, query):
    """Before: 'feature counts' named featureCounts (refused: bulk RNA-seq only) and the taxonomy was dropped."""
    anchors = _spec(query, knowledge).required_operations
    assert "asv_taxonomy_assignment" in anchors and "read_counting" not in anchors


@pytest.mark.parametrize(("query", "source", "result"), [
    ("Somatic variants are identified by comparing allele frequencies in normal and tumor sample alignments",
     "aligned_reads", "somatic_variant_calls"),
    ("variants in the BAM files", "aligned_reads", "variant_calls"),
])
def test_without_a_step_the_data_of_a_named_result_is_its_input(knowledge, query, source, result):
    """Before: the alignments, mentioned last, were the wanted result (unsatisfiable from the variants)."""
    spec = _spec(query, knowledge)
    assert spec.target_output.semantic_type == result and source in spec.input_types


def test_sequencing_depth_is_no_coverage_track_input(knowledge):
    """测序深度 is a library's size ('消除测序深度差异' is why counts are normalised); before, it was read as a
    coverage-track input nothing used."""
    query = ("典型的 Scanpy 分析包括以下关键步骤: - 质量控制:过滤低质量细胞和基因 - "
             "标准化与对数变换:消除测序深度差异 - 高变基因识别:筛选具有生物学意义的基因")
    spec = _spec(query, knowledge)
    assert "coverage_track" not in spec.input_types and "sc_normalization" in spec.required_operations


@pytest.mark.parametrize(("query", "runs", "offered"), [
    ("alignment or pseudoalignment of the RNA-seq reads", "read_alignment", "transcript_quantification"),
    ("pseudoalignment or alignment of the RNA-seq reads", "transcript_quantification", "read_alignment"),
])
def test_two_steps_joined_by_or_on_the_same_reads_are_alternatives(knowledge, query, runs, offered):
    """Before: both routes ran, the second one's output going nowhere; now the first named runs and the
    other is said to be an offered alternative."""
    result = plan_request(query, [], knowledge)
    ops = {s.operation for s in result.plans[0].steps}
    assert runs in ops and offered not in ops
    assert any("alternative route" in d for d in result.spec.deviations)


def test_steps_joined_by_and_still_both_run(knowledge):
    anchors = _spec("alignment and pseudoalignment of the RNA-seq reads", knowledge).required_operations
    assert {"read_alignment", "transcript_quantification"} <= set(anchors)


@pytest.mark.parametrize(("query", "described"), [
    ("Starting from the Tn5-shifted, QC-gated BAM files, the pipeline calls peaks with MACS2",
     {"tn5_shift", "read_qc"}),
    ("call variants on the QC-passed BAM files", {"read_qc"}),
])
def test_steps_describing_the_data_started_from_are_not_run(knowledge, query, described):
    """Before: the BAMs were shifted again and FastQC ran on reads nobody gave."""
    assert not described & set(parse_request(query, knowledge).operations)


def test_a_step_before_data_not_named_as_the_start_still_runs(knowledge):
    assert "read_qc" in parse_request("Generate QC-filtered reads", knowledge).operations


# --------------------------------------------------------------------------- round five (requests5)


@pytest.mark.parametrize("query", [
    "I aligned the reads with Bowtie2, checked the bam duplication rate and they were all <50% so I did not "
    "remove duplicates.",
    "Report the duplication levels of the aligned reads",
])
def test_a_word_with_a_negating_prefix_is_not_a_typo_of_its_opposite(knowledge, query):
    """"duplication" (a rate QC reports) is no typo of "deduplication": a request that checks the
    duplication rate and keeps the duplicates never gets a duplicate-marking step (SEACR issue 87)."""
    ops = parse_request(query, knowledge).operations
    assert "duplicate_marking" not in ops and "bisulfite_deduplication" not in ops


@pytest.mark.parametrize("query", [
    "Annotate my peaks to genes and genomic features",
    "annotate these peaks",
    "assign the peaks to genomic features",
])
def test_annotating_peaks_to_genomic_features_is_peak_annotation(knowledge, query):
    """The genomic feature a peak falls in (promoter, exon, intron) is peak annotation, not only the
    nearest gene (bioSkills peak-annotation skill)."""
    assert "peak_annotation" in parse_request(query, knowledge).operations


def test_genewise_tests_of_a_quasi_likelihood_model_are_edger_differential_expression(knowledge):
    """edgeR's glmQLFit help page: the quasi-likelihood F-test is edgeR's, and the design's words
    ("coefficient or contrast", "conduct") are no unrecognised analysis."""
    spec = _spec("Fit a quasi-likelihood negative binomial generalized log-linear model to count data. Conduct "
                 "genewise statistical tests for a given coefficient or contrast.", knowledge)
    assert "differential_expression" in spec.required_operations and "edger" in spec.preferred_tools


@pytest.mark.parametrize("query", [
    "Gene-level RNA-seq differential expression and pathway analysis using Rsubread and the edgeR quasi-likelihood "
    "pipeline",
    "differential expression analysis using featureCounts and DESeq2",
])
def test_a_tool_listed_beside_the_analysis_tool_names_its_upstream_step(knowledge, query):
    """A tool named in a list with the tool of the asked analysis, whose own step makes that
    analysis's input, is that upstream step, not a different tool for the analysis."""
    spec = _spec(query, knowledge)
    assert {"read_counting", "differential_expression"} <= set(spec.required_operations)
    assert "featurecounts" in spec.preferred_tools


@pytest.mark.parametrize("query, tool", [
    ("Removal of host reads (Kraken 2)", "Kraken"),
    ("Variant annotation (SnpEff, SnpSift)", "SnpSift"),
])
def test_a_tool_of_a_step_it_does_not_do_is_still_refused(knowledge, query, tool):
    """Alone, or in a comma list of one step's tools, a tool named for a step it does not do is refused."""
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert tool in str(err.value)
