"""Families of requests written by others, round 7 (compiler/bioplan/evaluate/from_others.yaml, r7.*).

Each test states a general rule with phrasings that are not in the cases: the assay a request's own
steps imply reads its other words (no bulk DE among single-cell steps, bisulfite alignment beside
methylation calls); one rule a step for Spanish, Portuguese and French; where a workflow runs is no
instruction; differential peaks/regions are differential binding; Chinese methylation read-outs;
dereplication is no duplicate marking; Japanese katakana trimming.
"""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.passes.readings import assay_of_own_steps
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


def _ops(query, knowledge):
    return {m.id for m in parse_request(query, knowledge).matches if m.kind == "operation" and not m.negated}


@pytest.mark.parametrize(("query", "assay"), [
    # two single-cell steps outvote one bulk reading
    ("annotate the cell types, infer the trajectory and run differential expression", "single_cell_rna_seq"),
    ("鉴定细胞类型，做拟时序分析，并做差异表达分析", "single_cell_rna_seq"),
    # one step alone decides nothing (its assay is settled later, with the inputs)
    ("align the reads and extract the methylation calls", None),
    # a tie decides nothing; steps for any assay decide nothing
    ("annotate the cell types and run differential expression", None),
    ("trim the reads and run FastQC", None),
    # an assay the request says is not overruled here
    ("bulk RNA-seq: annotate the cell types and infer the trajectory", None),
])
def test_the_assay_a_requests_own_steps_imply(query, assay, knowledge):
    assert assay_of_own_steps(knowledge, parse_request(query, knowledge)) == assay


@pytest.mark.parametrize("query", [
    "annotate the cell types, order the cells along a pseudotime and then do a differential expression analysis",
    "先注释细胞类型，再做拟时序分析和差异表达分析",
])
def test_differential_expression_among_single_cell_steps_is_not_bulk(query, knowledge):
    spec = _spec(query, knowledge)
    assert "differential_expression" not in spec.required_operations
    assert "trajectory_inference" in spec.required_operations


@pytest.mark.parametrize(("query", "operation"), [
    ("Realizamos el llamado de variantes sobre las lecturas alineadas", "variant_calling"),
    ("Fizemos a chamada de variantes nas leituras alinhadas ao genoma", "variant_calling"),
    ("Nous avons réalisé l'appel de variants sur les alignements", "variant_calling"),
    ("Queremos llamar las variantes de cada muestra", "variant_calling"),
    ("a chamada conjunta das amostras produz um único VCF", "joint_genotyping"),
    ("recalibración de la calidad de las bases con GATK", "base_recalibration"),
    ("recalibrage des qualités de base", "base_recalibration"),
    ("filtrado de lecturas crudas antes del ensamblaje", "read_trimming"),
    ("asignación taxonómica de las secuencias", "taxonomic_classification"),
    ("アダプタートリミングの後でマッピングする", "read_trimming"),
    ("find differential peaks between knockout and wild type", "differential_binding"),
    ("call differentially accessible chromatin regions between the two treatments", "differential_binding"),
    ("计算每个CpG位点的甲基化水平", "methylation_calling"),
    ("对比对结果进行甲基化状态提取", "methylation_calling"),
    ("Dereplicate the amplicon reads before denoising", "asv_inference"),
    # second batch (held out): reads cleaned by what is removed, ChIP-seq's goal, Romance host removal
    ("discard poor quality reads before mapping", "read_trimming"),
    ("remove reads containing adapter sequence", "read_trimming"),
    ("locate the genome-wide binding sites of the transcription factor", "peak_calling"),
    ("eliminación de lecturas del huésped antes de la clasificación", "host_read_removal"),
    ("décontamination de l'hôte puis classification", "host_read_removal"),
])
def test_a_family_of_phrasings_names_the_step(query, operation, knowledge):
    assert operation in _ops(query, knowledge)


def test_differential_expression_of_regions_is_no_differential_binding(knowledge):
    assert "differential_binding" not in _ops("differential regions of expression in the transcriptome", knowledge)


def test_dereplication_is_no_duplicate_marking(knowledge):
    assert "duplicate_marking" not in _ops("Dereplication - combines identical reads", knowledge)


@pytest.mark.parametrize("query", [
    "Align the reads with BWA and call variants with bcftools, run on the HPC modules installed on our server",
    "trim the reads with fastp and align them with STAR on a laptop environment",
])
def test_where_the_workflow_runs_is_no_instruction(query, knowledge):
    request = parse_request(query, knowledge)
    assert not request.unmatched_clauses, request.unmatched_clauses


def test_binding_site_motifs_are_no_peak_calling_phrase(knowledge):
    request = parse_request("discover the binding site motifs of the factor", knowledge)
    assert not any(m.id == "peak_calling" and m.text.startswith("discover") for m in request.matches)


@pytest.mark.parametrize("query", [
    "limpeza das leituras com fastp ou Trimmomatic",
    "classification avec Kraken2 ou Centrifuge",
])
def test_a_missing_tool_offered_with_ou_beside_a_known_one_is_not_refused(query, knowledge):
    spec = _spec(query, knowledge)
    assert spec.required_operations
