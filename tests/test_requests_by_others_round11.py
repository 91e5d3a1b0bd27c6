"""Round 11 of requests written by others (microbiome, assembly, phylogenetics, proteins, requests in
other languages; compiler/bioplan/evaluate/from_others.yaml, ids r11.*): the families their failures
stood for.
"""

from __future__ import annotations

import pytest

from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec


def _spec(query, knowledge):
    return build_spec(parse_request(query, knowledge), InputProfile(), knowledge)


@pytest.mark.parametrize("query", [
    "Here, in the homework, we will go through practical sequence assembly in more detail than in class. However, "
    "this homework will be more about finding the right tools and pipelines than about implementation (you "
    "actually do not need to implement anything at all; only call existing tools).",
    "Assemble the genome; you only need to run the existing scripts.",
])
def test_an_instruction_whose_object_is_software_is_no_unread_analysis(knowledge, query):
    """'finding the right tools', 'call existing tools': how the work is done (course pages), not a step."""
    request = parse_request(query, knowledge)
    assert "genome_assembly" in request.operations
    assert not request.unmatched_clauses


def test_an_unread_instruction_on_data_is_still_said(knowledge):
    request = parse_request("Assemble the genome, then call the frobnicated widgets.", knowledge)
    assert request.unmatched_clauses


@pytest.mark.parametrize(("query", "operation"), [
    ("일반적으로 계통수는 marker gene sequences에 대해서 multiple sequence alignment (MSA)를 진행하고 얻어진다.",
     "phylogenetic_tree_inference"),
    ("Die readbasierte taxonomische Profilierung ist eine Methode", "taxonomic_classification"),
    ("Предсказание генов прокариот.", "gene_prediction"),
    ("an external-to-R multiple aligner and tree building program", "multiple_sequence_alignment"),
    ("Read Processing (dada2): Filtering and trimming, Error learning, Dereplication and denoising",
     "error_model_learning"),
    ("aggregates ASVs to phylum level and displays the result as stacked bars, colored by phylum",
     "taxonomy_barplot_plotting"),
    ("combine kraken2 output/reports from different samples and convert them into one report",
     "abundance_table_merge"),
])
def test_the_words_others_use_reach_the_step(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_a_multiple_aligner_is_no_read_aligner(knowledge):
    ops = parse_request("an external-to-R multiple aligner and tree building program", knowledge).operations
    assert "bisulfite_alignment" not in ops and "read_alignment" not in ops


@pytest.mark.parametrize(("query", "family"), [
    ("AlphaFold logró predecir con precisión atómica la estructura tridimensional de las proteínas",
     "protein_structure"),
    ("predict the 3D structure of these proteins", "protein_structure"),
    ("Après le séquençage, les séquences sont triées par échantillon grâce aux barcodes", "demultiplexing"),
    ("demultiplex the pooled 16S reads, then infer ASVs", "demultiplexing"),
    ("Contaminant removal (phyloseq + decontam), Alpha diversity (vegan)", "contaminant_removal"),
    ("bin an assembly, assess the quality with CheckM2, define GTDB and NCBI taxonomies", "contig_classification"),
    ("visualize a placement of these genomes within a reference tree", "phylogenetic_placement"),
    ("collect sequences, align them, construct the tree, then evaluate and visualize it", "tree_visualisation"),
    ("Gene, die hinsichtlich Funktion und Taxonomie annotiert werden", "functional_annotation"),
])
def test_analyses_bioplan_does_not_do_are_named(knowledge, query, family):
    assert family in {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}


@pytest.mark.parametrize("query", [
    "Demultiplex single-cell FASTQ data from 10X Genomics",
    "infer ASVs from the demultiplexed reads",
    "predict the population structure of the samples",
])
def test_what_those_families_do_not_take(knowledge, query):
    families = {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}
    assert not families & {"demultiplexing", "protein_structure"}


@pytest.mark.parametrize(("query", "tool"), [
    ("AbySS は short paired-end reads のための de novo assembler である。", "unicycler"),
    ("The taxonomic assignment was carried out with the ecotag program", "obitools"),
    ("diamond blastp -q proteins.fa -d astral40 -o out.tsv", "diamond_blastp"),
])
def test_tools_bioplan_lacks_are_named(knowledge, query, tool):
    assert tool in {a.id for a in parse_request(query, knowledge).absent if a.kind == "tool"}


def test_diamond_blastp_is_diamond_s_mode_not_blast(knowledge):
    absent = {a.id for a in parse_request("diamond blastp -q proteins.fa -d db", knowledge).absent}
    assert "blast" not in absent


def test_a_tool_s_name_inside_a_file_name_is_no_tool(knowledge):
    """'astral' (ASTRAL, species trees) in SCOPe's file name is part of the name."""
    request = parse_request("diamond makedb --in astral-scopedom-seqres-gd-sel-gs-bib-40-2.07.fa -d astral40",
                            knowledge)
    assert not [a for a in request.absent if a.kind in ("tool", "analysis")]


def test_a_japanese_list_of_tools_offers_alternatives(knowledge):
    """'IQ-TREEやRaxML': RAxML is offered beside IQ-TREE, which runs."""
    request = parse_request("代表的な系統樹推定にはIQ-TREEやRaxMLがある。", knowledge)
    raxml = [a for a in request.absent if a.id == "raxml"]
    assert raxml and raxml[0].alternative_to == "iqtree"


def test_iq_tree2_is_iqtree(knowledge):
    request = parse_request("you can use ortholog protein alignment and RAxML (or iq-tree2) for the tree", knowledge)
    assert "iqtree" in {m.id for m in request.matches if m.kind == "tool"}


@pytest.mark.parametrize(("query", "operation"), [
    ("資料分析:包含過濾低品質序列、去除嵌合體、OTU/ASV 分群與分類註解", "asv_inference"),
    ("資料分析:包含過濾低品質序列、去除嵌合體、OTU/ASV 分群與分類註解", "asv_taxonomy_assignment"),
    ("アルファおよびベータ多様性分析はそれぞれサンプル内およびサンプル間の微生物の多様性に焦点を当てます。",
     "diversity_analysis"),
    ("merge된 read들은 중복을 제외하고 representative sequence (Feature)로 선별되어, 추후 분석(diversity analysis)",
     "asv_inference"),
])
def test_amplicon_steps_in_chinese_japanese_korean(knowledge, query, operation):
    assert operation in parse_request(query, knowledge).operations


def test_otu_asv_grouping_is_no_cell_clustering(knowledge):
    assert "cell_clustering" not in parse_request("OTU/ASV 分群與分類註解", knowledge).operations


def test_reads_clustered_into_otus_in_japanese_is_otu_picking(knowledge):
    request = parse_request("同様のリードのクラスタリングを行って、操作分類単位 (OTU) を生成します。", knowledge)
    assert "otu_picking" in {a.id for a in request.absent if a.kind == "analysis"}


def test_qiime_s_feature_is_no_tool_name(knowledge):
    """'representative sequence (Feature)': QIIME 2's word for an ASV, not an unknown tool."""
    request = parse_request("the reads are dereplicated into representative sequences (Feature) for diversity analysis",
                            knowledge)
    assert "feature" not in {s.text for s in request.spans if s.role == "unrecognized"}


@pytest.mark.parametrize("query", [
    "这里推荐使用邻接法(Neighbor-Joining Method)来构建初始树。",
    "build a UPGMA tree of the aligned sequences",
])
def test_distance_trees_are_named_not_run_as_ml(knowledge, query):
    assert "distance_trees" in {a.id for a in parse_request(query, knowledge).absent if a.kind == "analysis"}
