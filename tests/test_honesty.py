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
    ("quantify transcripts with kallisto", "kallisto", "transcript quantification", "Salmon"),
    ("call variants with GATK HaplotypeCaller", "GATK HaplotypeCaller", "variant calling", "bcftools"),
    ("count reads per gene with htseq-count", "htseq-count", "read counting", "featureCounts"),
    ("trim the adapters with Trim Galore", "Trim Galore", "read trimming", "fastp"),
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
    result = plan_request("quantify transcripts with kallisto", [], knowledge, substitute=True)
    spec = result.spec
    assert "transcript_quantification" in spec.required_operations
    assert any("kallisto" in d and "--substitute" in d for d in spec.deviations)
    assert report(result)["task_spec"]["deviations"] == list(spec.deviations)
    assert "kallisto" in text_report(result)
    workflow = synthesize(knowledge, spec, result.plans[0])
    assert workflow.deviations == spec.deviations
    assert {s.tool for s in result.plans[0].steps} >= {"salmon_quant"}


def test_a_tool_offered_as_an_alternative_to_ours_is_not_refused(knowledge):
    spec = _spec("Pseudoalignment and quantification (Salmon or 'Kallisto'; optional)", knowledge)
    assert "salmon_quant" in spec.preferred_tools
    assert any("alternative" in d for d in spec.deviations)


def test_a_tool_the_request_excludes_is_not_refused(knowledge):
    spec = _spec("quantify transcripts, not with kallisto", knowledge)
    assert "transcript_quantification" in spec.required_operations


def test_a_successor_tool_runs_with_a_note(knowledge):
    spec = _spec("call peaks with MACS2 on ChIP-seq alignments", knowledge)
    assert "macs3_callpeak" in spec.preferred_tools
    assert any("MACS2" in d and "MACS3" in d for d in spec.deviations)


# --------------------------------------------------------------------------- nothing dropped silently


@pytest.mark.parametrize(("query", "family"), [
    ("Predict fusion genes using STAR-Fusion", "fusion"),
    ("call peaks, then discover motifs within the peaks", "motif"),
    ("Assemble contigs, predict genes, classify taxonomy, detect AMR genes", "assembly"),
    ("somatic variant calling on tumour-normal pairs", "somatic"),
    ("extract methylation calls from bisulfite reads", "methylation"),
    ("denoise 16S amplicon reads into ASVs", "amplicon"),
    ("run Cell Ranger on the 10x FASTQ files", "single-cell"),
    ("label-free quantification of the proteomics mass spectrometry runs", "proteomics"),
])
def test_an_analysis_bioplan_does_not_do_is_refused_with_what_it_can_do(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in err.value.message.lower()
    assert err.value.hints and "bioplan" in err.value.hints[0]


def test_allow_partial_plans_the_rest_and_says_what_was_left_out(knowledge):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec("call peaks on the ChIP-seq BAMs, then discover motifs within the peaks", knowledge)
    assert any("--allow-partial" in h for h in err.value.hints)
    spec = _spec("call peaks on the ChIP-seq BAMs, then discover motifs within the peaks", knowledge,
                 allow_partial=True)
    assert "peak_calling" in spec.required_operations
    assert any(d.startswith("not done: motif discovery") for d in spec.deviations)


def test_an_instruction_nothing_understood_is_refused_listing_its_words(knowledge):
    with pytest.raises(PartiallyUnderstoodError) as err:
        _spec("differential expression, then frobnicate the widgets", knowledge)
    assert "frobnicate" in err.value.message and "widgets" in err.value.message
    spec = _spec("differential expression, then frobnicate the widgets", knowledge, allow_partial=True)
    assert any("frobnicate" in d for d in spec.deviations)


def test_a_description_without_instruction_is_not_refused(knowledge):
    spec = _spec("differential expression of my lymphoblastoid samples", knowledge)
    assert "differential_expression" in spec.required_operations
    assert "lymphoblastoid" in spec.unrecognized


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
    result = plan_request("differential expression of my lymphoblastoid samples",
                          [], knowledge)
    assert "not understood: lymphoblastoid" in text_report(result)
    assert report(result)["task_spec"]["unrecognized"] == ["lymphoblastoid"]


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
