"""Requests written by others, round 11 (bulk RNA-seq, single-cell, small RNA): the families their failures
stood for. A change of expression between conditions within each cell type is a pseudobulk comparison, and a
bulk DE method named beside pseudobulk counts is its test, not a bulk step; an assay named as a method's kind
is no assay of the data; a step the request starts after is done; a named tool bioplan has only for other
assays is refused by name (it was swapped for another without a word); single-cell words of courses.
"""
from __future__ import annotations

import pytest

from bioplan.errors import UnknownToolError, UnsupportedAnalysisError
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.tools import refuse_tools_outside_the_assay
from bioplan.request.spec import build_spec


def _spec(query, knowledge, substitute=False):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge, substitute=substitute)


@pytest.mark.parametrize("query", [
    "How do genes change with treatment in each different cell type in my sample?",
    "How does gene expression change within each cell type between Ulcerative colitis and Healthy controls?",
    "We can use pseudobulks for example to find the expression changes between two conditions for one cell type.",
    "walking through the aggregation step, the DESeq2 model setup for multiple cell types in the single-cell data",
    "for each cell type, the gene expression matrices of each cell of that cell type were combined (summed) by "
    "sample ID",
    "Clusters and/or cell types have been identified, we now want to compare sample groups",
])
def test_change_between_conditions_within_cell_types_is_pseudobulk(knowledge, query):
    spec = _spec(query, knowledge)
    assert "pseudobulk_differential_expression" in spec.required_operations, spec.required_operations
    assert "differential_expression" not in spec.required_operations


def test_bulk_method_beside_pseudobulk_counts_is_its_test(knowledge):
    spec = _spec("Once the pseudo-bulk matrix is generated, we can use any bulk RNA-seq DE method to perform the "
                 "analysis, such as DESeq2, edgeR, limma-voom etc.", knowledge)
    assert spec.required_operations == ("pseudobulk_differential_expression",)
    assert spec.constraints.get("assay") == "single_cell_rna_seq"
    # the named bulk tools are not run, and the report says so
    assert any(w.startswith("edgeR") and "not run" in w for w in spec.warnings), spec.warnings


def test_assay_named_as_a_method_kind_is_no_constraint(knowledge):
    request = parse_request("we can use any bulk RNA-seq DE method", knowledge)
    assert "bulk_rna_seq" not in request.constraints
    assert "bulk_rna_seq" in parse_request("differential expression of my bulk RNA-seq data", knowledge).constraints


def test_step_the_request_starts_after_is_done(knowledge):
    spec = _spec("After alignment, we need to count how many reads map to each gene with featureCounts", knowledge)
    assert "read_counting" in spec.required_operations
    assert "read_alignment" not in spec.required_operations
    # said inside a list of steps it is still a step
    spec = _spec("trim the reads, align them with STAR and after alignment, count the reads per gene", knowledge)
    assert "read_alignment" in spec.required_operations


@pytest.mark.parametrize(("query", "tool"), [
    ("align the RNA-seq reads with bwa and count reads per gene", "bwa_mem"),
    ("align the RNA-seq reads with bowtie2 and count reads per gene with featureCounts", "bowtie2"),
])
def test_named_tool_outside_the_assay_is_refused_by_name(knowledge, query, tool):
    with pytest.raises(UnknownToolError) as err:
        _spec(query, knowledge)
    assert err.value.details["tool"] == tool
    assert "STAR" in " ".join(err.value.hints)
    spec = _spec(query, knowledge, substitute=True)
    assert tool not in spec.preferred_tools
    assert any(d.startswith("substituted:") for d in spec.deviations), spec.deviations


@pytest.mark.parametrize(("query", "op"), [
    ("use various metrics to identify true cells that are of high quality, so that when we cluster our cells it is "
     "easier to identify distinct cell type populations", "sc_quality_filtering"),
    ("so that when we cluster our cells it is easier to identify distinct cell type populations", "cell_clustering"),
    ("数据分析目标包括降维、聚类、细胞类型注释与拟时序分析", "cell_clustering"),
    ("Integrating scRNA-seq datasets from different samples, donors or batches", "batch_correction"),
    ("hierarchical clustering and PCA were performed after Variance Stabilizing Transformation (VST) of the count "
     "data", "sample_clustering"),
    ('perform a so called "biological QA" using assessment methods such as Principal Component Analysis',
     "sample_pca"),
    ("démontrer que certains gènes sont transcrits dans une condition, mais pas dans l'autre",
     "differential_expression"),
    ("1) Create a ranked list of genes. More on ranking metrics below.", "gene_ranking"),
    ("For spliced alignment of long, noisy reads, minimap2 stands out on real data.", "long_read_alignment"),
])
def test_words_of_courses_and_methods(knowledge, query, op):
    assert op in _spec(query, knowledge).required_operations


def test_bulk_samples_hierarchical_clustering_is_not_the_cells(knowledge):
    spec = _spec("cluster the cells with Leiden and run a hierarchical clustering", knowledge)
    assert "sample_clustering" not in spec.required_operations


def test_annotation_free_expressed_regions_are_refused(knowledge):
    with pytest.raises(UnsupportedAnalysisError):
        _spec("srnadiff finds differently expressed regions from RNA-seq data without relying on existing annotation",
              knowledge)


def test_a_named_tool_running_inside_another_of_the_assay_is_not_refused(knowledge):
    # Bismark runs Bowtie2: naming Bowtie2 for Bismark's index is no Bowtie2 step of bisulfite reads
    request = parse_request("Bismark was used to align the bisulfite-treated reads; the bisulfite-converted genome was "
                            "indexed using bowtie2", knowledge)
    draft = SpecDraft(knowledge=knowledge, request=request, files=(), preferred=("bismark_align", "bowtie2"),
                      constraints={"assay": "bisulfite_sequencing"})
    after = refuse_tools_outside_the_assay(draft)
    assert any("runs inside Bismark" in w for w in after.warnings), after.warnings
