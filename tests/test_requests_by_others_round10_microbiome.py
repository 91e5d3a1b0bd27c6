"""General causes of failing requests written by others, round 10, microbiome, assembly, phylogenetics and other
languages (compiler/bioplan/evaluate/from_others.yaml, cases r10.* of those tags). Each test states the rule with
phrasings that are not in the cases, both ways.

- De novo assembly said in Spanish, Portuguese, French, German, Japanese and Korean ("ensamblaje de novo",
  "ゲノム配列を復元", "Assembly는"), never of a transcriptome; a tree in German, French, Spanish ("Stammbäume",
  "arbre phylogénétique"); 比对 beside a tree is the multiple alignment the tree is built from, not read alignment.
- Amplicon words: a feature table built, a "taxonomy analysis", the taxonomy of the sequences in French of a
  DADA2 study, PCR errors corrected (denoising), primers removed; differential abundance of an amplicon study
  (the taxa table summarised from the ASVs) is planned, not dropped as a description of shotgun data.
- Assembly and MAG checks ("verification of scaffolds/contigs", "MAG quality assessment", the read QC beside it
  kept), "from raw reads to an annotated genome".
- Refusals by name: long-read assembly "using nanopore reads", a de novo transcriptome in Chinese, extracting the
  reads of one taxon, RASTtk and the A5 pipeline; a tool offered among others with 等 ("etc.") is an alternative.
- SILVA, Greengenes or UNITE named as the reference of a taxonomy (no shotgun words) say an amplicon study.
- OTUs picked in Portuguese/Spanish ("agrupadas em UTOs") and UCLUST are OTU picking (mothur too, as before);
  "classifier" beside a marker-gene database (RDP, SILVA) is no read classification.
- A name is whole: "Naïve" is no tool called 'Na'.
"""

from __future__ import annotations

import pytest

from bioplan.request.parse import parse_request
from bioplan.request.passes.unknown_names import _TOKEN


def _ops(query, knowledge):
    return {m.id for m in parse_request(query, knowledge).matches if m.kind == "operation" and not m.negated}


def _absent(query, knowledge, kind):
    return {a.id for a in parse_request(query, knowledge).absent if a.kind == kind}


@pytest.mark.parametrize("query", [
    "Realizamos el ensamblaje de novo de los genomas bacterianos",
    "o ensamblaje de las lecturas con SPAdes",
    "montagem de novo do genoma da bactéria",
    "l'assemblage de novo des génomes bactériens",
    "die Assemblierung der Reads zu Contigs",
    "リードからゲノム配列を復元する",
    "유전체 조립을 수행한다",
    "Assembly를 수행하고 contig를 얻는다",
])
def test_de_novo_assembly_in_other_languages(query, knowledge):
    assert "genome_assembly" in _ops(query, knowledge)


@pytest.mark.parametrize("query", [
    "ensamblaje de novo del transcriptoma de la planta",
    "アセンブリの前にリファレンスゲノムのバージョンを確認する",
])
def test_assembly_words_of_a_transcriptome_or_a_reference_are_no_genome_assembly(query, knowledge):
    assert "genome_assembly" not in _ops(query, knowledge)


@pytest.mark.parametrize("query, ops", [
    ("先对这些序列进行比对, 再用比对结果构建进化树", {"multiple_sequence_alignment", "phylogenetic_tree_inference"}),
    ("aus dem multiplen Sequenzalignment einen phylogenetischen Stammbaum berechnen",
     {"multiple_sequence_alignment", "phylogenetic_tree_inference"}),
    ("construire un arbre phylogénétique", {"phylogenetic_tree_inference"}),
])
def test_alignment_and_trees_in_other_languages(query, ops, knowledge):
    found = _ops(query, knowledge)
    assert ops <= found
    assert "read_alignment" not in found


def test_chinese_alignment_without_a_tree_stays_read_alignment(knowledge):
    found = _ops("将测序reads比对到参考基因组", knowledge)
    assert "read_alignment" in found and "multiple_sequence_alignment" not in found


@pytest.mark.parametrize("query, op", [
    ("16S amplicon data: feature table construction, then alpha diversity", "asv_inference"),
    ("ITS amplicons: build the feature table and run the taxonomy analysis", "asv_taxonomy_assignment"),
    ("DADA2: on cherche la taxonomie des séquences", "asv_taxonomy_assignment"),
    ("16Sアンプリコンのリードは、シーケンシングのエラーを修正してASVにする", "asv_inference"),
    ("The primers were trimmed before denoising", "primer_removal"),
])
def test_amplicon_phrasings(query, op, knowledge):
    assert op in _ops(query, knowledge)


@pytest.mark.parametrize("query, op", [
    ("shotgun metagenomes: taxonomy analysis of the reads with Kraken2", "asv_taxonomy_assignment"),
    ("métagénomique: la taxonomie des lectures avec Kraken2", "asv_taxonomy_assignment"),
    ("build a feature table of the proteomics runs", "asv_inference"),
])
def test_amplicon_phrasings_need_an_amplicon_context(query, op, knowledge):
    assert op not in _ops(query, knowledge)


def test_differential_abundance_of_an_amplicon_study_is_planned(knowledge):
    from bioplan.models import InputProfile
    from bioplan.request.spec import build_spec
    query = "16S amplicon reads: denoise with DADA2, assign taxonomy and test differential abundance between groups"
    spec = build_spec(parse_request(query, knowledge), InputProfile(files=[]), knowledge)
    assert "differential_abundance" in spec.required_operations


@pytest.mark.parametrize("query, op", [
    ("assemble with SPAdes, then validation of the contigs", "assembly_qc"),
    ("bin the contigs with MetaBAT2 and estimate the completeness of the MAGs", "bin_qc"),
    ("a tour from raw reads to an annotated bacterial genome", "genome_annotation"),
    ("a tour from raw reads to an annotated bacterial genome", "genome_assembly"),
])
def test_assembly_checks_and_isolate_goals(query, op, knowledge):
    assert op in _ops(query, knowledge)


def test_read_qc_beside_the_mag_quality_is_kept(knowledge):
    ops = _ops("quality control of the reads, assembly, binning and MAG quality assessment", knowledge)
    assert {"read_qc", "bin_qc"} <= ops


@pytest.mark.parametrize("query, family", [
    ("assembly of the isolate genome using Oxford Nanopore reads", "assembly"),
    ("做真核无参转录组分析", "assembly"),
    ("extract the reads classified as Salmonella species from the raw data", "taxon_read_extraction"),
    ("注释出感兴趣的物种后, 把这些reads从原始数据中提取出来", "taxon_read_extraction"),
])
def test_analyses_bioplan_lacks_are_named(query, family, knowledge):
    assert family in _absent(query, knowledge, "analysis")


def test_classifying_reads_is_no_taxon_read_extraction(knowledge):
    assert "taxon_read_extraction" not in _absent("classify the reads with Kraken2 and extract the report", knowledge,
                                                  "analysis")


@pytest.mark.parametrize("query, tool", [
    ("annotate the draft genome with RASTtk", "rasttk"),
    ("assemble the MiSeq reads with the A5-miseq pipeline", "a5_pipeline"),
])
def test_tools_bioplan_lacks_are_named(query, tool, knowledge):
    assert tool in _absent(query, knowledge, "tool")


def test_a_tool_listed_among_examples_with_deng_is_an_alternative(knowledge):
    absent = parse_request("常用MUSCLE、MAFFT等工具进行多序列比对", knowledge).absent
    muscle = [a for a in absent if a.kind == "tool" and a.id == "muscle"]
    assert muscle and all(a.alternative_to == "mafft_align" for a in muscle)


def test_a_tool_named_alone_is_still_refused_by_name(knowledge):
    absent = parse_request("用MUSCLE进行多序列比对", knowledge).absent
    assert [a.alternative_to for a in absent if a.kind == "tool" and a.id == "muscle"] == [None]


@pytest.mark.parametrize("text, tokens", [
    ("a Naïve Bayes classifier", ["a", "Bayes", "classifier"]),
    ("les séquences filtrées", ["les"]),
    ("run FastQC", ["run", "FastQC"]),
])
def test_a_name_is_a_whole_word(text, tokens):
    assert [m.group(0) for m in _TOKEN.finditer(text)] == tokens


def _constraints(query, knowledge):
    return set(parse_request(query, knowledge).constraints)


@pytest.mark.parametrize("query", [
    "assign taxonomy to the sequence variants against SILVA 138",
    "classify the representative sequences with the UNITE fungal database",
])
def test_marker_gene_databases_of_a_taxonomy_say_an_amplicon_study(query, knowledge):
    assert "amplicon_sequencing" in _constraints(query, knowledge)


def test_a_marker_gene_database_beside_shotgun_words_says_no_amplicon_study(knowledge):
    assert "amplicon_sequencing" not in _constraints(
        "classify the shotgun metagenomic reads with Kraken2 against its SILVA database", knowledge)


def test_otus_picked_from_the_sequences_are_refused_by_analysis(knowledge):
    query = "as sequências foram agrupadas em OTUs com 97% de identidade"
    assert "otu_picking" in _absent(query, knowledge, "analysis")


def test_uclust_is_named_as_an_otu_picker(knowledge):
    assert "usearch" in _absent("the reads were clustered into OTUs with UCLUST", knowledge, "tool")


def test_mothur_is_refused_by_name(knowledge):
    absent = parse_request("assign taxonomy to the 16S sequences with mothur's classify.seqs", knowledge).absent
    assert "usearch" in {a.id for a in absent if a.kind == "tool"}


@pytest.mark.parametrize("query", [
    "classify the sequences with the RDP Classifier of the Ribosomal Database Project",
    "A taxonomia das sequências foi atribuída com o SILVA",
])
def test_a_classification_against_a_marker_gene_database_is_no_read_classification(query, knowledge):
    ops = _ops(query, knowledge)
    assert "taxonomic_classification" not in ops


def test_a_metagenomic_classification_stays_the_reads(knowledge):
    assert "taxonomic_classification" in _ops("classify the shotgun metagenomic reads taxonomically", knowledge)
