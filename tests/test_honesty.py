"""Issue 12: say what was understood, and never deliver a different pipeline without saying so.

Named tools bioplan lacks are refused by name (unknown_tool) or substituted by opt-in with a
note; analysis families it does not do are refused (unsupported_analysis); instructions it did
not understand are refused (partially_understood) or left out by opt-in with a warning; every
word of the request is accounted for; ambiguous words never trigger what they do not mean.
"""

from __future__ import annotations

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import (
    ERROR_CODES,
    PartiallyUnderstoodError,
    UnknownToolError,
    UnsupportedAnalysisError,
)
from bioplan.models import InputProfile
from bioplan.report import report, text_report
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge, **kw):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge, **kw)


def test_the_new_codes_are_public():
    assert {"unknown_tool", "unsupported_analysis", "partially_understood"} <= set(ERROR_CODES)


# --------------------------------------------------------------------------- named tools


@pytest.mark.parametrize(("query", "tool", "operation_words", "ours"), [
    ("quantify transcripts with Sailfish", "Sailfish", "transcript quantification", "Salmon"),
    ("call variants with Platypus", "Platypus", "variant calling", "bcftools"),
    ("trim the adapters with Trimmomatic", "Trimmomatic", "read trimming", "fastp"),
    ("run Cell Ranger on the 10x FASTQ files", "Cell Ranger", "single-cell fastq to count matrix", "kb-python"),
])
def test_a_named_tool_bioplan_lacks_is_refused_by_name(knowledge, query, tool, operation_words, ours):
    with pytest.raises(UnknownToolError) as err:
        _spec(query, knowledge)
    exc = err.value
    assert exc.code == "unknown_tool"
    assert tool in exc.message and operation_words in exc.message.lower() and ours in exc.message
    assert any("--substitute" in h for h in exc.hints)
    assert any("ontology/tools/" in h and "check-knowledge" in h for h in exc.hints)


def test_substitute_plans_our_tool_and_says_so_everywhere(knowledge):
    result = plan_request("quantify transcripts with Sailfish", [], knowledge, substitute=True)
    spec = result.spec
    assert "transcript_quantification" in spec.required_operations
    assert any("Sailfish" in d and "--substitute" in d for d in spec.deviations)
    assert report(result)["task_spec"]["deviations"] == list(spec.deviations)
    assert "Sailfish" in text_report(result)
    workflow = synthesize(knowledge, spec, result.plans[0])
    assert workflow.deviations == spec.deviations
    assert {s.tool for s in result.plans[0].steps} >= {"salmon_quant"}


def test_a_tool_offered_as_an_alternative_to_ours_is_not_refused(knowledge):
    spec = _spec("Pseudoalignment and quantification (Salmon or 'Sailfish'; optional)", knowledge)
    assert "salmon_quant" in spec.preferred_tools
    assert any("alternative" in d for d in spec.deviations)


def test_a_tool_the_request_excludes_is_not_refused(knowledge):
    spec = _spec("quantify transcripts, not with Sailfish", knowledge)
    assert "transcript_quantification" in spec.required_operations


def test_a_successor_tool_runs_with_a_note(knowledge):
    spec = _spec("mark duplicates with GATK MarkDuplicates on the alignments", knowledge)
    assert "picard_markduplicates" in spec.preferred_tools
    assert any("GATK MarkDuplicates" in d and "Picard" in d for d in spec.deviations)


def test_macs2_named_runs_macs2_and_macs_alone_the_current_macs3(knowledge):
    """MACS2 is a tool of its own (nf-core/chipseq's peak caller), not MACS3 under another name;
    "MACS", the name both share, and an unnamed peak caller mean the maintained MACS3."""
    named = _spec("call peaks with MACS2 on ChIP-seq alignments", knowledge)
    assert named.preferred_tools == ("macs2_callpeak",) and not named.deviations
    assert _spec("call peaks with MACS on ChIP-seq alignments", knowledge).preferred_tools == ("macs3_callpeak",)
    assert _spec("call peaks on ChIP-seq alignments", knowledge).preferred_tools == ()


# --------------------------------------------------------------------------- nothing dropped silently


@pytest.mark.parametrize(("query", "family"), [
    ("find differential splicing events between the groups with rMATS", "splicing"),
    ("call peaks, then normalise the signal to the E. coli spike-in", "spike-in"),
    ("Assemble contigs, bin them into MAGs, then classify the bins taxonomically", "contigs or bins"),
    ("long-read assembly of the nanopore reads, then predict genes", "long-read assembly"),
    ("Taxonomic classification of the assembled contigs", "contigs"),
    ("variant calling on the RNA-seq alignments with SplitNCigarReads", "rna-seq"),
    ("fit the COSMIC mutational signatures of the tumour's somatic variants", "mutational signatures"),
    ("cluster the 16S amplicon reads into 97% OTUs", "otu"),
    ("label-free quantification of the proteomics mass spectrometry runs", "proteomics"),
])
def test_an_analysis_bioplan_does_not_do_is_refused_with_what_it_can_do(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in err.value.message.lower()
    assert err.value.hints and "bioplan" in err.value.hints[0]


def test_allow_partial_plans_the_rest_and_says_what_was_left_out(knowledge):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec("call peaks on the ChIP-seq BAMs, then normalise them to the spike-in", knowledge)
    assert any("--allow-partial" in h for h in err.value.hints)
    spec = _spec("call peaks on the ChIP-seq BAMs, then normalise them to the spike-in", knowledge,
                 allow_partial=True)
    assert "peak_calling" in spec.required_operations
    assert any(d.startswith("not done: CUT&RUN") for d in spec.deviations), spec.deviations


def test_an_instruction_nothing_understood_is_refused_listing_its_words(knowledge):
    with pytest.raises(PartiallyUnderstoodError) as err:
        _spec("differential expression, then frobnicate the widgets", knowledge)
    assert "frobnicate" in err.value.message and "widgets" in err.value.message
    spec = _spec("differential expression, then frobnicate the widgets", knowledge, allow_partial=True)
    assert any("frobnicate" in d for d in spec.deviations)


def test_a_description_without_instruction_is_not_refused(knowledge):
    # (not 'lymphoblastoid': cell kinds are sample words now)
    spec = _spec("differential expression of my quokka samples", knowledge)
    assert "differential_expression" in spec.required_operations
    assert "quokka" in spec.unrecognized


# --------------------------------------------------------------------------- every word accounted for


def test_every_word_gets_a_role_and_unrecognised_words_are_listed(knowledge):
    request = parse_request("Please align the mouse reads to GRCm39 with STAR, treated vs control, "
                            "then zorblify them with layout.txt", knowledge)
    roles = {sp.text: sp.role for sp in request.spans}
    assert roles["align"] == "operation" and roles["star"] == "tool"
    assert roles["mouse"] == "organism" and roles["grcm39"] == "build"
    assert roles["please"] == "filler" and roles["the"] == "filler"
    assert roles["layout.txt"] == "file_name"
    assert request.unrecognized == ("zorblify",)
    covered = sorted((sp.start, sp.end) for sp in request.spans)
    words = [w for w in request.normalized.replace(",", " ").split() if w.isalnum()]
    assert all(any(s <= request.normalized.find(w) < e for s, e in covered) for w in words)


def test_plan_prints_the_unrecognised_words(knowledge):
    result = plan_request("differential expression of my quokka samples",
                          [], knowledge)
    assert "not understood: quokka" in text_report(result)
    assert report(result)["task_spec"]["unrecognized"] == ["quokka"]


# --------------------------------------------------------------------------- precision


@pytest.mark.parametrize(("query", "never"), [
    ("align the SINGLE-END reads to the genome", {"cell_type_annotation", "cell_clustering", "marker_gene_detection"}),
    ("all cells descend from a single lineage; align the reads", {"cell_type_annotation"}),
    ("a single-engine run: align the reads to the genome", {"cell_type_annotation"}),
    ("make a QC report for my fastq files", {"taxonomic_classification"}),
    ("call peaks and write one report per sample", {"taxonomic_classification"}),
])
def test_ambiguous_words_do_not_trigger_what_they_do_not_mean(knowledge, query, never):
    request = parse_request(query, knowledge)
    assert not never & set(request.operations), [m for m in request.matches if m.id in never]
    assert not any(m.how == "fuzzy" and len(m.text) < 7 for m in request.matches)


def test_typos_of_long_words_are_still_corrected(knowledge):
    request = parse_request("differntial expresion of the counts", knowledge)
    assert "differential_expression" in request.operations
    assert [m.how for m in request.matches if m.id == "differential_expression"] == ["fuzzy"]


# --------------------------------------------------------------------------- typos inside intent phrases


@pytest.mark.parametrize(("query", "wanted"), [
    ("anotate the varaints in this vcf", {"variant_annotation"}),
    ("clustr the cells and find marekr genes", {"cell_clustering", "marker_gene_detection"}),
])
def test_a_typo_inside_an_intent_phrase_is_corrected(knowledge, query, wanted):
    request = parse_request(query, knowledge)
    assert wanted <= set(request.operations)
    assert all(m.how == "fuzzy" for m in request.matches if m.id in wanted)


@pytest.mark.parametrize("query", [
    "the varaints of this vcf",          # a corrected word that completes no phrase is not corrected
    "these samples differ in content",   # "content" is a word, not a typo of "context"
    "the clusters were anotated by hand",
])
def test_a_typo_correction_that_completes_no_phrase_is_not_made(knowledge, query):
    request = parse_request(query, knowledge)
    assert not any(m.how == "fuzzy" for m in request.matches), request.matches


# --------------------------------------------------------------------------- context chooses readings


def _declared(tmp_path, knowledge, name, datatype, text="x\n"):
    from bioplan.compile import sniff_with_declarations

    path = tmp_path / name
    path.write_text(text)
    return sniff_with_declarations(knowledge, [str(path)], {str(path): datatype})


@pytest.mark.parametrize("query", [
    "use scanpy to find the differentially expressed genes",
    "find the differentially expressed genes",
    "filter out cells with high mitochondrial content",
])
def test_an_h5ad_input_makes_the_words_single_cell(knowledge, tmp_path, query):
    profile = _declared(tmp_path, knowledge, "cells.h5ad", "single_cell_matrix")
    spec = build_spec(parse_request(query, knowledge), profile, knowledge)
    assert "differential_expression" not in spec.required_operations
    assert set(spec.required_operations) & {"marker_gene_detection", "sc_quality_filtering"}


def test_scanpy_named_without_inputs_is_single_cell_de(knowledge):
    spec = _spec("use scanpy to find the differentially expressed genes", knowledge)
    assert spec.required_operations == ("marker_gene_detection",)
    assert spec.preferred_tools == ("scanpy_rank_genes_groups",)


def test_de_words_without_single_cell_context_stay_bulk(knowledge, tmp_path):
    profile = _declared(tmp_path, knowledge, "counts.csv", "raw_count_matrix")
    spec = build_spec(parse_request("find the differentially expressed genes", knowledge), profile, knowledge)
    assert "differential_expression" in spec.required_operations
    assert "marker_gene_detection" not in spec.required_operations


@pytest.mark.parametrize(("query", "kept", "described"), [
    ("ChIP-seq of H3K27ac in three cell types: call peaks", "peak_calling", "cell_type_annotation"),
    ("bulk RNA-seq counts from sorted cell populations: differential expression", "differential_expression",
     "cell_clustering"),
])
def test_words_describing_the_samples_are_not_steps(knowledge, query, kept, described):
    spec = _spec(query, knowledge)
    assert kept in spec.required_operations and described not in spec.required_operations
    assert any("read as describing the data" in w for w in spec.warnings)


def test_an_instruction_the_assay_excludes_is_still_refused(knowledge):
    from bioplan.errors import ConstraintViolationError

    with pytest.raises(ConstraintViolationError):
        plan_request("ChIP-seq: annotate the cell types", [], knowledge)


def test_a_gene_list_described_as_marker_genes_is_not_marker_detection(knowledge, tmp_path):
    profile = _declared(tmp_path, knowledge, "nk.txt", "gene_symbol_list", "GNLY\nNKG7\nKLRD1\n")
    spec = build_spec(parse_request("这是NK细胞的标记基因，请做GO富集分析", knowledge), profile, knowledge)
    assert spec.required_operations == ("go_enrichment",)


@pytest.mark.parametrize("query", [
    "I have quant.sf files from salmon: run DESeq2",
    "salmon output for 6 samples: differential expression",
    "samples were quantified with Salmon; aggregate to genes with tximport",
    "use the kallisto results to run differential expression",
])
def test_a_tool_named_for_its_output_is_an_input_not_a_step(knowledge, query):
    spec = _spec(query, knowledge)
    assert "transcript_quantification" not in spec.required_operations
    assert "transcript_quantification" in spec.input_types and "raw_reads" not in spec.input_types


@pytest.mark.parametrize("query", ["quantify with salmon", "pseudo-align the reads with salmon and run DESeq2"])
def test_a_tool_named_to_run_still_runs(knowledge, query):
    spec = _spec(query, knowledge)
    assert "transcript_quantification" in spec.required_operations and "salmon_quant" in spec.preferred_tools


# --------------------------------------------------------------------------- named tools and packages


@pytest.mark.parametrize(("query", "operation", "tool"), [
    ("Remove duplicate reads (SAMtools)", "duplicate_marking", "samtools_markdup"),
    ("Alignment statistics (SAMtools)", "alignment_qc", "samtools_stats"),
    ("Create STAR index", "genome_indexing", "star_genome_generate"),
    ("align the reads with STAR", "read_alignment", "star"),
])
def test_a_package_name_binds_its_tool_for_the_operation(knowledge, query, operation, tool):
    plan = plan_request(query, [], knowledge).plans[0]
    assert {s.operation: s.tool for s in plan.steps}[operation] == tool


def test_a_generic_format_word_names_no_tool(knowledge):
    spec = _spec("annotate the variants in this VCF", knowledge)
    assert spec.preferred_tools == ()


def test_a_known_tool_named_for_a_step_it_does_not_do_is_refused(knowledge):
    with pytest.raises(UnknownToolError) as err:
        _spec("Removal of host reads (Kraken 2)", knowledge)
    assert "host read removal" in err.value.message and "taxonomic classification" in err.value.message
    spec = _spec("Removal of host reads (Kraken 2)", knowledge, substitute=True)
    assert spec.required_operations == ("host_read_removal",) and "kraken2" not in spec.preferred_tools
    assert any("--substitute" in d for d in spec.deviations)


@pytest.mark.parametrize("query", ["Taxonomic classification (Kraken 2)",
                                   "remove host reads, then classify the reads with Kraken2"])
def test_a_known_tool_in_its_own_role_is_honoured(knowledge, query):
    assert "kraken2" in _spec(query, knowledge).preferred_tools


# --------------------------------------------------------------------------- phrasings


@pytest.mark.parametrize(("query", "wanted"), [
    ("functional enrichment of the differentially expressed genes", "go_enrichment"),
    ("What are the biological functions impacted by the differential expression of genes?", "go_enrichment"),
    ("comparing groups of observations to generate differential statistics", "differential_expression"),
    ("taxonomic profiling of shotgun metagenomes with Kraken2 into standardised output tables",
     "abundance_table_merge"),
])
def test_phrasings_written_by_others(knowledge, query, wanted):
    assert wanted in parse_request(query, knowledge).operations


@pytest.mark.parametrize(("query", "never"), [
    ("nf-core/differentialabundance: comparing groups of samples", {"differential_abundance"}),
    ("differential statistics of taxa abundance between groups", {"differential_expression"}),
    ("functional enrichment of the markers of each cluster", {"go_enrichment"}),
])
def test_phrasings_do_not_fire_out_of_context(knowledge, query, never):
    assert not never & set(parse_request(query, knowledge).operations)


def test_a_pipeline_summary_producing_an_expression_matrix_aligns_splice_aware_and_counts(knowledge):
    query = ("analyse RNA sequencing data. It takes a samplesheet with FASTQ files as input, performs quality "
             "control (QC), trimming and alignment, and produces a gene expression matrix")
    result = plan_request(query, [], knowledge)
    assert result.spec.target_output.semantic_type == "raw_count_matrix"
    tools = {s.operation: s.tool for s in result.plans[0].steps}
    assert tools["read_alignment"] in ("star", "hisat2") and "read_counting" in tools and "read_qc" in tools
