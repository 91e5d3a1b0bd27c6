"""The knowledge base: contract ids, schema and semantic checks (all problems collected), cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from bioplan.errors import InvalidKnowledgeError
from bioplan.knowledge.checks import edam_terms
from bioplan.knowledge.load import load_knowledge
from conftest import ROOT
from helpers import read_yaml, write_yaml

VOCABULARY = ROOT / "docs" / "core-vocabulary.yaml"  # the ids other programs rely on


def test_core_vocabulary_ids_are_defined_exactly(knowledge):
    vocab = yaml.safe_load(VOCABULARY.read_text())
    assert sorted(vocab) == ["constraints", "datatypes", "motifs", "operations"]
    assert all(vocab.values()), vocab  # no section emptied
    assert set(vocab["datatypes"]) <= set(knowledge.datatypes)
    assert set(vocab["operations"]) <= set(knowledge.operations)
    assert set(vocab["constraints"]) <= set(knowledge.constraints)
    assert set(vocab["motifs"]) <= set(knowledge.motifs)


def test_every_operation_has_a_real_tool_with_software_and_citation(knowledge):
    for op in knowledge.operations:
        tools = knowledge.tools_for(op)
        assert tools, op
        for t in tools:
            assert t.software.conda and t.software.container and t.software.version
            assert t.citation and t.homepage
            assert t.resources.threads >= 1 and t.resources.mem_mb > 0


@pytest.mark.parametrize("operation, alternatives", [
    ("differential_expression", {"deseq2", "pydeseq2", "edger", "limma_voom"}),
    ("read_alignment", {"hisat2", "star", "bwa_mem", "bowtie2"}),
    ("variant_annotation", {"snpeff", "bcftools_csq", "vep"}),
])
def test_real_alternatives_exist(knowledge, operation, alternatives):
    assert alternatives <= {t.id for t in knowledge.tools_for(operation)}


def test_edam_ids_are_real_and_current(knowledge):
    terms = edam_terms()
    for d in knowledge.datatypes.values():
        if d.edam:
            assert d.edam.startswith("data_") and terms.get(d.edam) is False, d.id
    for o in knowledge.operations.values():
        if o.edam:
            assert o.edam.startswith("operation_") and terms.get(o.edam) is False, o.id


@pytest.fixture()
def data_copy(tmp_path, monkeypatch):
    """A writable copy of ontology/, motifs/ and templates/ that the loader reads instead."""
    for name in ("ontology", "motifs", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    monkeypatch.setenv("BIOPLAN_DATA_ROOT", str(tmp_path))
    return tmp_path


def _edit(path: Path, fn) -> None:
    data = read_yaml(path)
    fn(data)
    write_yaml(path, data)


def test_all_problems_are_collected_with_file_and_key(data_copy):
    ops = data_copy / "ontology" / "operations.yaml"
    _edit(ops, lambda d: d["operations"]["gene_filtering"]["inputs"]["table"].update(
        datatype="differential_expresion_table"))
    _edit(ops, lambda d: d["operations"]["read_qc"].update(edam="operation_9999999"))
    _edit(data_copy / "ontology" / "tools" / "fastp.yaml", lambda d: d.update(implements="read_trimmin"))
    (data_copy / "templates" / "snakemake" / "de_rank.smk.j2").unlink()
    dts = data_copy / "ontology" / "datatypes.yaml"
    _edit(dts, lambda d: d["datatypes"].update(lonely_datatype={"label": "x", "description": "x", "scope": "cohort"}))
    with pytest.raises(InvalidKnowledgeError) as info:
        load_knowledge(use_cache=False)
    problems = "\n".join(info.value.details["problems"])
    assert "operations.yaml: operations/gene_filtering/inputs/table: unknown datatype 'differential_expresion_table'" \
           in problems and "did you mean 'differential_expression_table'" in problems
    assert "operation_9999999" in problems and "does not exist in EDAM" in problems
    assert "fastp.yaml: implements: unknown operation 'read_trimmin'" in problems
    assert "de_rank.smk.j2" in problems
    assert "datatypes/lonely_datatype: orphan datatype" in problems


def test_schema_errors_name_the_key_path(data_copy):
    _edit(data_copy / "ontology" / "tools" / "fastp.yaml", lambda d: d["resources"].update(threads="many"))
    _edit(data_copy / "ontology" / "datatypes.yaml", lambda d: d["datatypes"]["raw_reads"].update(scope="per_lane"))
    with pytest.raises(InvalidKnowledgeError) as info:
        load_knowledge(use_cache=False)
    problems = "\n".join(info.value.details["problems"])
    assert "fastp.yaml: resources/threads: 'many' is not of type 'integer'" in problems
    assert "datatypes.yaml: datatypes/raw_reads/scope" in problems


def test_cache_is_keyed_by_content(data_copy, tmp_path, monkeypatch):
    from bioplan.knowledge import load

    monkeypatch.setenv("BIOPLAN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(load, "_MEMO", {})
    first = load_knowledge()
    assert list((tmp_path / "cache" / "bioplan").glob("knowledge-*.pickle"))
    monkeypatch.setattr(load, "_MEMO", {})
    again = load_knowledge()  # from the pickle
    assert again == first
    assert again.content_hash == first.content_hash
    _edit(data_copy / "ontology" / "tools" / "fastp.yaml", lambda d: d.update(quality=0.42))
    changed = load_knowledge()
    assert changed.content_hash != first.content_hash
    assert changed.tools["fastp"].quality == 0.42
