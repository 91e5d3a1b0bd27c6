"""General causes of failing requests written by others, round 8 (compiler/bioplan/evaluate/from_others.yaml,
cases r8.*). Each test states the rule with phrasings that are not in the cases, both ways.

- A step offered as another route and a tool offered beside another are told apart: "HaplotypeCaller or
  Mutect2" offers the tool Mutect2 beside the tool HaplotypeCaller (a route's words were taken for a tool id:
  KeyError, a crash).
- A phrase rule read in a context (its look-ahead anchored at the start) reads every occurrence of its words,
  not the first alone: "Normalization: normalize the data" of single cells is single-cell normalisation twice
  (the second read as bulk normalisation refused the request).
- Differential expression and read QC said in Spanish, Portuguese, French and German; variant calling in German;
  the read steps and single-cell steps in Japanese.
- Analyses bioplan does not do, said in more ways: co-expressed gene modules, hybrid assemblers, indels
  realigned, differential isoform/transcript expression.
- Asking for a script or a program ("please suggest any script to run the program") is no instruction left
  not understood.
"""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _ops(query, knowledge):
    return {m.id for m in parse_request(query, knowledge).matches if m.kind == "operation" and not m.negated}


def _absent_analyses(query, knowledge):
    return {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}


@pytest.mark.parametrize(("query", "first", "offered"), [
    ("call the variants with HaplotypeCaller or Mutect2", "gatk4_haplotypecaller", "gatk4_mutect2"),
    ("Variant Calling: tools like HaplotypeCaller or Mutect2 identify SNPs and indels",
     "gatk4_haplotypecaller", "gatk4_mutect2"),
])
def test_a_tool_offered_beside_another_names_the_first_tool(query, first, offered, knowledge):
    tools = {m.id: m.offered_beside for m in parse_request(query, knowledge).matches if m.kind == "tool"}
    assert tools[offered] == first
    assert all(v is None or v in knowledge.tools for v in tools.values())


def test_a_tool_offered_beside_another_plans_without_a_crash(knowledge):
    plan = plan_request("Tools like HaplotypeCaller or Mutect2 are used to identify SNPs and indels",
                        [], knowledge=knowledge)
    notes = (*plan.spec.deviations, *plan.spec.warnings, *plan.warnings)
    assert any("was offered as an alternative" in d for d in notes)


def test_a_route_offered_beside_another_still_names_the_first_words(knowledge):
    request = parse_request("quantify the RNA-seq reads by alignment or pseudoalignment", knowledge)
    offered = [m.offered_beside for m in request.matches if m.kind == "operation" and m.offered_beside]
    assert offered and all(v not in knowledge.tools for v in offered)


@pytest.mark.parametrize("query", [
    "single-cell counts: QC, then Normalization: normalize the counts and cluster the cells",
    "for my scRNA-seq matrix: normalization, clustering, and normalize again before UMAP",
    "single cell data - normalization of the cells - Normalize the data to remove depth effects",
])
def test_a_context_rule_reads_every_occurrence_of_its_words(query, knowledge):
    request = parse_request(query, knowledge)
    norms = [m for m in request.matches if m.kind == "operation" and "normali" in m.text]
    assert len(norms) >= 2
    assert "count_normalization" not in {m.id for m in request.matches if m.kind == "operation"}
    spec = build_spec(request, InputProfile(), knowledge)
    assert "sc_normalization" in spec.required_operations


def test_a_context_rule_does_not_fire_without_its_context(knowledge):
    ops = _ops("bulk RNA-seq counts: Normalization, then normalize again and test DE", knowledge)
    assert "sc_normalization" not in ops


@pytest.mark.parametrize("query", [
    "quiero encontrar genes diferencialmente expresados entre tratados y controles",
    "análise de expressão diferencial entre os dois grupos",
    "trouver les gènes différentiellement exprimés entre les conditions",
    "differenziell exprimierte Gene zwischen Behandlung und Kontrolle finden",
    "una expresión génica diferencial entre los tejidos",
])
def test_differential_expression_in_romance_languages_and_german(query, knowledge):
    assert "differential_expression" in _ops(query, knowledge)


@pytest.mark.parametrize(("query", "present"), [
    ("control de calidad de las lecturas crudas", True),
    ("contrôle qualité des lectures puis alignement", True),
    ("avaliação da qualidade das leituras", True),
    ("Qualitätskontrolle der Reads", True),
    # a recalibration of base qualities is no read QC
    ("recalibración de la calidad de las bases", False),
])
def test_read_qc_in_romance_languages_and_german(query, present, knowledge):
    assert ("read_qc" in _ops(query, knowledge)) is present


@pytest.mark.parametrize("query", [
    "Identifizierung von Keimbahnvarianten aus Exomdaten",
    "Variantenerkennung in Gesamtgenomdaten",
    "das Calling von Varianten in drei Proben",
])
def test_variant_calling_in_german(query, knowledge):
    assert "variant_calling" in _ops(query, knowledge)


@pytest.mark.parametrize(("query", "operation"), [
    ("リードをゲノムにマッピングする", "read_alignment"),
    ("まずリードのクオリティコントロールを行う", "read_qc"),
    ("遺伝子ごとにリード数を集計する", "read_counting"),
    ("シングルセルのデータでクラスタリングを行い、マーカー遺伝子を探す", "cell_clustering"),
    ("シングルセルのデータでクラスタリングを行い、マーカー遺伝子を探す", "marker_gene_detection"),
    ("シングルセルRNA-seqのデータを正規化する", "sc_normalization"),
])
def test_japanese_read_and_single_cell_steps(query, operation, knowledge):
    assert operation in _ops(query, knowledge)


def test_japanese_clustering_without_single_cells_is_no_cell_clustering(knowledge):
    assert "cell_clustering" not in _ops("サンプルのクラスタリングを行う", knowledge)


@pytest.mark.parametrize(("query", "analysis"), [
    ("find co-expressed gene modules in my RNA-seq", "coexpression_network"),
    ("which genes are coexpressed modules of the treatment", "coexpression_network"),
    ("which hybrid assemblers handle ONT plus Illumina", "assembly"),
    ("the indels were realigned with GATK", "indel_realignment"),
    ("differential transcript expression between the groups", "alternative_splicing"),
    ("test differential isoform / transcript abundance", "alternative_splicing"),
])
def test_analyses_bioplan_does_not_do_are_refused_by_name(query, analysis, knowledge):
    assert analysis in _absent_analyses(query, knowledge)


@pytest.mark.parametrize("query", [
    "differential expression of the genes between the groups",
    "co-expression of the two marker genes in the clusters is shown in the UMAP",
])
def test_what_bioplan_does_is_not_refused_as_those_analyses(query, knowledge):
    assert not _absent_analyses(query, knowledge) & {"coexpression_network", "alternative_splicing"}


@pytest.mark.parametrize("query", [
    "I have a featureCounts table. Please suggest any script to run DESeq2 on it",
    "can you advise a program to test differential expression with DESeq2",
])
def test_asking_for_a_script_or_program_leaves_nothing_not_understood(query, knowledge):
    request = parse_request(query, knowledge)
    assert not {"suggest", "script", "program", "advise"} & set(request.unrecognized)


# ---------------------------------------------------------------- after the second batch (r8b.*)

@pytest.mark.parametrize(("query", "operation"), [
    ("pour commencer une analyse différentielle d'expression entre les deux lignées", "differential_expression"),
    ("un análisis diferencial de expresión entre tejidos", "differential_expression"),
    ("faire le comptage des reads pour chaque gène", "read_counting"),
    ("el conteo de lecturas por gen se hizo después del alineamiento", "read_counting"),
    ("la reconstrucción de un genoma bacteriano a partir de lecturas cortas", "genome_assembly"),
    ("a montagem do genoma e depois a anotação do mesmo", "genome_annotation"),
    ("先对测序数据的fastq进行过滤,再比对到参考基因组", "read_trimming"),
])
def test_second_batch_romance_and_chinese_steps(query, operation, knowledge):
    assert operation in _ops(query, knowledge)


@pytest.mark.parametrize("query", [
    # a reference genome is no genome built here; variants filtered are no reads cleaned
    "la construcción de un genoma de referencia no es parte del análisis",
    "对vcf文件进行变异过滤",
])
def test_second_batch_rules_stay_in_their_scope(query, knowledge):
    ops = _ops(query, knowledge)
    assert "genome_assembly" not in ops
    assert "read_trimming" not in ops


def _anchors(query, knowledge):
    return set(build_spec(parse_request(query, knowledge), InputProfile(), knowledge).required_operations)


@pytest.mark.parametrize(("query", "done", "todo"), [
    # what was done to the data, said after it (a step or the tool that ran it)
    ("my BAM files which were deduplicated with MarkDuplicates and indexed; call SNPs with FreeBayes",
     "duplicate_marking", "variant_calling"),
    ("I have fastq files that were already trimmed, please align them with STAR", "read_trimming", "read_alignment"),
    # a step said done with 'already'
    ("the reads are already aligned; count them per gene with featureCounts", "read_alignment", "read_counting"),
    ("genes with fold changes and differential expression already computed: run GSEA", "differential_expression",
     "gsea"),
])
def test_a_step_said_done_is_not_run_again(query, done, todo, knowledge):
    anchors = _anchors(query, knowledge)
    assert todo in anchors
    assert done not in anchors


@pytest.mark.parametrize(("query", "todo"), [
    # the same words asking for the step are still the step
    ("find genes that are differentially expressed between treated and control", "differential_expression"),
    ("I already have BAM files and want to mark duplicates", "duplicate_marking"),
    ("align the reads that are in the fastq files to the genome", "read_alignment"),
])
def test_a_step_asked_for_beside_those_words_still_runs(query, todo, knowledge):
    assert todo in _anchors(query, knowledge)


def _constraints(query, knowledge):
    return {m.id for m in parse_request(query, knowledge).matches if m.kind == "constraint"}


@pytest.mark.parametrize("query", [
    "se obtienen archivos FASTQ y se alinean al genoma para llamar variantes",
    "os dados se referem a amostras de RNA-seq: expressão diferencial",
    "la qualité se mesure avec FastQC avant l'alignement",
])
def test_a_lower_case_se_is_a_romance_pronoun_not_single_end(query, knowledge):
    assert "single_end_reads" not in _constraints(query, knowledge)


@pytest.mark.parametrize("query", [
    "align the SE reads with STAR",
    "these are se reads, 50 bp, align them with HISAT2",
    "RNA-seq SE50 data: differential expression",
])
def test_single_end_said_as_se_is_still_single_end(query, knowledge):
    assert "single_end_reads" in _constraints(query, knowledge)


@pytest.mark.parametrize(("query", "present"), [
    ("then add functional information to the called variants", True),
    ("assign gene annotations to the filtered SNPs", True),
    # information added to the genes or the peaks is no variant annotation
    ("add functional information to the differentially expressed genes", False),
])
def test_information_added_to_variants_is_variant_annotation(query, present, knowledge):
    assert ("variant_annotation" in _ops(query, knowledge)) is present


@pytest.mark.parametrize(("query", "present"), [
    # Harmony, scVI and BBKNN integrate single cells: the clustering after them is of cells
    ("integrate the samples with Harmony, then clustering and UMAP", True),
    ("run scVI to remove the batch effect before clustering", True),
    ("do batch correction with BBKNN prior to clustering", True),
    ("hierarchical clustering of the RNA-seq samples", False),
])
def test_clustering_after_a_single_cell_integration_tool_is_cell_clustering(query, present, knowledge):
    assert ("cell_clustering" in _ops(query, knowledge)) is present
