"""How requests written by others phrase a step (nf-core READMEs, GTN tutorial goals): the words
that name an operation without its label, the words that only present a pipeline, and the
readings that must hold for every request of such a family, not one case."""

from __future__ import annotations

import pytest

from bioplan.errors import NoOperationRecognizedError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(knowledge, query):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize(
    "query, operation",
    [
        # GTN reference-based RNA-seq
        ("Estimate the number of reads per genes", "read_counting"),
        ("count the number of reads mapped to each gene", "read_counting"),
        ("Evaluate the quality of mapping results", "alignment_qc"),
        ("check the quality of the alignments", "alignment_qc"),
        # GTN ATAC-seq
        ("Visualise coverage and peaks of specific regions", "coverage_computation"),
        ("Which DNA regions are accessible in GM12878?", "peak_calling"),
        ("Which DNA regions are accesible in GM12878?", "peak_calling"),  # the tutorial's own typo
        ("find the open chromatin regions", "peak_calling"),
        # nf-core/scrnaseq
        ("a pipeline for processing 10x Genomics single-cell RNA-seq data", "single_cell_quantification"),
        # taxonomic profiling
        ("profile the gut microbiome with Kraken2", "taxonomic_classification"),
        ("metagenomic profiling of stool samples", "taxonomic_classification"),
        # UMIs
        ("RNA-seq with UMIs", "umi_deduplication"),
    ],
)
def test_phrasings_by_others_name_the_operation(knowledge, query, operation):
    request = parse_request(query, knowledge)
    assert operation in request.operations, request.matches
    assert request.unrecognized == (), request.unrecognized


@pytest.mark.parametrize(
    "query",
    [
        "nf-core/scrnaseq is a bioinformatics best-practice analysis pipeline for processing 10x Genomics "
        "single-cell RNA-seq data.",
        "a community-curated bioinformatics pipeline following best practices for bulk RNA-seq differential expression",
    ],
)
def test_how_pipelines_present_themselves_is_not_content(knowledge, query):
    """'nf-core', 'bioinformatics', 'best practice' describe the pipeline; they never stay unrecognised."""
    assert parse_request(query, knowledge).unrecognized == ()


def test_profile_is_accounted_beside_the_tool_that_names_the_operation(knowledge):
    """Kraken2 already names taxonomic classification; the phrase still says what 'profile' means."""
    request = parse_request("profile the gut microbiome with Kraken2", knowledge)
    profile = [sp for sp in request.spans if sp.start == 0]
    assert profile and profile[0].role == "operation", request.spans


@pytest.mark.parametrize("query", ["functional profiling of the gut microbiome",
                                   "16S amplicon sequencing: profile the gut microbiome with DADA2"])
def test_profiling_words_are_not_read_classification_out_of_place(knowledge, query):
    """Functional profiles are another analysis, and amplicon studies assign ASV taxonomy instead."""
    assert "taxonomic_classification" not in parse_request(query, knowledge).operations


def test_umis_are_extracted_aligned_and_deduplicated(knowledge):
    """One phrase naming several steps means them all: 'RNA-seq with UMIs' keeps the alignment between
    extraction and deduplication (a bulk RNA-seq assay does not make them readings of one another)."""
    spec = _spec(knowledge, "RNA-seq with UMIs")
    assert {"umi_extraction", "read_alignment", "umi_deduplication"} <= set(spec.required_operations)


@pytest.mark.parametrize("query", ["single-cell RNA-seq with UMIs: cluster the cells",
                                   "extract the UMIs from the reads"])
def test_umis_in_single_cell_or_beside_a_umi_step_add_nothing(knowledge, query):
    """In droplet single-cell data the UMIs are counted by the quantifier; a UMI step named by its own
    words is the only one wanted."""
    ops = set(parse_request(query, knowledge).operations)
    assert "umi_deduplication" not in ops


def test_mapping_results_are_the_alignments(knowledge):
    """'mapping results' names the aligned reads to start from, not an alignment to run."""
    spec = _spec(knowledge, "Evaluate the quality of mapping results")
    assert "read_alignment" not in spec.required_operations
    assert "aligned_reads" in spec.input_types


def test_a_bare_word_of_no_context_is_not_an_error_of_parsing(knowledge):
    with pytest.raises(NoOperationRecognizedError):
        _spec(knowledge, "bioinformatics best practice")


def test_a_tool_offered_after_another_for_the_same_step_is_no_preference(knowledge):
    """nf-core/ampliseq: 'Taxonomical classification using DADA2; alternatives are SINTAX, Kraken2, and
    QIIME2'. DADA2 runs; Kraken2 (which bioplan has) and SINTAX, QIIME 2 (which it lacks) are said to
    have been offered; Kraken2's name neither anchors its read classification nor makes the context
    shotgun metagenomics, so 'taxonomical classification' is the ASV assignment."""
    query = "Taxonomical classification using DADA2; alternatives are SINTAX, Kraken2, and QIIME2"
    request = parse_request(query, knowledge)
    kraken = next(m for m in request.matches if m.kind == "tool" and m.id == "kraken2")
    assert kraken.offered_beside == "dada2_assigntaxonomy"
    assert "kraken2" not in request.preferred_tools
    assert request.unrecognized == ()
    spec = _spec(knowledge, query)
    assert "asv_taxonomy_assignment" in spec.required_operations
    assert "taxonomic_classification" not in spec.required_operations
    assert any("'kraken2' (Kraken2) was offered as an alternative" in d for d in spec.deviations)
    assert any("'sintax'" in d for d in spec.deviations)


@pytest.mark.parametrize("query, first, offered", [
    ("quantify transcripts with Salmon or kallisto", "salmon_quant", "kallisto_quant"),
    ("align the reads with STAR; alternatively HISAT2", "star", "hisat2"),
])
def test_the_tool_named_first_runs(knowledge, query, first, offered):
    spec = _spec(knowledge, query)
    assert first in spec.preferred_tools and offered not in spec.preferred_tools, spec.preferred_tools
    assert any("was offered as an alternative" in d for d in spec.deviations)


def test_tools_for_different_steps_are_no_alternatives(knowledge):
    """'or' between tools of different steps offers nothing: both are wanted."""
    request = parse_request("trim with fastp or cutadapt, then align with STAR", knowledge)
    assert "star" in request.preferred_tools


def test_a_typo_reads_every_kind_the_alias_names(knowledge):
    """'Taxonomical classification' is the operation (as 'taxonomic classification' is exactly), not
    only the datatype of the same words."""
    request = parse_request("Taxonomical classification of the reads", knowledge)
    assert {"taxonomic_classification", "asv_taxonomy_assignment"} & set(request.operations)


def test_words_a_phrase_explains_are_not_typo_corrected(knowledge):
    """'count' in 'count metrics (BCFTools)' is the phrase's (bcftools stats), not a count matrix."""
    request = parse_request("Count metrics (BCFTools)", knowledge)
    assert "variant_statistics" in request.operations
    assert "raw_count_matrix" not in request.datatypes


@pytest.mark.parametrize("query", ["Differential accessibility analysis, PCA and clustering (R, DESeq2)",
                                   "bulk RNA-seq counts: PCA and clustering of the samples"])
def test_clustering_of_bulk_samples_is_never_cell_clustering(knowledge, query):
    """Single-cell clustering is never chosen for bulk data: 'clustering of the samples' is the samples'
    hierarchical clustering; a bare 'clustering' beside bulk words is said not understood (parse alone
    does not know the inputs; the spec reads it with them)."""
    request = parse_request(query, knowledge)
    assert "cell_clustering" not in request.operations
    if "of the samples" in query:
        assert "sample_clustering" in request.operations and "clustering" not in request.unrecognized
    else:
        assert "clustering" in request.unrecognized


@pytest.mark.parametrize("query", ["single-cell RNA-seq: normalisation, clustering and UMAP",
                                   "clustering of the cells in my h5ad"])
def test_clustering_in_a_single_cell_context_is_cell_clustering(knowledge, query):
    assert "cell_clustering" in parse_request(query, knowledge).operations


def test_heatmaps_of_no_subject_are_asked_about_not_guessed(knowledge):
    """GTN ATAC-seq's goal 'Generate heatmaps' says neither expression nor signal: bioplan asks."""
    with pytest.raises(NoOperationRecognizedError) as err:
        _spec(knowledge, "Generate heatmaps")
    assert "heatmaps" in err.value.message


@pytest.mark.parametrize("query, operation", [
    ("DE, then a heatmap of the significant genes", "heatmap_plotting"),
    ("heatmap of the top differentially expressed genes", "heatmap_plotting"),
    ("画显著差异基因的热图", "heatmap_plotting"),
    ("ATAC-seq: generate heatmaps", "signal_profile_plotting"),
    ("ChIP-seq bigWigs: plot heatmaps around the TSS", "signal_profile_plotting"),
])
def test_heatmaps_of_a_subject_are_that_subjects(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_pheatmap_is_a_tool_bioplan_lacks_not_a_heatmap_word(knowledge):
    request = parse_request("DE, then a heatmap of the significant genes with pheatmap", knowledge)
    assert any(a.kind == "tool" and a.id == "pheatmap" for a in request.absent)


@pytest.mark.parametrize("query", ["quantify with salmon", "quantify the samples with salmon",
                                   "map the reads with STAR", "profile the samples using Kraken2"])
def test_a_verb_asking_for_what_the_named_tool_does_is_accounted_for(knowledge, query):
    """'<verb> ... with <tool>': the verb is the instruction to run the tool when the tool's operation
    is what the verb says (quantify -> quantification, map -> mapping, profile -> profiling)."""
    assert parse_request(query, knowledge).unrecognized == ()


@pytest.mark.parametrize("query", ["annotate with salmon", "classify with featureCounts",
                                   "predict structures with alphafold"])
def test_a_verb_the_named_tool_does_not_do_stays_not_understood(knowledge, query):
    """Honesty: a verb naming something else than the tool's operation is not explained away by it."""
    request = parse_request(query, knowledge)
    assert query.split()[0] in request.unrecognized
