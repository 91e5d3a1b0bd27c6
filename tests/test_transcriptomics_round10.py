"""Requests written by others, round 10 (transcriptomics): the families their failures showed.

- A compared level of several words ("treated with drug vs untreated control") is matched to the sample
  sheet's condition column by any run of its clause's words, the caught word's runs first; without a sheet,
  the words naming a level the lexicon knows ("treated" in "treated with drug") are the level.
- Upper-quartile normalisation is edgeR's calcNormFactors(method = "upperquartile"): set on edgeR, edgeR's
  log-CPM and limma-voom (their `norm_method` param), which run the step for it; DESeq2 beside it is said
  not to honour it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import UnknownToolError
from bioplan.request.parse import parse_request


def _plan(query, knowledge, inputs=()):
    return plan_request(query, list(inputs), knowledge)


def _params(knowledge, result):
    return synthesize(knowledge, result.spec, result.plans[0]).params


def _tools(result):
    return {s.operation: s.tool for s in result.plans[0].steps}


def _study(tmp_path: Path, levels: tuple[str, str]) -> list[str]:
    """A mouse count matrix (Ensembl ids, integer counts) and its sample sheet, three samples per level."""
    samples = [f"s{k}" for k in range(6)]
    rows = ["gene_id," + ",".join(samples)]
    rows += [f"ENSMUSG{g:011d}," + ",".join(str(10 + (g * (k + 1)) % 41) for k in range(6)) for g in range(1, 31)]
    counts = tmp_path / "counts.csv"
    counts.write_text("\n".join(rows) + "\n")
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{levels[k // 3]}\n" for k, s in enumerate(samples)))
    return [str(counts), str(sheet)]


# --------------------------------------------------------------------------- levels of several words


@pytest.mark.parametrize(("levels", "query", "test", "reference"), [
    (("control", "treated"), "differential expression of cells treated with drug vs untreated control", "treated",
     "control"),
    (("untreated_control", "drug_treated"), "differential expression, drug treated vs untreated control",
     "drug_treated", "untreated_control"),
    (("vehicle", "dex"), "DESeq2 differential expression: dex treated cells versus vehicle treated cells", "dex",
     "vehicle"),
])
def test_levels_of_several_words_are_the_sample_sheets(knowledge, tmp_path, levels, query, test, reference):
    result = _plan(query, knowledge, _study(tmp_path, levels))
    params = _params(knowledge, result)[_tools(result)["differential_expression"]]
    assert (params["test_level"], params["reference_level"]) == (test, reference), result.warnings
    assert not any("compared levels" in w for w in result.warnings if w.startswith("not honoured"))


def test_without_a_sheet_the_known_level_word_is_the_level(knowledge):
    result = _plan("differential expression with DESeq2 of cells treated with drug vs untreated control", knowledge)
    params = _params(knowledge, result)["deseq2"]
    assert (params["test_level"], params["reference_level"]) == ("treated", "untreated")


def test_one_sheet_level_named_on_both_sides_is_said(knowledge, tmp_path):
    result = _plan("differential expression of treated cells vs treated cells", knowledge,
                   _study(tmp_path, ("control", "treated")))
    params = _params(knowledge, result)[_tools(result)["differential_expression"]]
    assert params["test_level"] is None and params["reference_level"] is None  # the run-time default
    notes = [w for w in result.warnings if w.startswith("not honoured") and "compared levels" in w]
    assert len(notes) == 1 and "both sides name the level 'treated'" in notes[0], result.warnings


# --------------------------------------------------------------------------- upper-quartile normalisation


@pytest.mark.parametrize(("query", "step", "tool"), [
    ("upper quartile normalization of the counts", "count_normalization", "edger_cpm"),
    ("normalise the counts with calcNormFactors(method = \"upperquartile\") and test for differential expression",
     "count_normalization", "edger_cpm"),
    ("differential expression with limma-voom after upper-quartile normalisation", "differential_expression",
     "limma_voom"),
])
def test_upper_quartile_is_set_on_edgers_factors(knowledge, tmp_path, query, step, tool):
    result = _plan(query, knowledge, _study(tmp_path, ("control", "treated")))
    assert _tools(result)[step] == tool
    assert _params(knowledge, result)[tool]["norm_method"] == "upperquartile"
    assert any("upper quartile" in w and "norm_method upperquartile" in w
               for w in result.warnings if w.startswith("set from the request"))


def test_upper_quartile_beside_deseq2_is_said_not_honoured(knowledge, tmp_path):
    result = _plan("upper quartile normalisation, then differential expression with DESeq2", knowledge,
                   _study(tmp_path, ("control", "treated")))
    assert _tools(result)["differential_expression"] == "deseq2"
    assert any(w.startswith("not honoured by DESeq2") and "upper quartile" in w for w in result.warnings)


def test_edgers_default_factors_stay_tmm(knowledge, tmp_path):
    result = _plan("differential expression with edgeR", knowledge, _study(tmp_path, ("control", "treated")))
    assert _params(knowledge, result)["edger"]["norm_method"] == "TMM"


# --------------------------------------------------------------------------- words read as something else


def _ops(result):
    return {s.operation for s in result.plans[0].steps}


def test_a_tissue_named_like_a_tool_is_no_tool(knowledge):
    """"airway smooth muscle (ASM) cells" names no MUSCLE aligner; "aligned with MUSCLE" still does."""
    absent = parse_request("gene expression in human airway smooth muscle (ASM) cells", knowledge).absent
    assert not [a for a in absent if a.kind == "tool" and a.id == "muscle"]
    absent = parse_request("the sequences were aligned with MUSCLE", knowledge).absent
    assert [a for a in absent if a.kind == "tool" and a.id == "muscle"]


def test_the_pronoun_its_is_no_its_amplicon(knowledge):
    request = parse_request("which genes does it switch on or off, and what are its effects on expression", knowledge)
    assert "amplicon_sequencing" not in request.constraints
    assert "amplicon_sequencing" in parse_request("ITS amplicon reads of soil fungi", knowledge).constraints


def test_a_share_of_reads_mapping_is_a_measure_not_an_alignment(knowledge):
    result = _plan("After merging all samples, we filtered out cells that express <1000 genes. Furthermore, we "
                   "exclude cells with more than 10% of reads mapping to the mitochondrial genome.", knowledge)
    assert "sc_quality_filtering" in _ops(result) and "read_alignment" not in _ops(result)


@pytest.mark.parametrize("query", [
    "Cells with fewer than 500 detected genes and greater than 10% mitochondrial gene expression were removed.",
    "Filter: min_genes=200, min_cells=3, upper n_genes_by_counts <2500.",
])
def test_the_cells_thresholds_say_cell_qc(knowledge, query):
    assert "sc_quality_filtering" in _ops(_plan(query, knowledge))


def test_a_tool_named_for_its_narrower_step_is_that_steps(knowledge):
    """"Alignment-QC (RSeQC, Preseq)": RSeQC does RNA-seq alignment QC (its read distribution), not refused."""
    result = _plan("Alignment-QC (RSeQC, Preseq)", knowledge)
    assert _tools(result).get("rnaseq_alignment_qc") == "rseqc_readdistribution"
    assert _tools(result)["library_complexity_estimation"] == "preseq_lcextrap"


def test_the_tuxedo_suite_is_refused_by_name(knowledge):
    with pytest.raises(UnknownToolError, match="Tuxedo"):
        _plan("The Tuxedo Suite Tools were used to align reads to the hg19 reference genome, assemble transcripts, "
              "and perform differential expression analysis", knowledge)


@pytest.mark.parametrize(("query", "op"), [
    ("When bcbio runs salmon, currently only isoform-level quantifications are output. It would be nice if "
     "gene-level quantifications were also part of the output", "quantification_aggregation"),
    ("the expression level of each gene is estimated by counting the number of reads that align to each exon",
     "read_counting"),
    ("QC of aligned reads - Alignment Rate - Duplication Rate - Genomic location of reads - Transcript coverage",
     "rnaseq_alignment_qc"),
])
def test_rnaseq_steps_said_in_other_words(knowledge, query, op):
    assert op in _ops(_plan(query, knowledge))


@pytest.mark.parametrize("query", [
    "DESeq2 normalization, then edgeR differential expression",
    "normalise with DESeq2's median of ratios, then differential expression with edgeR",
])
def test_a_package_named_in_its_own_clause_does_that_clauses_step(knowledge, query):
    """DESeq2 named for the normalisation is DESeq2's VST there; the test is the edgeR named for it."""
    tools = _tools(_plan(query, knowledge))
    assert tools["differential_expression"] == "edger" and tools["count_normalization"] == "deseq2_vst"
