"""A tool the request names that the knowledge does not know is refused by name (unknown_tool), never
planned silently with bioplan's own tools (`request/passes/unknown_names.py`); names that are no tools
(genes, samples, kits, sequencers, accession ids, capitalised words starting a sentence) are never
reported."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.errors import UnknownToolError
from bioplan.models import Fact, InputProfile, SniffedFile
from bioplan.request.parse import parse_request
from bioplan.request.passes.unknown_names import input_names, unknown_names
from bioplan.request.spec import build_spec
from conftest import examples


def _names(query, knowledge, files=()):
    return [(n.text, n.kind) for n in unknown_names(parse_request(query, knowledge), input_names(tuple(files)))
            if not n.beside]


@pytest.mark.parametrize(("query", "name"), [
    ("Differential binding analysis using DiffChIPL", "DiffChIPL"),
    ("DiffChIPL: a differential peak analysis method for ChIP-seq data with replicates", "DiffChIPL"),
    ("Call methylation with BS-SNPer on the bisulfite reads", "BS-SNPer"),
    ("Haplotype clustering with HapKlustr", "HapKlustr"),
    ("Align the reads with hisat3n, then count with featureCounts", "hisat3n"),
    ("map reads via hisat3n", "hisat3n"),
    ("Run QuickPeak2 on the ChIP-seq BAM files", "QuickPeak2"),
    ("call peaks using the PeakHunter package", "PeakHunter"),
    ("quantify expression using the MyQuant2 tool", "MyQuant2"),
    ("call variants with VarScan3", "VarScan3"),
    ("Quality control of the reads (FastQScreenX)", "FastQScreenX"),
    ("Peak calling (PeakSeekr)", "PeakSeekr"),
    ("cluster the cells with scFooBar", "scFooBar"),
    ("用DiffChIPL做差异结合分析", "DiffChIPL"),
    ("Analyse différentielle avec DiffChIPL", "DiffChIPL"),
    ("align the reads and call variants using DeepVarX", "DeepVarX"),
    # a tool's page: the name as its sentence's subject (WEHI's exactSNP, PatternCNV's description)
    ("The input to exactSNP includes a SAM/BAM file and a FASTA file. exactSNP outputs a VCF file.", "exactSNP"),
    ("PatternCNV is a versatile tool to facilitate CNV detection from Exome-seq samples.", "PatternCNV"),
    ("peakFinderX reports the peaks of each sample", "peakFinderX"),
])
def test_a_tool_like_name_is_reported(knowledge, query, name):
    assert (name, "tool") in _names(query, knowledge)


@pytest.mark.parametrize("query", [
    "Differential expression of TP53 knockout versus wild-type cells",
    "differential expression, then plot the expression of SOX2, NANOG and POU5F1",
    "cluster the cells and find markers such as CD3E and MS4A1",
    "DE analysis of Trp53 mutant mice against controls",
    "Align the TruSeq Stranded mRNA libraries with STAR",
    "Trim the Nextera adapters with cutadapt",
    "call variants from the NovaSeq 6000 reads with bcftools",
    "Basecalled MinION reads: assemble the genome",
    "10x Chromium v3 data: cluster the cells",
    "Download SRR1234567 and GSE12345 and quantify with salmon",
    "Align to GRCh38 with STAR, reads R1 and R2 of 150bp at 30x",
    "Quality control. Trimming with fastp. Alignment with STAR.",
    "Analysis of mRNA and lncRNA differential expression with DESeq2",
    "Count UMIs and SNPs; call eQTLs with the counts",
    "cells treated with DMSO versus LPS: differential expression",
    "Map reads with BWA (Burrows-Wheeler Aligner) and call variants",
    "p-values adjusted using Benjamini-Hochberg after differential expression with DESeq2",
    "align with STAR or hisat3n, then count",
    "Create bigWig coverage files (BEDTools, bedGraphToBigWig)",
    "differential binding (DB) analysis with csaw",
    "Annotate the variants with SnpEff and the FooVarDB database",
    "Deploy the workflow on GitHub with Snakemake",
    "my BAM files which were already deduplicated with MarkDupX2; call SNPs with FreeBayes",
    "Quantify with salmon. Compare KOx3 and WTx3 with DESeq2",
    "ChIP-seq of the cells with H3K27ac and anti-CTCF: call peaks with MACS2",
    "differential expression using HepG2 cells treated with Abc123 against controls with DESeq2",
    "cluster the cells starting from the CellRangerX output with Scanpy",
    "call variants in the HG002 reads with DeepVariant",
    "This is a versatile tool to call lncRNA and circRNA peaks; it reports the peaks as BED files",
    "The scRNA data is a useful resource; nascentRNA levels are measured too",
])
def test_no_tool_is_reported(knowledge, query):
    assert [name for name, kind in _names(query, knowledge) if kind == "tool"] == []


def test_an_unknown_database_is_said_as_a_database(knowledge):
    found = unknown_names(parse_request("annotate the variants with SnpEff and the FooVarDB database", knowledge))
    assert [(n.text, n.kind) for n in found] == [("FooVarDB", "database")]


def test_an_offered_or_companion_name_is_said_not_refused(knowledge):
    offered = unknown_names(parse_request("align with STAR or hisat3n, then count", knowledge))
    assert [(n.text, n.beside) for n in offered] == [("hisat3n", "offered")]
    beside = unknown_names(parse_request("Create bigWig coverage files (BEDTools, bedGraphToBigWig)", knowledge))
    assert [(n.text, n.beside) for n in beside] == [("bedGraphToBigWig", "BEDTools")]


def test_sample_and_condition_names_of_the_inputs_are_no_tools(knowledge):
    sheet = SniffedFile(path="/data/sheet.csv", datatype="sample_sheet", format="csv",
                        facts=(Fact(name="samples", value={"KO1": "KOx3", "WT1": "WTx3"}, evidence="sheet"),))
    reads = SniffedFile(path="/data/HeLa2_R1.fastq.gz", datatype="raw_reads", format="fastq", sample="HeLa2")
    for query, name in (("Quantify the reads using HeLa2, then differential expression with DESeq2", "HeLa2"),
                        ("Differential expression with DESeq2 using KOx3 and WTx3", "KOx3")):
        assert _names(query, knowledge, [sheet, reads]) == []
        assert (name, "tool") in _names(query, knowledge)  # the same words without those inputs


def test_an_unknown_tool_is_refused_by_name_and_substituted_by_opt_in(knowledge):
    request = parse_request("Differential binding analysis of the peaks using DiffChIPL", knowledge)
    with pytest.raises(UnknownToolError) as err:
        build_spec(request, InputProfile(), knowledge)
    assert err.value.code == "unknown_tool"
    assert "DiffChIPL" in str(err.value) and "DiffChIPL" in err.value.details["tools"]
    assert any("--substitute" in h for h in err.value.hints)
    spec = build_spec(request, InputProfile(), knowledge, substitute=True)
    assert any("'DiffChIPL'" in d and "--substitute" in d for d in spec.deviations)


def test_a_database_name_is_a_warning_not_a_refusal(knowledge):
    request = parse_request("annotate the variants with SnpEff and the FooVarDB database", knowledge)
    spec = build_spec(request, InputProfile(), knowledge)
    assert any("FooVarDB" in w and "database" in w for w in spec.warnings)


_GENE = st.from_regex(r"[A-Z][A-Z0-9]{1,6}|[A-Z][a-z]{1,3}[0-9]{1,2}", fullmatch=True)
_GENE_CONTEXTS = (
    "Differential expression of {g} knockout versus wild-type cells",
    "differential expression, then plot the expression of {g} and {h}",
    "cluster the cells and find markers such as {g} and {h}",
    "differential expression between cells with {g} knockdown and controls",
    "{g} and {h} genes after differential expression with DESeq2",
)


@settings(max_examples=examples(100), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=_GENE, h=_GENE, context=st.sampled_from(_GENE_CONTEXTS))
def test_gene_symbols_in_gene_context_are_never_reported(knowledge, g, h, context):
    query = context.format(g=g, h=h)
    assert [n for n in unknown_names(parse_request(query, knowledge)) if n.kind == "tool"] == [], query
