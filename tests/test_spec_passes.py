"""Each pass of the spec stage on its own, with a small hand-made draft (request/passes/).

A failure here names the pass that broke, where a golden file would only say "the spec differs".
The requests go through `parse_request` (the stage before), the files are hand-made SniffedFiles.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from bioplan.errors import (
    AmbiguousInputError,
    ConstraintViolationError,
    NoOperationRecognizedError,
    PartiallyUnderstoodError,
    UnknownToolError,
    UnsupportedAnalysisError,
)
from bioplan.knowledge.queries import made_within, makeable
from bioplan.models import Fact, Request, SniffedFile, Span
from bioplan.request.parse import parse_request
from bioplan.request.passes import anchors, context, honesty, readings, target, tools
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import feeds, workflow_type
from bioplan.request.spec import SPEC_PASSES, run_passes, task_spec

ROOT = Path(__file__).resolve().parents[1]


def sniffed(path: str, datatype: str, fmt: str = "tsv", sample: str | None = None, mate: int | None = None,
            **facts) -> SniffedFile:
    return SniffedFile(path=path, datatype=datatype, format=fmt, sample=sample, mate=mate,
                       facts=tuple(Fact(name=n, value=v, evidence="hand-made") for n, v in facts.items()))


def draft(knowledge, query: str, files=(), **fields) -> SpecDraft:
    return SpecDraft(knowledge=knowledge, request=parse_request(query, knowledge), files=tuple(files), **fields)


FASTQ_R1 = sniffed("a_R1.fastq.gz", "raw_reads", "fastq.gz", sample="a", mate=1)
FASTQ_R2 = sniffed("a_R2.fastq.gz", "raw_reads", "fastq.gz", sample="a", mate=2)
CELLS = sniffed("cells.h5ad", "single_cell_matrix", "h5ad")


# --------------------------------------------------------------------------- the chain


def test_the_pass_order_is_the_one_architecture_md_lists():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    listed = re.search(r"Passes \(`SPEC_PASSES`, in this order\): (.*?)\.\s", text)
    assert listed, "ARCHITECTURE.md's spec row lists the passes"
    assert re.findall(r"`(\w+)`", listed.group(1)) == [p.__name__ for p in SPEC_PASSES]


def test_passes_never_change_the_draft_they_are_given(knowledge):
    before = draft(knowledge, "differential expression then KEGG enrichment")
    kept = replace(before)
    after = run_passes(before)
    assert before == kept and after is not before
    assert task_spec(after).required_operations == ("differential_expression", "kegg_enrichment")


# --------------------------------------------------------------------------- readings


def test_reparse_in_input_context_lets_the_inputs_choose_a_reading(knowledge):
    said = draft(knowledge, "which genes go up", [CELLS])
    assert said.request.operations == ("differential_expression",)
    # the bulk DE phrase does not apply beside an .h5ad
    assert readings.reparse_in_input_context(said).request.operations == ()
    assert readings.reparse_in_input_context(draft(knowledge, "which genes go up")).request.operations == (
        "differential_expression",)


@pytest.mark.parametrize(("files", "reading"), [([CELLS], "sc_quality_filtering"), ([FASTQ_R1], "read_qc")])
def test_resolve_readings_picks_the_reading_of_the_inputs_kind(knowledge, files, reading):
    said = readings.reparse_in_input_context(draft(knowledge, "QC", files))
    assert readings.resolve_readings(said).anchors == (reading,)


def test_drop_descriptions_drops_words_that_describe_the_data(knowledge):
    said = readings.resolve_readings(draft(knowledge, "ChIP-seq of H3K27ac in three cell types: call peaks"))
    assert set(said.anchors) == {"peak_calling", "cell_type_annotation"}
    out = readings.drop_descriptions(said)
    assert out.anchors == ("peak_calling",)
    assert "cell_type_annotation" not in out.request.operations
    assert any("read as describing the data" in w and "chip_seq" in w for w in out.warnings)


# --------------------------------------------------------------------------- honesty


def test_note_offered_alternatives_says_which_tool_runs(knowledge):
    out = honesty.note_offered_alternatives(draft(knowledge, "quantify with salmon or Sailfish"))
    assert out.deviations == ("'sailfish' (Sailfish) was offered as an alternative: bioplan runs Salmon quant",)


def test_refuse_unsupported_analyses_refuses_or_records_with_allow_partial(knowledge):
    with pytest.raises(UnsupportedAnalysisError, match="splicing"):
        honesty.refuse_unsupported_analyses(draft(knowledge, "find differential splicing events"))
    asked = draft(knowledge, "align the reads and find differential splicing events")
    partial = replace(readings.resolve_readings(asked), allow_partial=True)
    out = honesty.refuse_unsupported_analyses(partial)
    assert len(out.deviations) == 1 and out.deviations[0].startswith("not done: alternative splicing")


def test_refuse_absent_tools_refuses_substitutes_or_runs_the_successor(knowledge):
    with pytest.raises(UnknownToolError, match="Sailfish"):
        honesty.refuse_absent_tools(draft(knowledge, "quantify transcripts with Sailfish"))
    out = honesty.refuse_absent_tools(draft(knowledge, "use Sailfish", substitute=True))
    assert out.anchors == ("transcript_quantification",)
    assert "--substitute" in out.deviations[-1]
    successor = honesty.refuse_absent_tools(draft(knowledge, "mark duplicates with GATK MarkDuplicates"))
    assert successor.successors == ("picard_markduplicates",) and "successor" in successor.deviations[0]


def test_refuse_not_understood_refuses_or_leaves_out_with_allow_partial(knowledge):
    request = Request(query="align reads and frobnicate widgets", normalized="align reads and frobnicate widgets",
                      language="en", spans=(Span(text="align", start=0, end=5, role="operation"),),
                      unmatched_clauses=(("frobnicate", "widgets"),))
    said = SpecDraft(knowledge=knowledge, request=request, files=())
    with pytest.raises(PartiallyUnderstoodError, match="frobnicate widgets"):
        honesty.refuse_not_understood(said)
    out = honesty.refuse_not_understood(replace(said, allow_partial=True))
    assert out.deviations == ("not understood, left out: 'frobnicate widgets' (--allow-partial)",)


# --------------------------------------------------------------------------- context


def test_settle_organism_from_the_files_and_against_the_request(knowledge):
    human = sniffed("counts.tsv", "raw_count_matrix", organism="organism_human")
    out = context.settle_organism(draft(knowledge, "differential expression", [human]))
    assert out.organism == "organism_human" and out.constraints == {"organism": "human"}
    assert out.constraint_ids == ("organism_human",) and "inferred from gene ids" in out.warnings[0]
    with pytest.raises(ConstraintViolationError, match="counts.tsv"):
        context.settle_organism(draft(knowledge, "mouse differential expression", [human]))


def test_settle_genome_build_from_the_request(knowledge):
    out = context.settle_genome_build(draft(knowledge, "align to GRCh38"))
    assert out.constraints == {"genome_build": "GRCh38", "genome_build_organism": "organism_human"}
    assert out.constraint_ids == ()


def test_settle_assay_implied_by_the_operations_or_conflicting_with_the_files(knowledge):
    out = context.settle_assay(replace(draft(knowledge, "x"), anchors=("differential_expression",)))
    assert out.constraints == {"assay": "bulk_rna_seq"} and out.constraint_ids == ("bulk_rna_seq",)
    assert out.warnings == ("assay bulk_rna_seq implied by the requested operations",)
    with pytest.raises(ConstraintViolationError, match="cells.h5ad"):
        context.settle_assay(draft(knowledge, "bulk RNA-seq QC", [CELLS]))


def test_settle_library_of_several_named_leaves_it_to_the_inputs(knowledge):
    """A tutorial's scope names several library preparations ("WGBS, RRBS and targeted bisulfite"), no files:
    none is applied, said; one alone is applied (with files and several named: test_one_library_at_a_time)."""
    several = context.settle_library(draft(knowledge,
                                           "trim and align whole-genome bisulfite sequencing and RRBS reads"))
    assert "library" not in dict(several.constraints)
    assert several.warnings[-1].startswith("the request names several library preparations (")
    one = context.settle_library(draft(knowledge, "trim and align RRBS reads"))
    assert dict(one.constraints).get("library") == "reduced_representation_bisulfite"


def test_settle_layout_from_the_mates_of_the_read_files(knowledge):
    paired = context.settle_layout(draft(knowledge, "align the reads", [FASTQ_R1, FASTQ_R2]))
    assert paired.constraints == {"layout": "paired"} and paired.constraint_ids == ("paired_end_reads",)
    single = context.settle_layout(draft(knowledge, "align the reads", [sniffed("b.fastq.gz", "raw_reads", "fastq.gz",
                                                                                sample="b")]))
    assert single.constraints == {"layout": "single"}
    with pytest.raises(AmbiguousInputError, match="mix paired-end and single-end"):
        lone = sniffed("b.fq.gz", "raw_reads", sample="b")
        context.settle_layout(draft(knowledge, "align", [FASTQ_R1, FASTQ_R2, lone]))
    with pytest.raises(ConstraintViolationError):
        context.settle_layout(draft(knowledge, "single-end reads: align them", [FASTQ_R1, FASTQ_R2]))


def test_read_data_facts_decides_data_constraints_from_the_files(knowledge):
    files = [sniffed("counts.tsv", "raw_count_matrix", read_counts=False),
             sniffed("sheet.csv", "sample_metadata", "csv", min_replicates=1),
             sniffed("genes.txt", "gene_list", "txt", id_namespace="entrez")]
    out = context.read_data_facts(draft(knowledge, "differential expression", files))
    assert out.data_facts == {"requires_raw_integer_counts": False, "requires_replicates": False,
                              "requires_entrez_id": True}
    said_raw = context.read_data_facts(draft(knowledge, "raw counts: differential expression",
                                             [sniffed("norm.tsv", "normalized_count_matrix")]))
    assert said_raw.warnings == ("the request mentions raw counts but norm.tsv holds non-integer values "
                                 "(normalized); it is treated as a normalized matrix",)


# --------------------------------------------------------------------------- tools and anchors


def test_bind_named_tools_prefers_the_tool_and_anchors_its_operation(knowledge):
    out = tools.bind_named_tools(draft(knowledge, "align the reads with hisat2"))
    assert out.preferred == ("hisat2",) and out.anchors == ("read_alignment",)
    successor = tools.bind_named_tools(replace(draft(knowledge, "mark duplicates"),
                                               successors=("picard_markduplicates",)))
    assert successor.preferred == ("picard_markduplicates",) and successor.anchors == ("duplicate_marking",)


def test_bind_named_tools_refuses_a_tool_named_for_another_step(knowledge):
    with pytest.raises(UnknownToolError, match="Kraken"):
        tools.bind_named_tools(draft(knowledge, "Removal of host reads (Kraken 2)"))


def test_drop_done_drops_a_step_the_inputs_are_past(knowledge):
    quant = sniffed("s1/quant.sf", "transcript_quantification", "salmon_quant")
    said = replace(draft(knowledge, "quantify", [quant]), anchors=("transcript_quantification",),
                   preferred=("salmon_quant",))
    out = anchors.drop_done(said)
    assert out.anchors == () and out.preferred == ()
    assert out.warnings[0].startswith("Transcript quantification is not run: s1/quant.sf is already past it")


def test_drop_superseded_drops_variant_calling_beside_the_gvcf_route(knowledge):
    """'call variants ... in GVCF mode, then joint-genotype': the GVCF route makes the calls, so the
    multi-sample caller (and HaplotypeCaller named for it) is not run as well; alone it stays."""
    said = replace(draft(knowledge, "call variants in GVCF mode, then joint-genotype them"),
                   anchors=("variant_calling", "gvcf_calling", "joint_genotyping"),
                   preferred=("gatk4_haplotypecaller",))
    out = anchors.drop_superseded(said)
    assert out.anchors == ("gvcf_calling", "joint_genotyping") and out.preferred == ()
    assert out.warnings == ("Variant calling is done by per-sample gvcf calling and joint genotyping, which the "
                            "request also asks for; it is not run a second time",)
    alone = replace(draft(knowledge, "call variants"), anchors=("variant_calling",), preferred=("freebayes",))
    assert anchors.drop_superseded(alone) is alone


def test_drop_superseded_runs_the_per_sample_step_the_route_way(knowledge):
    """'HaplotypeCaller on every sample ... the final VCF with GenotypeGVCFs' (metagenlab): the per-sample
    calling the request names is the route's GVCF calling, added when the request names only the joint step."""
    said = replace(draft(knowledge, "HaplotypeCaller on every sample, then GenotypeGVCFs"),
                   anchors=("variant_calling", "joint_genotyping"), preferred=("gatk4_haplotypecaller",))
    out = anchors.drop_superseded(said)
    assert out.anchors == ("joint_genotyping", "gvcf_calling") and out.preferred == ()
    assert out.warnings == ("Variant calling is done by per-sample gvcf calling and joint genotyping, the route the "
                            "request asks for; the per-sample step runs as per-sample gvcf calling",)


def test_add_optional_input_readers_adds_the_step_an_adapter_fasta_is_for(knowledge):
    adapters = sniffed("adapters.fa", "adapter_sequences", "fasta")
    said = replace(draft(knowledge, "align the reads", [FASTQ_R1, FASTQ_R2, adapters]), anchors=("read_alignment",))
    out = anchors.add_optional_input_readers(said)
    assert out.anchors == ("read_alignment", "read_trimming")
    assert out.warnings == ("adapters.fa (adapter_sequences) is read only by read trimming: the step is added",)
    refused = replace(draft(knowledge, "align the reads, do not trim", [FASTQ_R1, adapters]),
                      anchors=("read_alignment",))
    assert anchors.add_optional_input_readers(refused).anchors == ("read_alignment",)


def test_convert_gene_namespaces_adds_the_id_conversion(knowledge):
    files = [sniffed("genes.txt", "gene_symbol_list", "txt", id_namespace="symbol"),
             sniffed("sets.gmt", "gene_set_library", "gmt", id_namespace="entrez")]
    out = anchors.convert_gene_namespaces(replace(draft(knowledge, "GO enrichment", files), anchors=("go_enrichment",)))
    assert (out.gene_namespace, out.gene_set_namespace) == ("symbol", "entrez")
    assert out.anchors == ("go_enrichment", "gene_id_conversion")
    assert "gene_id_conversion converts the genes" in out.warnings[0]


def test_add_implied_constraints_puts_the_operations_requirements_in_force(knowledge):
    said = replace(draft(knowledge, "x"), anchors=("differential_expression",), constraint_ids=("requires_replicates",))
    implied = anchors.add_implied_constraints(said).constraint_ids
    assert implied == ("requires_replicates", "requires_raw_integer_counts")


# --------------------------------------------------------------------------- inputs and target


def test_use_existing_clustering_reads_a_clustered_anndata_as_clustered_data(knowledge):
    clustered = sniffed("c.h5ad", "normalized_single_cell_matrix", "h5ad", cluster_columns=["louvain"])
    said = replace(draft(knowledge, "marker genes", [clustered]), anchors=("marker_gene_detection",))
    out = target.use_existing_clustering(said)
    assert out.cluster_column == "louvain" and out.files[0].datatype == "clustered_single_cell_data"
    assert "uses obs column 'louvain' of c.h5ad" in out.warnings[0]
    recluster = replace(said, anchors=("cell_clustering", "marker_gene_detection"))
    assert target.use_existing_clustering(recluster) == recluster


def test_choose_target_is_the_analysis_result_not_a_conversion(knowledge):
    said = replace(draft(knowledge, "differential expression"), anchors=("differential_expression", "csv_export"))
    assert target.choose_target(said).target == "differential_expression_table"
    volcano = replace(said, anchors=("differential_expression", "volcano_plotting"))
    assert target.choose_target(volcano).target == "volcano_plot"


def test_add_output_conversion_adds_the_step_writing_the_format(knowledge):
    said = replace(draft(knowledge, "differential expression as CSV"), anchors=("differential_expression",),
                   target="differential_expression_table")
    assert target.add_output_conversion(said).anchors == ("differential_expression", "csv_export")
    assert target.add_output_conversion(replace(said, target=None)).anchors == ("differential_expression",)


def test_inputs_without_files_come_from_the_words_and_the_first_steps(knowledge):
    said = replace(draft(knowledge, "PCA of my raw counts"), anchors=("sample_pca",),
                   target="sample_pca_plot")
    assert target.inputs_without_files(said).input_types == ("raw_count_matrix", "sample_metadata")


def test_inputs_without_files_never_take_a_reference_for_the_samples_data(knowledge):
    """A genome 'leads to' reads only through steps that read reads too (host removal): aligning to
    the reference genome still needs the reads; a later step's reads no anchor makes are needed too."""
    align = replace(draft(knowledge, "Align reads to reference genome (STAR)"), anchors=("read_alignment",),
                    target="aligned_reads")
    assert target.inputs_without_files(align).input_types == ("reference_genome", "raw_reads")
    index_then_quant = replace(draft(knowledge, "quantify with salmon and build the salmon index"),
                               anchors=("transcriptome_indexing", "transcript_quantification"),
                               target="transcript_quantification")
    assert target.inputs_without_files(index_then_quant).input_types == ("raw_reads",)


def test_an_absent_tool_is_named_by_the_request_when_its_entry_gathers_others(knowledge):
    """'kaiju' sits in MetaPhlAn's lexicon entry (tools of one kind); the refusal must not call it MetaPhlAn."""
    with pytest.raises(UnknownToolError) as kaiju:
        honesty.refuse_absent_tools(draft(knowledge, "classify the reads with kaiju"))
    assert "'kaiju' is a tool that bioplan does not have" in str(kaiju.value) and "MetaPhlAn" not in str(kaiju.value)
    assert "to add kaiju:" in " ".join(kaiju.value.hints)
    with pytest.raises(UnknownToolError, match="'metaphlan4' names MetaPhlAn, which bioplan does not have"):
        honesty.refuse_absent_tools(draft(knowledge, "classify the reads with MetaPhlAn4"))


def test_require_target_refuses_a_request_with_no_result(knowledge):
    with pytest.raises(NoOperationRecognizedError, match="no operation or result"):
        target.require_target(draft(knowledge, "hello there"))
    with pytest.raises(NoOperationRecognizedError, match="already an input"):
        target.require_target(replace(draft(knowledge, "x"), target="raw_count_matrix",
                                      input_types=("raw_count_matrix",)))


def test_refuse_repeated_cohort_inputs_wants_one_sample_sheet(knowledge):
    sheets = [sniffed("a.csv", "sample_metadata", "csv"), sniffed("b.csv", "sample_metadata", "csv")]
    with pytest.raises(AmbiguousInputError, match="2 input files are 'sample_metadata'"):
        target.refuse_repeated_cohort_inputs(draft(knowledge, "x", sheets))


# --------------------------------------------------------------------------- queries the passes ask


def test_reachability_queries_on_the_knowledge_side(knowledge):
    assert "aligned_reads" in made_within(knowledge, ["raw_reads"], 1)
    assert "variant_calls" not in made_within(knowledge, ["raw_reads"], 1)
    assert "variant_calls" in made_within(knowledge, ["raw_reads"], 2)
    # each operation needs all its inputs: salmon outputs do not lead back to reads
    assert "raw_reads" not in makeable(knowledge, ["transcript_quantification"])
    assert feeds(knowledge, "read_alignment", "variant_calling")
    assert not feeds(knowledge, "variant_calling", "read_alignment")
    assert workflow_type(knowledge, ["differential_expression", "volcano_plotting", "gene_ranking"]) == "multi_branch"


def test_assay_of_files_reads_the_assays_of_the_operations_on_each_datatype(knowledge):
    """assay_of_files answers from a per-knowledge index (issue 10): for every datatype, the assays of
    the operations reading or making it are those a scan of every operation's ports finds."""
    def scanned(datatype: str) -> set[tuple[str, ...]]:
        return {tuple(sorted(op.assays)) for op in knowledge.operations.values()
                if any(p.datatype == datatype for p in (*op.inputs.values(), *op.outputs.values()))}

    index = readings._assays_by_datatype(knowledge)
    assert {dt: scanned(dt) for dt in knowledge.datatypes} == {dt: index.get(dt, set()) for dt in knowledge.datatypes}
    # an AnnData matrix is single-cell data; a count table of no one assay says nothing
    assert len(scanned("single_cell_matrix")) == 1
    matrix = SniffedFile(path="x.h5ad", datatype="single_cell_matrix", format="h5ad")
    assert readings.assay_of_files(knowledge, [matrix]) == (scanned("single_cell_matrix").pop()[0], "x.h5ad")
