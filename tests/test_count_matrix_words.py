""""A count matrix from the reads" is a bulk study's request as much as a single-cell one: the words alone
chose the single-cell quantification (kallisto|bustools), and a bulk RNA-seq user's FASTQ pairs got a
barcode/UMI pipeline. The assay decides: a single-cell word in the request makes it the cells x genes matrix
from the barcoded reads; without one, the wanted result is the genes x samples raw count matrix (an aligner,
then featureCounts)."""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.request.parse import parse_request
from helpers import fastq_pairs

BULK = ["make a count matrix from these reads", "generate a count matrix from the FASTQ files",
        "I need a counts table from my fastq", "从测序数据生成计数矩阵", "count the reads per gene from the FASTQ"]
SINGLE_CELL = ["10x single-cell RNA-seq: make a count matrix from the FASTQ",
               "generate a count matrix from 10x Chromium FASTQ files",
               "snRNA-seq reads to a UMI count matrix", "单细胞 fastq 生成计数矩阵",
               "single-nucleus fastq: count the UMIs"]


@pytest.mark.parametrize("query", BULK)
def test_a_count_matrix_from_reads_without_a_single_cell_word_is_the_bulk_raw_count_matrix(knowledge, query):
    request = parse_request(query, knowledge)
    assert "single_cell_quantification" not in request.operations
    assert "raw_count_matrix" in request.datatypes or "read_counting" in request.operations


@pytest.mark.parametrize("query", SINGLE_CELL)
def test_a_count_matrix_from_reads_in_a_single_cell_request_is_single_cell_quantification(knowledge, query):
    assert "single_cell_quantification" in parse_request(query, knowledge).operations


@pytest.mark.parametrize("query", ["10x single-cell RNA-seq: make a count matrix from the FASTQ",
                                   "单细胞 fastq 生成计数矩阵"])
def test_the_single_cell_plan_from_fastq_quantifies_the_cells_and_counts_no_bulk_reads(knowledge, tmp_path, query):
    inputs = [*fastq_pairs(tmp_path, ["pbmc_a"]), _genome(tmp_path), _annotation(tmp_path)]
    steps = {s.operation: s.tool for s in plan_request(query, inputs, knowledge).plans[0].steps}
    assert steps == {"single_cell_quantification": "kallistobustools_count"}


@pytest.mark.parametrize("query", ["make a count matrix from these reads", "generate a count matrix from the FASTQ"])
def test_the_bulk_plan_from_fastq_aligns_and_counts_per_gene(knowledge, tmp_path, query):
    inputs = [*fastq_pairs(tmp_path, ["ctrl_1", "ko_1"]), _genome(tmp_path), _annotation(tmp_path)]
    steps = {s.operation: s.tool for s in plan_request(query, inputs, knowledge).plans[0].steps}
    assert steps.get("read_counting") == "featurecounts" and "single_cell_quantification" not in steps


def _genome(base) -> str:
    (base / "genome.fa").write_text(">chr1\n" + "ACGT" * 100 + "\n")
    return str(base / "genome.fa")


def _annotation(base) -> str:
    (base / "genes.gtf").write_text('chr1\tsrc\tgene\t1\t300\t.\t+\t.\tgene_id "ENSMUSG00000000001";\n'
                                    'chr1\tsrc\texon\t1\t300\t.\t+\t.\tgene_id "ENSMUSG00000000001"; '
                                    'transcript_id "ENSMUST00000000001";\n')
    return str(base / "genes.gtf")


@pytest.mark.parametrize("query", ["single-cell count matrix: cluster the cells and find markers",
                                   "cluster the cells of this 10x count matrix"])
def test_a_single_cell_count_matrix_given_as_data_is_not_made_again(knowledge, query):
    assert "single_cell_quantification" not in parse_request(query, knowledge).operations
