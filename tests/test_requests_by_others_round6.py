"""Families of requests written by others, round 6 (compiler/bioplan/evaluate/from_others.yaml, r6.*):
goal-only and German DE questions, tumour-normal and somatic wording, MAGs, single-cell overviews,
Portuguese/Spanish headings, analyses refused by name (read subsampling, pseudogenomes, long-read
structural variants, metatranscriptome assembly, RNA variant calling), tools refused by name, and what
a request starts from when it skips the first steps or names its reads only by their layout.
"""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError, UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize(("query", "operation"), [
    ("Which genes are expressed differently between my two conditions?", "differential_expression"),
    ("Ziel ist es, eine Liste differentiell exprimierter Gene zu erzeug, oft begleitet von Maßen wie "
     "log2-Fold-Change und einem adjustierten p-Wert.", "differential_expression"),
    ("Call and filter variants", "variant_calling"),
    ("use the sorted BAM files we generated earlier to generate a list of SNPs", "variant_calling"),
    ("Scenario: Paired tumor–normal workflow using WES data", "somatic_variant_calling"),
    ("a protocol for identifying somatic SNPs and small Indels from tumor samples and matching normal samples",
     "somatic_variant_calling"),
    ("Assemble genomes from my metagenome", "contig_binning"),
    ("The single-cell analysis clusters transcriptionally similar cells", "cell_clustering"),
    ("Manual Prático – Teórico: Sequenciamento, Montagem e Anotação de Genomas Bacterianos", "genome_annotation"),
    ("A de novo bacterial genome assembler coupled with gene annotation", "genome_annotation"),
    ("a pipeline that checks for the presence of a specific taxon in (meta)genomic fastq files",
     "taxonomic_classification"),
    ("DNA methylation in the CG, CHG, and CHH contexts was calculated by dividing the total number of aligned "
     "methylated reads by the total number of methylated plus un-methylated reads.", "methylation_calling"),
])
def test_round6_phrasings_reach_the_operation_they_mean(knowledge, query, operation):
    assert operation in _spec(query, knowledge).required_operations


def test_somatic_wording_is_never_planned_as_germline_calling(knowledge):
    """Before, 'identifying somatic SNPs ... of tumor samples and matching normal samples' ran bcftools alone."""
    query = ("This chapter contains a step-by-step protocol for identifying somatic SNPs and small Indels from "
             "next-generation sequencing data of tumor samples and matching normal samples.")
    assert "somatic_variant_calling" in _spec(query, knowledge).required_operations


@pytest.mark.parametrize(("query", "family"), [
    ("The rasusa software is used to subsample reads to a depth cutoff of a default of 100", "read_subsampling"),
    ("Optional: Normalize the sequencing depth with BBnorm", "read_subsampling"),
    ("mapping short reads to a reference, creating filtered VCF files, making pseudogenomes based on high "
     "quality positions in the VCF files", "pseudogenome"),
    ("variant calling and filtering to produce a ready to use vcf and multiple sequence alignment files",
     "pseudogenome"),
    ("Find structural variants in my long reads", "long_read_structural_variants"),
    ("a pipeline for assembly and annotation of metatranscriptomic data", "metatranscriptome_assembly"),
    ("an NGS analysis pipeline for RNA expression quantification and germline variant calling (GATK4)",
     "rna_variant_calling"),
    ("nf-core/ontvar is a comprehensive structural variant calling, filtering, annotation and consensus set "
     "generation pipeline for ONT's long read sequencing data.", "long_read_structural_variants"),
    ("nf-core/variantbenchmarking is designed to evaluate and validate the accuracy of variant calling methods",
     "caller_benchmarking"),
    ("Generate CCS consensuses from raw isoseq subreads (PBCCS)", "iso_seq"),
])
def test_round6_analyses_bioplan_does_not_do_are_refused(knowledge, query, family):
    with pytest.raises(UnsupportedAnalysisError) as err:
        _spec(query, knowledge)
    assert family in str(err.value.details)


@pytest.mark.parametrize(("query", "tool"), [
    ("PCR duplicate detection (Sambamba MarkDup)", "Sambamba"),
    ("effect predictions from dbNSFP using VCFtools, SnpEff, and SnpSift", "VCFtools"),
    ("Montando o genoma com o Mira", "MIRA"),
    ("Long-Read SV Calling with Sniffles2, SVIM, and PBSV", "pbsv"),
])
def test_round6_tools_are_refused_by_name(knowledge, query, tool):
    with pytest.raises(BioplanError) as err:
        _spec(query, knowledge)
    assert err.value.code == "unknown_tool"
    assert tool in err.value.message


def test_a_layout_named_with_its_reads_makes_the_reads_the_input(knowledge):
    """'It's design for paired end reads': before, the input stayed the aligned reads and no alignment ran."""
    query = "A pipeline for variant calling by comparing against a reference genome. It's design for paired end reads."
    spec = _spec(query, knowledge)
    assert "raw_reads" in spec.input_types and "aligned_reads" not in spec.input_types
    assert "variant_calling" in spec.required_operations


def test_data_inside_a_negated_clause_is_no_input(knowledge):
    """'略去测序数据预处理、mapping reads等步骤, 直接从peak-calling开始': the skipped steps' data is not the
    start; the peaks are called from alignments (before: unsatisfiable from the reads)."""
    query = ("本文将以MACS为例,介绍ChIP-seq数据的处理流程。为节省篇幅,本文略去测序数据预处理、mapping reads等步骤,"
             "直接从peak-calling开始讲起。")
    assert parse_request(query, knowledge).datatypes == ()
    spec = _spec(query, knowledge)
    assert "raw_reads" not in spec.input_types
    ops = [s.operation for s in plan_request(query, [], knowledge).plans[0].steps]
    assert "peak_calling" in ops and "read_alignment" not in ops


def test_foregoing_a_step_excludes_it(knowledge):
    query = ("Map each read pair to the optimal location on the reference assembly with `bwa mem` and save in "
             "`.bam` format. We are foregoing PCR-duplicates marking and removal")
    spec = _spec(query, knowledge)
    assert "duplicate_marking" in spec.excluded_operations and "read_alignment" in spec.required_operations


def test_a_datatype_named_outside_the_negation_stays_an_input(knowledge):
    """Negation is clause-bound: the reads named after the comma are still the data."""
    spec = _spec("skip the trimming, align the reads to the reference genome", knowledge)
    assert "raw_reads" in spec.input_types


def test_bowtie2_named_as_the_engine_of_bismark_is_bismark(knowledge):
    """Before, 'Bowtie2' was a second alignment step, which bisulfite data refuses (constraint_violation)."""
    query = ("Bisulfite analysis was performed using Bismark-bowtie 2. We used the default Bowtie2 implementation of "
             "Bismark with the specifications that only uniquely mapped reads should be aligned.")
    spec = _spec(query, knowledge)
    assert "bismark_align" in spec.preferred_tools and "bowtie2" not in spec.preferred_tools
    assert "read_alignment" not in spec.required_operations


def test_a_pipeline_named_by_its_name_binds_its_own_caller(knowledge):
    """'GATK Best Practices for germline short variant discovery' ran BQSR, then bcftools: the motif's caller is
    HaplotypeCaller (motif `tools`)."""
    spec = _spec("The FastaNGS pipeline includes workflow of GATK Best Practices for germline short variant discovery",
                 knowledge)
    assert "gatk4_haplotypecaller" in spec.preferred_tools and "variant_calling" in spec.required_operations


def test_a_named_tool_wins_over_the_pipelines_tool(knowledge):
    spec = _spec("GATK best practices, but call the variants with FreeBayes", knowledge)
    assert "freebayes" in spec.preferred_tools and "gatk4_haplotypecaller" not in spec.preferred_tools


def test_a_motif_tool_must_implement_its_operation(knowledge):
    from bioplan.knowledge.checks import check_motifs

    motif = knowledge.motifs["motif.gatk_germline_short_variants"]
    bad = motif.model_copy(update={"tools": {"variant_calling": "bcftools_filter", "peak_calling": "macs2_callpeak"}})
    problems = check_motifs(knowledge.model_copy(update={"motifs": {**knowledge.motifs, motif.id: bad}}), {})
    assert any("bcftools_filter" in p for p in problems) and any("peak_calling" in p for p in problems)
