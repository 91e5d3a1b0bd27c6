"""Requests written by others, round 10 (genomics, variants, epigenomics): the families their failures
stood for. CUT&RUN / CUT&Tag named with the steps bioplan does for them is ChIP-seq-like binding data, named
alone (the whole assay, spike-in normalisation included) it is refused; population statistics and ancestry
are refused by analysis; a result named alone starts from its single assay's reads; tools offered as choices
in Chinese are alternatives; genotype QC and association words of GWAS methods; somatic genotyping.
"""
from __future__ import annotations

import pytest

from bioplan.errors import UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize("query", [
    "How To Analyze CUT&RUN/Tag Data For Absolute Beginners: From FASTQ to Peaks",
    "Briefly, for CUT&RUN and CUT&Tag: Align raw reads to a reference genome using Bowtie2",
    "call peaks on the CUT&Tag alignments with MACS2",
])
def test_cut_and_run_with_its_steps_is_binding_data(knowledge, query):
    spec = _spec(query, knowledge)
    assert spec.constraints.get("assay") == "chip_seq", spec.constraints
    assert not any(d.startswith("not done") for d in spec.deviations)


@pytest.mark.parametrize(("query", "family"), [
    ("Analyze CUT&RUN or CUT&Tag chromatin profiling data", "spike_in_normalisation"),
    ("Alignment to both target and spike-in genomes (Bowtie 2)", "spike_in_normalisation"),
    ("We estimated genetic differentiation by calculating pairwise Fst among populations",
     "population_differentiation"),
    ("identify potential migrants and admixed individuals", "ancestry_inference"),
    ("Should we do the usual adapter removal before using PEHaplo?", "viral_haplotypes"),
    ("reconstruct the viral quasispecies of each sample", "viral_haplotypes"),
])
def test_what_bioplan_does_not_do_is_refused_by_analysis(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in err.value.details["analyses"]


@pytest.mark.parametrize("query", [
    "Burada, tüm genom dizileme verilerinde kısa germline varyantları, yani SNP'ler ve indelleri çağırmak için",
    "SNPs and indels",
])
def test_a_result_named_alone_starts_from_the_reads_of_its_assay(knowledge, query):
    spec = _spec(query, knowledge)
    assert spec.target_output.semantic_type == "variant_calls"
    assert spec.input_types == ("raw_reads",)
    assert any(w.startswith("no input files were given") for w in spec.warnings)


def test_tools_offered_as_choices_in_chinese_are_alternatives(knowledge):
    spec = _spec("給每個 variant 標上「它影響什麼基因、後果有多嚴重、人群中多常見」——VEP、ANNOVAR、SnpEff 三大選擇。",
                 knowledge)
    assert "variant_annotation" in spec.required_operations
    assert any("offered as an alternative" in d and "ANNOVAR" in d for d in spec.deviations), spec.deviations


@pytest.mark.parametrize(("query", "operation"), [
    ("Remove individuals and genetic markers with high rates of missing data.", "genotype_qc"),
    ("We use logistic regression and likelihood ratio tests for case-control studies, using samples filtered by "
     "quality criteria and retaining unrelated subjects.", "association_test"),
    ("Calls somatic short mutations from tumor sequencing data using the GATK Mutect2 Bayesian somatic genotyping "
     "engine.", "somatic_variant_calling"),
    ("the nf-core chipseq pipeline uses DESeq2 to compare peaks between different conditions", "differential_binding"),
    ("Call peaks and generate normalized chromatin-accessibility tracks.", "coverage_computation"),
    ("A common use case is to sequence your isolate of interest, and see how it differs to the type strain in "
     "Genbank.", "variant_calling"),
])
def test_the_words_of_others_methods_name_the_step(knowledge, query, operation):
    spec = _spec(query, knowledge)
    assert operation in spec.required_operations, spec.required_operations
    assert "marker_gene_detection" not in spec.required_operations
    assert operation == "variant_calling" or "variant_calling" not in spec.required_operations


def test_functional_annotation_of_peaks_is_peak_annotation_not_refused(knowledge):
    spec = _spec("Peak calling (MACS2) - Functional annotation and enrichment analysis (HOMER)", knowledge)
    assert "peak_annotation" in spec.required_operations or "functional annotation" not in " ".join(spec.deviations)
