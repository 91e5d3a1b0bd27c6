"""Round 13 of requests written by others (nf-core pipelines not covered before, methods sections, GitHub/WDL/CWL
pipeline READMEs, core facilities, es/ja/pt/ru/zh pages; compiler/bioplan/evaluate/from_others.yaml, ids r13.*):
the families their failures stood for, in other words.
"""

from __future__ import annotations

import pytest

from bioplan.errors import UnknownToolError
from bioplan.models import InputProfile, SniffedFile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge, files=()):
    return build_spec(parse_request(query, knowledge), InputProfile(files=tuple(files)), knowledge)


def _analyses(query, knowledge):
    return {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}


@pytest.mark.parametrize(("query", "family"), [
    ("nfcore/mnaseseq is a pipeline for DNA sequencing data obtained via micrococcal nuclease digestion.",
     "nucleosome_positioning"),
    ("Call nucleosome positions and generate smoothed coverage wig files (DANPOS2)", "nucleosome_positioning"),
    ("map the nucleosome occupancy of the MNase-seq samples", "nucleosome_positioning"),
    ("analysis of SAMMY-seq data, a methodology to analyze chromatin state", "chromatin_fractionation"),
    ("nf-core/phaseimpute is a bioinformatics pipeline to phase and impute genetic data.", "phasing_imputation"),
    ("Low-pass data generation by downsampling BAM or CRAM files with samtools view -s at different depths.",
     "read_subsampling"),
    ("downsample the alignments to 10x", "read_subsampling"),
])
def test_analyses_bioplan_does_not_do_are_named(knowledge, query, family):
    assert family in _analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "ATAC-seq - check the fragment size distribution for the nucleosome pattern",
    "plot the nucleosome-free and mono-nucleosome fragments of the ATAC-seq reads",
    "call peaks on the DNase-seq reads",
    "align the reads and mark duplicates in the BAM files",
])
def test_what_those_families_do_not_take(knowledge, query):
    assert not _analyses(query, knowledge) & {"nucleosome_positioning", "chromatin_fractionation", "read_subsampling"}


@pytest.mark.parametrize(("query", "operations"), [
    ("It consists of trimming, aligning, marking of duplicates, recalibration of base quality scores and finally, "
     "calling of variants.", {"base_recalibration"}),
    ("This WDL pipeline implements data pre-processing and initial variant calling according to the GATK Best "
     "Practices", {"read_alignment", "duplicate_marking", "base_recalibration"}),
    ("initial variant calling (GVCF generation)", {"gvcf_calling"}),
    ("Each sample is processed independently and a g.vcf file is produced for each of them.", {"gvcf_calling"}),
    ("Prokaryotes: De Novo Genome Assembly and Annotation", {"genome_assembly", "genome_annotation"}),
    ("bacterial genome assembly and annotation", {"genome_annotation"}),
    ("Annotation: The assembled genome is a set of nucleotides. Genes must now be assigned.", {"genome_annotation"}),
    ("データ解析：参照ゲノムへのアライメント・SNP/InDelの検出・統計とアノテーション", {"variant_annotation"}),
    ("変異のコールとアノテーションを行う", {"variant_annotation"}),
])
def test_the_words_others_use_reach_the_step(knowledge, query, operations):
    assert operations <= set(parse_request(query, knowledge).operations)


@pytest.mark.parametrize(("query", "operation"), [
    ("de novo transcriptome assembly and annotation with Trinity", "genome_annotation"),
    ("call variants and annotate them; the assembled genome is the reference", "genome_annotation"),
    ("ピークの検出とアノテーション", "variant_annotation"),
    ("data pre-processing of the count matrix, then DESeq2", "base_recalibration"),
])
def test_what_those_words_do_not_name(knowledge, query, operation):
    assert operation not in parse_request(query, knowledge).operations


@pytest.mark.parametrize("query", [
    "1. Perform trimming of the raw reads. 2. Map the trimmed reads to a reference genome. 3. Convert SAM to BAM "
    "format. 4. Sort BAM file by coordinates. 5. Perform variant calling with bcftools.",
    "align the reads with BWA, convert the SAM to BAM and call variants",
])
def test_sam_to_bam_after_the_requests_own_alignment_is_that_steps_output(knowledge, query):
    """The aligner's step writes a sorted, indexed BAM: a listed SAM to BAM conversion is no step of its own
    (it made the plan unsatisfiable: nothing writes SAM), and the warning says so."""
    spec = _spec(query, knowledge)
    assert "alignment_format_conversion" not in spec.required_operations
    assert {"read_alignment", "variant_calling"} <= set(spec.required_operations)
    assert any("SAM to BAM conversion is no separate step" in w for w in spec.warnings)


def test_a_given_sam_is_still_converted(knowledge):
    sam = SniffedFile(path="sample.sam", datatype="aligned_reads", format="sam")
    assert "alignment_format_conversion" in _spec("convert SAM to BAM", knowledge, [sam]).required_operations


@pytest.mark.parametrize(("query", "name"), [
    ("We present a pipeline that integrates FastP for read trimming, HmmUFOtu for operational taxonomic units "
     "(OTU) clustering, Vsearch for chimera checking, and Kraken2 for taxonomic assignment.", "HmmUFOtu"),
    ("we used DeepMAsED for assembly quality assessment of the contigs", "DeepMAsED"),
    ("TopFooX2 for read alignment, then featureCounts", "TopFooX2"),
])
def test_a_name_before_for_a_step_is_refused_by_name(knowledge, query, name):
    with pytest.raises(UnknownToolError) as err:
        _spec(query, knowledge)
    assert name in str(err.value)


@pytest.mark.parametrize("query", [
    "trim the reads for alignment with Bowtie2",
    "the GRCh38 genome for read alignment",
    "run FastQC for quality control of the reads",
    "Samples for RNA-seq alignment were sequenced on a NovaSeq",
])
def test_known_names_and_plain_words_before_for_a_step_are_no_unknown_tool(knowledge, query):
    _spec(query, knowledge)


@pytest.mark.parametrize("query", [
    "2. Adapter trimming ([`Trim Galore!`](https://www.bioinformatics.babraham.ac.uk/projects/trim_galore/))",
    "Alignment ([`BWA`](https://github.com/lh3/bwa))",
])
def test_a_links_address_repeating_its_tool_is_no_unread_word(knowledge, query):
    assert not parse_request(query, knowledge).unrecognized


def test_a_tool_named_only_in_an_address_is_still_said(knowledge):
    assert "star" in parse_request("trim with fastp (see https://github.com/alexdobin/STAR)", knowledge).unrecognized


@pytest.mark.parametrize(("query", "tool"), [
    ("Reads can be searched against multiple databases with kmcp search", "metaphlan"),
    ("profile the metagenomes with sylph", "metaphlan"),
])
def test_tools_bioplan_lacks_are_named(knowledge, query, tool):
    assert tool in {a.id for a in parse_request(query, knowledge).absent if a.kind == "tool"}


@pytest.mark.parametrize(("query", "operation"), [
    ("This takes a gene/region model and a BAM file and calculates how many reads show support of each gene.",
     "read_counting"),
    ("count how many reads fall in each gene", "read_counting"),
    ("해당 유전자의 read가 몇 개나 mapping이 되느냐를 바탕으로 발현량을 추정한다", "read_counting"),
    ("find abnormal methylation regions between pathological samples and normal samples", "differential_methylation"),
    ("aberrant DNA methylation sites in tumours versus matched normals", "differential_methylation"),
])
def test_the_words_of_the_third_batch_reach_the_step(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


@pytest.mark.parametrize(("query", "operation"), [
    ("how many reads were sequenced per sample?", "read_counting"),
    ("abnormal methylation regions of the tumour", "differential_methylation"),
])
def test_what_the_third_batch_words_do_not_name(knowledge, query, operation):
    assert operation not in parse_request(query, knowledge).operations


def test_a_japanese_conversion_to_sorted_bam_after_mapping_is_the_alignments_output(knowledge):
    """'hisat2でmapping, samtoolsでソートBAMファイルに変換': samtools converts the aligner's SAM, no step of its own
    (it was bound to the alignment step and refused as 'miRNA counts for bisulfite read alignment')."""
    spec = _spec("trimgaloreでトリミング&QCし、その後hisat2でmapping, samtoolsでソートBAMファイルに変換、"
                 "そしてfeatureCountsでカウントしました。", knowledge)
    assert "alignment_format_conversion" not in spec.required_operations
    assert {"read_trimming", "read_alignment", "read_counting"} <= set(spec.required_operations)


@pytest.mark.parametrize(("query", "operation"), [
    ("Sequences were clustered into OTUs at 97%. The most abundant sequences were selected as representative of each "
     "cluster", "otu_clustering"),
    ("cluster the 16S reads into OTUs; the centroid sequences are picked as representatives for each OTU",
     "otu_clustering"),
    ("the OTU representatives were assigned to a taxonomy level using the Greengenes Database",
     "asv_taxonomy_assignment"),
    ("16S amplicons: the ASVs were assigned to taxonomic ranks with SILVA", "asv_taxonomy_assignment"),
])
def test_the_words_of_the_fourth_batch_reach_the_step(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_a_taxonomy_level_named_alone_is_no_assignment(knowledge):
    assert "asv_taxonomy_assignment" not in parse_request(
        "16S amplicons: summarise the ASV table at each taxonomy level", knowledge).operations
