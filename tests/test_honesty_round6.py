"""Honesty round 6: every setting inside a request bioplan can plan is honoured or said.

A threshold, a strandedness, a tool parameter, a ploidy, a compute or version setting is either set
on the planned tool that takes it (lexicon `settings[].sets`: the emitted config's params carry the
value and the report says "set from the request: ...") or stated as "not honoured: ..." with what
runs instead; never dropped silently. Designs bioplan cannot model (covariates, interactions, time
courses) are refused as an analysis. A peak caller's q-value is no DE significance filter.
"""

from __future__ import annotations

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.report import report, text_report
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _plan(query, knowledge):
    return plan_request(query, [], knowledge)


def _warnings(result, start):
    return [w for w in result.warnings if w.startswith(start)]


def _params(knowledge, result):
    return synthesize(knowledge, result.spec, result.plans[0]).params


# --------------------------------------------------------------------------- honoured, by family


@pytest.mark.parametrize(("query", "tool", "param", "value"), [
    # significance thresholds: every DE tool planned and the significance filter
    ("differential expression with DESeq2 at FDR 0.01", "deseq2", "alpha", 0.01),
    ("differential expression with DESeq2 at FDR 0.01", "de_filter", "alpha", 0.01),
    ("differential expression, keep genes with padj < 0.1", "de_filter", "alpha", 0.1),
    ("run edgeR and report genes with an adjusted p-value below 5%", "edger", "alpha", 0.05),
    # fold change: log2 unless the words say log
    ("differential expression, keep the significant genes with a fold change of at least 4", "de_filter",
     "lfc_threshold", 2.0),
    ("differential expression and keep the significant genes with log2FC > 1.5", "de_filter", "lfc_threshold", 1.5),
    # peaks
    ("call peaks with MACS2 at q-value 0.01", "macs2_callpeak", "qvalue", 0.01),
    # strandedness
    ("count reads per gene with featureCounts, reverse stranded", "featurecounts", "strandedness", 2),
    ("count reads per gene with featureCounts; the library is forward stranded", "featurecounts", "strandedness", 1),
    ("count reads per gene with featureCounts; the library is unstranded", "featurecounts", "strandedness", 0),
    ("count reads per gene with HTSeq, reverse stranded library", "htseq_count", "stranded", "reverse"),
    # single-cell parameters
    ("cluster cells with Leiden at resolution 0.8", "scanpy_leiden", "resolution", 0.8),
    ("single-cell clustering with 30 principal components", "scanpy_leiden", "n_comps", 30),
    ("cluster single cells, keep cells with at least 200 genes and less than 5% mitochondrial reads",
     "scanpy_qc", "min_genes", 200),
    ("cluster single cells, keep cells with at least 200 genes and less than 5% mitochondrial reads",
     "scanpy_qc", "max_pct_mt", 5),
    # variants
    ("filter variants with QUAL > 30 and depth at least 8", "bcftools_filter", "min_qual", 30),
    ("filter variants with QUAL > 30 and depth at least 8", "bcftools_filter", "min_depth", 8),
    ("call variants in a haploid bacterial genome with bcftools", "bcftools_call", "extra", "--ploidy 1"),
    ("call variants with FreeBayes in a tetraploid potato", "freebayes", "extra", "--ploidy 4"),
    ("call variants with GATK HaplotypeCaller in a hexaploid wheat", "gatk4_haplotypecaller", "extra",
     "--sample-ploidy 6"),
    # reads and quantification
    ("trim adapters with cutadapt, minimum length 25", "cutadapt", "minimum_length", 25),
    ("classify reads with Kraken2 with a confidence of 0.1", "kraken2", "confidence", 0.1),
    ("quantify transcripts with kallisto, fragment length 180 sd 25", "kallisto_quant", "fragment_length", 180),
    ("quantify transcripts with kallisto, fragment length 180 sd 25", "kallisto_quant", "fragment_sd", 25),
])
def test_a_setting_a_planned_tool_takes_reaches_its_config_params(knowledge, query, tool, param, value):
    result = _plan(query, knowledge)
    params = _params(knowledge, result)
    assert params[tool][param] == value
    assert type(params[tool][param]) is type(value)  # an int param stays an int in the config
    set_notes = _warnings(result, "set from the request: ")
    assert any(f"{param} {value}" in w for w in set_notes), result.warnings
    assert not _warnings(result, "not honoured: ")
    # the report carries the note
    assert set(set_notes) <= set(report(result)["warnings"])


def test_without_a_setting_the_defaults_stay(knowledge):
    result = _plan("differential expression with DESeq2 and keep the significant genes", knowledge)
    params = _params(knowledge, result)
    assert params["deseq2"]["alpha"] == knowledge.tools["deseq2"].params["alpha"]
    assert params["de_filter"]["lfc_threshold"] == knowledge.tools["de_filter"].params["lfc_threshold"]
    assert not _warnings(result, "set from the request: ") and not _warnings(result, "not honoured: ")


def test_a_fold_change_without_a_filter_step_is_set_on_the_test(knowledge):
    # round 7: DESeq2 tests against it (lfcThreshold); it was said as not honoured before
    result = _plan("differential expression with DESeq2 and a log2 fold change above 2", knowledge)
    params = _params(knowledge, result)
    assert "de_filter" not in params and params["deseq2"]["lfc_threshold"] == 2.0
    assert any("fold-change threshold" in w and "'log2 fold change above 2'" in w
               for w in _warnings(result, "set from the request: ")), result.warnings


def test_a_setting_no_planned_tool_takes_is_not_honoured_and_said(knowledge):
    # Salmon has no strandedness param (it infers the library type): said, with what runs instead
    result = _plan("quantify RNA-seq reads with Salmon, reverse stranded", knowledge)
    notes = _warnings(result, "not honoured: ")
    assert len(notes) == 1 and "'reverse stranded'" in notes[0] and "Salmon infers" in notes[0]
    assert "featurecounts" not in _params(knowledge, result)


@pytest.mark.parametrize("query", [
    "differential expression with DESeq2 at FDR 60%",  # beyond the bound (0.5)
    "differential expression with DESeq2 at FDR 0.9",
])
def test_a_value_out_of_range_is_not_honoured(knowledge, query):
    result = _plan(query, knowledge)
    assert _params(knowledge, result)["deseq2"]["alpha"] == 0.05
    assert any("significance threshold" in w for w in _warnings(result, "not honoured: ")), result.warnings


# --------------------------------------------------------------------------- stated, by family


@pytest.mark.parametrize(("query", "label", "words"), [
    ("align RNA-seq reads with STAR, the library is stranded", "strandedness", "stranded"),
    ("trim the reads to 50 bp and align them with STAR", "read-handling", "trim the reads to 50 bp"),
    ("deduplicate reads by UMI and count genes with featureCounts", "read-handling", "deduplicate reads by umi"),
    ("align with STAR and keep multimappers", "read-handling", "keep multimappers"),
    ("align RNA-seq reads to GRCh38 with GENCODE v44 and count genes", "release", "gencode v44"),
    ("align reads to the T2T genome and call variants", "release", "t2t"),
    ("call variants in a tetraploid potato", "ploidy", "tetraploid"),
    ("call variants with DeepVariant on GPU", "compute", "on gpu"),
    ("align reads with bwa mem using 16 threads", "compute", "16 threads"),
    ("align RNA-seq reads with STAR 2.7.11 and count genes", "version", "2.7.11"),
    ("differential expression with DESeq2 from Bioconductor 3.18", "version", "bioconductor 3.18"),
    ("run GSEA with 1000 permutations", "tool parameter", "1000 permutations"),
    ("run DESeq2 with lfcShrink apeglm", "tool parameter", "lfcshrink"),
    ("differential expression with DESeq2 using the likelihood ratio test", "tool parameter", "likelihood ratio test"),
    ("assemble the genome with SPAdes in careful mode", "tool parameter", "careful mode"),
    ("call peaks with MACS2 using a genome size of hs", "peak-calling mode", "genome size of hs"),
    ("trim adapters with fastp with a minimum quality of 30", "base-quality", "minimum quality of 30"),
    ("quantify transcripts with salmon using 100 bootstraps", "bootstraps", "100 bootstraps"),
])
def test_a_setting_bioplan_does_not_apply_is_said_not_dropped(knowledge, query, label, words):
    result = _plan(query, knowledge)
    notes = _warnings(result, "not honoured: ")
    assert any(label in n and f"'{words}'" in n for n in notes), result.warnings
    # the words are accounted for by the setting, not left "not understood"
    assert not set(words.split()) & set(result.spec.unrecognized)
    assert any(n in text_report(result) for n in notes)


def test_one_setting_is_said_once(knowledge):
    """'version 2.0.1' holds the pattern of '2.0.1': one setting, said once."""
    result = _plan("count reads with featureCounts version 2.0.1", knowledge)
    notes = _warnings(result, "not honoured: ")
    assert len(notes) == 1 and "'version 2.0.1'" in notes[0] and "'2.0.1'" not in notes[0]


def test_a_request_without_settings_has_none(knowledge):
    spec = build_spec(parse_request("count reads per gene with featureCounts", knowledge), InputProfile(), knowledge)
    assert not spec.settings and not any(w.startswith("not honoured") for w in spec.warnings)


# --------------------------------------------------------------------------- designs refused


@pytest.mark.parametrize(("query", "words"), [
    ("differential expression with batch as a covariate", "batch as a covariate"),
    ("differential expression with sex as a covariate in the model", "sex as a covariate"),
    ("differential expression with an interaction genotype:treatment", "interaction genotype"),
    ("differential expression across a time course", "across a time course"),
    ("time course differential expression of the treated samples", "time course differential expression"),
])
def test_designs_beyond_one_condition_column_are_refused(knowledge, query, words):
    with pytest.raises(UnsupportedAnalysisError) as err:
        build_spec(parse_request(query, knowledge), InputProfile(), knowledge)
    assert "paired_design" in err.value.details["analyses"]
    assert any(words in t for t in err.value.details["analyses"]["paired_design"])


def test_a_peak_callers_q_value_is_no_de_filter(knowledge):
    result = _plan("call peaks with MACS2 at q-value 0.01", knowledge)
    assert [s.operation for s in result.plans[0].steps] == ["peak_calling"]
    assert _params(knowledge, result)["macs2_callpeak"]["qvalue"] == 0.01


# --------------------------------------------------------------------------- normalisation, output and report formats


@pytest.mark.parametrize(("query", "said"), [
    ("normalise the counts to CPM", "edgeR TMM log-CPM does it"),
    ("differential expression with edgeR using TMM normalisation", "edgeR (quasi-likelihood) does it"),
    ("variance stabilising transformation (VST) of the counts", "DESeq2 VST does it"),
])
def test_a_normalisation_method_the_planned_tool_does_is_said_as_done(knowledge, query, said):
    result = _plan(query, knowledge)
    assert any(said in w for w in _warnings(result, "set from the request: ")), result.warnings
    assert not _warnings(result, "not honoured: ")


@pytest.mark.parametrize(("query", "value"), [
    ("CPM normalized bigwig tracks from the ChIP-seq reads", "CPM"),
    ("make RPKM normalised bigWig tracks from the ATAC-seq reads", "RPKM"),
])
def test_a_coverage_normalisation_reaches_bamcoverage(knowledge, query, value):
    result = _plan(query, knowledge)
    assert _params(knowledge, result)["bamcoverage"]["normalize_using"] == value


@pytest.mark.parametrize(("query", "words"), [
    ("quantify RNA-seq with salmon and output TPM", "tpm"),
    ("normalise the counts with TMM and then VST", "tmm"),
    ("normalise the counts as FPKM", "fpkm"),
])
def test_a_normalisation_method_the_plan_does_not_run_is_said(knowledge, query, words):
    result = _plan(query, knowledge)
    assert any("normalisation method" in w and f"'{words}'" in w for w in _warnings(result, "not honoured: ")), \
        result.warnings


@pytest.mark.parametrize(("query", "said"), [
    ("differential expression with DESeq2 and export the results as Excel", "'xlsx'"),
    ("differential expression with DESeq2 and an HTML report", "'an html report'"),
    ("call broad peaks with MACS2", "'call broad peaks'"),
])
def test_output_and_report_formats_no_tool_writes_are_said(knowledge, query, said):
    result = _plan(query, knowledge)
    assert any(said in w for w in _warnings(result, "not honoured: ")), result.warnings


def test_an_output_format_a_conversion_writes_is_not_flagged(knowledge):
    result = _plan("differential expression with DESeq2 and export the results as CSV", knowledge)
    assert "table_to_csv" in [s.tool for s in result.plans[0].steps]
    assert not _warnings(result, "not honoured: ")


def test_multiqcs_html_report_is_a_report(knowledge):
    result = _plan("run FastQC and MultiQC for an HTML report", knowledge)
    assert not any("report format" in w for w in _warnings(result, "not honoured: "))


# --------------------------------------------------------------------------- Chinese phrasings


@pytest.mark.parametrize(("query", "tool", "param", "value"), [
    ("用DESeq2做差异表达分析，校正后p值小于0.01", "deseq2", "alpha", 0.01),
    ("用DESeq2做差异表达分析，FDR 0.01", "deseq2", "alpha", 0.01),
    ("用featureCounts定量，文库是反向链特异性的", "featurecounts", "strandedness", 2),
    ("用featureCounts计数，非链特异性文库", "featurecounts", "strandedness", 0),
    ("用Leiden聚类，分辨率0.8", "scanpy_leiden", "resolution", 0.8),
    ("单细胞聚类，30个主成分", "scanpy_leiden", "n_comps", 30),
])
def test_chinese_settings_are_honoured(knowledge, query, tool, param, value):
    result = _plan(query, knowledge)
    assert _params(knowledge, result)[tool][param] == value
    assert _warnings(result, "set from the request: ")


@pytest.mark.parametrize(("query", "words"), [
    ("用featureCounts计数，链特异性文库", "链特异性"),
    ("用bwa mem比对，16线程", "16线程"),
])
def test_chinese_settings_not_applied_are_said(knowledge, query, words):
    result = _plan(query, knowledge)
    assert any(f"'{words}'" in w for w in _warnings(result, "not honoured: ")), result.warnings


# --------------------------------------------------------------------------- contrasts and tests


@pytest.mark.parametrize(("query", "words", "reference"), [
    ("differential expression, contrast KO vs WT", "ko vs wt", "wt"),
    ("differential expression of treated vs control samples", "treated vs control", "control"),
    ("differential expression with edgeR, tumor versus normal", "tumor versus normal", "normal"),
    ("differential expression, contrast WT vs KO", "wt vs ko", "wt"),
])
def test_a_contrast_is_set_on_the_de_tools(knowledge, query, words, reference):
    # round 7 (tests/test_honesty_round7.py): the levels are set, the control-like one as the reference
    result = _plan(query, knowledge)
    assert any(f"'{words}'" in w and f"reference_level {reference}" in w
               for w in _warnings(result, "set from the request: ")), result.warnings


def test_a_contrast_outside_de_is_no_de_setting(knowledge):
    result = _plan("call CNVs with CNVkit, tumour vs normal", knowledge)
    assert not any("contrast" in w for w in result.warnings)


@pytest.mark.parametrize(("query", "value"), [
    ("find marker genes with the Wilcoxon test", "wilcoxon"),
    ("find marker genes of the clusters with a t-test", "t-test"),
    ("find marker genes of the clusters by logistic regression", "logreg"),
])
def test_a_marker_test_reaches_scanpy(knowledge, query, value):
    result = _plan(query, knowledge)
    assert _params(knowledge, result)["scanpy_rank_genes_groups"]["method"] == value
    assert not set(result.spec.unrecognized) & {"wilcoxon", "test", "logistic", "regression"}


def test_the_wald_test_is_deseq2s(knowledge):
    result = _plan("differential expression with DESeq2 using the Wald test", knowledge)
    assert any("DESeq2 does it" in w for w in _warnings(result, "set from the request: "))
