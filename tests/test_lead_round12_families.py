"""Families the lead found writing requests as others do (session 16): a tool's output named by its format
("my Cell Ranger h5", "the STAR BAMs"), taxonomy as a step of an amplicon study ("SILVA taxonomy"), and data
only a pipeline makes (DADA2's error model) never assumed as the input of a request without files."""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(knowledge, query):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize(("query", "given"), [
    ("cluster the cells in my cellranger h5 and find markers", "single_cell_matrix"),
    ("cluster the cells in my Cell Ranger matrix and find markers", "single_cell_matrix"),
    ("scRNA-seq 10x h5: QC, doublet removal with scrublet, leiden clustering, marker genes", "single_cell_matrix"),
    ("annotate the GATK VCFs with VEP", "variant_calls"),
])
def test_a_tools_output_named_by_its_format_is_the_input_not_the_tool(knowledge, query, given):
    request = parse_request(query, knowledge)
    assert request.absent == [] or all(a.kind != "tool" for a in request.absent), request.absent
    assert not request.unrecognized, request.unrecognized  # "h5", "matrix", "vcfs" are read with the name
    assert _spec(knowledge, query).input_types == (given,)


@pytest.mark.parametrize("query", [
    "16S amplicon paired reads: DADA2 ASVs, SILVA taxonomy, alpha and beta diversity",
    "16S amplicon: DADA2 ASVs, taxonomy with GTDB",
    "ITS2 amplicons: denoise with DADA2 and assign taxonomy",
])
def test_taxonomy_named_as_a_step_of_an_amplicon_study_is_assigned(knowledge, query):
    spec = _spec(knowledge, query)
    assert "asv_taxonomy_assignment" in spec.required_operations
    assert "taxonomy" not in " ".join(spec.unrecognized)


@pytest.mark.parametrize("query", [
    "16S amplicon: alpha diversity from my ASV table and the SILVA taxonomy table",
    "shotgun metagenomics: classify the reads with Kraken2",
])
def test_a_taxonomy_table_or_a_shotgun_study_is_no_asv_taxonomy_step(knowledge, query):
    assert "asv_taxonomy_assignment" not in _spec(knowledge, query).required_operations


@pytest.mark.parametrize(("query", "inputs"), [
    ("16S: DADA2 ASVs, then assign taxonomy", ("raw_reads",)),
    ("learn the error rates and denoise with DADA2", ("raw_reads",)),
    ("denoise my filtered amplicon reads into ASVs with DADA2", ("filtered_amplicon_reads",)),
])
def test_data_only_a_pipeline_makes_is_never_assumed_as_the_input(knowledge, query, inputs):
    """datatypes.yaml `internal`: DADA2's error model is learned from the run's filtered reads, which
    filterAndTrim makes from the reads; named in the request, filtered reads are the input."""
    assert _spec(knowledge, query).input_types == inputs


def test_internal_datatypes_are_made_by_some_step(knowledge):
    internal = [d for d in knowledge.datatypes.values() if d.internal]
    assert internal, "no datatype is marked internal"
    for d in internal:
        assert any(p.datatype == d.id for op in knowledge.operations.values() for p in op.outputs.values()), d.id


@pytest.mark.parametrize(("query", "absent"), [
    ("How do I find differentially methylated regions between tumor and normal from my Bismark coverage files?",
     {"differential_binding", "methylation_calling"}),
    ("WGBS: call differentially methylated regions between the groups", {"differential_binding"}),
])
def test_differentially_methylated_regions_are_no_differential_binding(knowledge, query, absent):
    ops = set(_spec(knowledge, query).required_operations)
    assert "differential_methylation" in ops and not ops & absent


@pytest.mark.parametrize(("query", "tool", "inputs"), [
    # the format names the data the request starts from: the step reading it, not the tool writing it
    ("align reads using my STAR index", "star", {"genome_index", "raw_reads"}),
    ("DMRs from my Bismark coverage files", "dss_calldmr", {"methylation_calls", "sample_metadata"}),
    # a format named as the result is made by its one writer
    ("build a STAR index from my genome", "star_genome_generate", {"reference_genome"}),
])
def test_a_format_named_as_the_source_is_read_not_made(knowledge, query, tool, inputs):
    spec = _spec(knowledge, query)
    assert spec.preferred_tools == (tool,) and set(spec.input_types) == inputs


@pytest.mark.parametrize("query", [
    "assemble the metagenome with MEGAHIT, bin with MetaBAT2 and check bin quality with CheckM",
    "Evaluation of MAG quality and completeness using CheckM software",
])
def test_checkm_is_not_checkm2_and_is_refused_by_name(knowledge, query):
    from bioplan.errors import UnknownToolError

    with pytest.raises(UnknownToolError) as info:
        _spec(knowledge, query)
    assert "CheckM," in info.value.message and "CheckM2" in info.value.message


def test_binning_without_files_starts_from_the_reads(knowledge):
    """The depth table and the reads mapped back to the contigs are made on the way (`internal`); the contigs
    are the assembly's, asked for in the same request."""
    spec = _spec(knowledge,
                 "assemble the metagenome with MEGAHIT, bin with MetaBAT2 and check bin quality with CheckM2")
    assert spec.input_types == ("raw_reads",)
    assert {"genome_assembly", "contig_binning", "bin_qc"} <= set(spec.required_operations)
    assert not spec.unrecognized  # "bin with" is binning


@pytest.mark.parametrize(("query", "clustered"), [
    ("scRNA-seq: QC, normalize and cluster", True),
    ("single-cell data: filter cells, normalise, cluster them, then find markers", True),
    ("10x scRNA-seq: integrate them with Harmony, cluster, annotate cell types", True),
    ("single cell: run it on our SLURM cluster with QC", False),  # a compute cluster
])
def test_the_bare_verb_cluster_in_a_list_of_single_cell_steps(knowledge, query, clustered):
    spec = _spec(knowledge, query)
    assert ("cell_clustering" in spec.required_operations) is clustered


@pytest.mark.parametrize(("query", "op"), [
    ("map RNA-seq reads to the transcriptome and estimate abundances with RSEM", "transcript_quantification"),
    ("shotgun metagenomes: classify the reads with Kraken2 and estimate the species abundances",
     "abundance_estimation"),
])
def test_abundance_estimation_is_the_studys_own(knowledge, query, op):
    """Of transcripts it is their quantification (RSEM named for it is no misplaced tool), of taxa Bracken's."""
    ops = _spec(knowledge, query).required_operations
    assert op in ops and not {"transcript_quantification", "abundance_estimation"} - {op} & set(ops)


@pytest.mark.parametrize(("query", "given", "anchors"), [
    ("How to get a count matrix from BAM files aligned with HISAT2?", ("aligned_reads",), ()),
    ("We need kallisto run to get a count table", ("raw_reads",), ("transcript_quantification",)),
    ("a quality report generated by FastQC", ("raw_reads",), ("read_qc",)),
])
def test_files_a_named_tool_wrote_are_the_data_when_a_result_is_made_from_them(knowledge, query, given, anchors):
    spec = _spec(knowledge, query)
    assert spec.input_types == given
    assert set(anchors) <= set(spec.required_operations)
    assert ("read_alignment" in spec.required_operations) is False


def test_a_named_pipeline_runs_whole_beside_a_step_outside_it(knowledge):
    """"germline variant calling with GATK best practices and annotation with SnpEff": the annotation is no step
    of the GATK pipeline, so it does not say which of the pipeline's steps are wanted (BQSR was dropped)."""
    ops = set(_spec(knowledge, "whole exome sequencing of 20 patients, germline variant calling with GATK best "
                               "practices and annotation with SnpEff").required_operations)
    assert {"duplicate_marking", "base_recalibration", "variant_calling", "variant_annotation"} <= ops


def test_a_request_listing_the_pipelines_own_steps_keeps_to_them(knowledge):
    ops = set(_spec(knowledge, "Joint germline variant calling with the GATK best practices: HaplotypeCaller in GVCF "
                               "mode, GenomicsDBImport, GenotypeGVCFs").required_operations)
    assert "base_recalibration" not in ops


@pytest.mark.parametrize("query", ["compare gene expression between cell types in my h5ad file",
                                   "compare expression across clusters in my scRNA data"])
def test_comparing_expression_between_cell_groups_is_marker_detection(knowledge, query):
    spec = _spec(knowledge, query)
    assert "marker_gene_detection" in spec.required_operations and "compare" not in spec.unrecognized


@pytest.mark.parametrize("query", ["对ChIP-seq数据进行比对、去重复和call peak",
                                   "ChIP-seq: align, dedup and peak call with MACS2"])
def test_peak_call_in_the_singular_is_peak_calling(knowledge, query):
    assert "peak_calling" in _spec(knowledge, query).required_operations


def test_functional_annotation_of_a_metagenome_is_refused_by_name_wherever_it_is_said(knowledge):
    from bioplan.errors import UnsupportedAnalysisError

    with pytest.raises(UnsupportedAnalysisError) as info:
        _spec(knowledge, "宏基因组测序数据的物种注释和功能注释")
    assert "功能注释" in info.value.message


@pytest.mark.parametrize("query", ["convert SAM to sorted BAM and index", "turn the SAM files into indexed BAMs"])
def test_sam_to_bam_in_other_words(knowledge, query):
    spec = _spec(knowledge, query)
    assert spec.required_operations == ("alignment_format_conversion",) and not spec.unrecognized


@pytest.mark.parametrize("query", ["subsample 1 million reads from my FASTQ files",
                                   "downsample to 10 million read pairs per sample"])
def test_read_subsampling_with_a_count_is_refused_by_name(knowledge, query):
    from bioplan.errors import UnsupportedAnalysisError

    with pytest.raises(UnsupportedAnalysisError) as info:
        _spec(knowledge, query)
    assert "subsampling" in info.value.message


def test_tumour_normal_pairs_beside_another_analysis_are_its_data(knowledge):
    assert _spec(knowledge, "Call CNVs with CNVkit on tumor-normal pairs").required_operations == (
        "copy_number_calling",)
    assert "somatic_variant_calling" in _spec(knowledge, "somatic calling of my tumor/normal pairs").required_operations


def test_bams_in_the_plural_are_alignments(knowledge):
    spec = _spec(knowledge, "I have RNA-seq BAMs; quantify gene expression and run differential expression with DESeq2")
    assert "aligned_reads" in spec.input_types and "raw_reads" not in spec.input_types


@pytest.mark.parametrize(("query", "given", "absent"), [
    ("run PCA and hierarchical clustering on my normalized counts", "normalized_count_matrix", "count_normalization"),
    ("Trajectory analysis / pseudotime on my clustered cells", "clustered_single_cell_data", "cell_clustering"),
])
def test_a_steps_words_in_the_name_of_data_someone_holds_run_no_step(knowledge, query, given, absent):
    spec = _spec(knowledge, query)
    assert given in spec.input_types and absent not in spec.required_operations
    assert "count_normalization" in _spec(knowledge, "give me normalized counts").required_operations


@pytest.mark.parametrize(("query", "ops"), [
    ("I have a VCF; filter by QUAL and depth, then annotate with SnpEff", {"variant_filtering", "variant_annotation"}),
    ("compare two VCF files and find shared variants", {"call_set_comparison"}),
    ("annotate my VCF with gnomAD allele frequencies", {"variant_database_annotation"}),
])
def test_variant_requests_in_other_words(knowledge, query, ops):
    assert set(_spec(knowledge, query).required_operations) == ops


@pytest.mark.parametrize("query", [
    "Map reads with Salmon in selective alignment mode and import with tximport into DESeq2",
    "map the reads to the transcriptome with kallisto"])
def test_reads_mapped_with_a_pseudoaligner_need_no_genome_alignment(knowledge, query):
    ops = _spec(knowledge, query).required_operations
    assert "transcript_quantification" in ops and "read_alignment" not in ops
