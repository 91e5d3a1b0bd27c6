"""nf-core module paths (issue 15): modules sit at leaves only (`star/align` beside
`star/genomegenerate`, never a main.nf above another module), named tool/subtool with the subtool
written without underscores, and each process is TOOL_SUBTOOL (codegen/nf_core_names.py)."""

from __future__ import annotations

import re

import pytest

from bioplan.codegen.nf_core_names import module_name, non_leaf_modules, process_name
from bioplan.compile import compile_request
from conftest import REFERENCE_CLASSES, example_inputs, example_request


@pytest.mark.parametrize("tool, module, process", [
    ("star", "star/align", "STAR_ALIGN"),
    ("star_genome_generate", "star/genomegenerate", "STAR_GENOMEGENERATE"),
    ("bowtie2", "bowtie2/align", "BOWTIE2_ALIGN"),
    ("bowtie2_build", "bowtie2/build", "BOWTIE2_BUILD"),
    ("kraken2", "kraken2/kraken2", "KRAKEN2_KRAKEN2"),
    ("tabix_bgziptabix", "tabix/bgziptabix", "TABIX_BGZIPTABIX"),
    ("fastqc", "fastqc", "FASTQC"),
    ("table_to_csv", "table/tocsv", "TABLE_TOCSV"),
])
def test_nf_core_module_and_process_names(knowledge, tool, module, process):
    assert module_name(knowledge.tools[tool]) == module
    assert process_name(knowledge.tools[tool]) == process


def test_every_module_of_the_knowledge_is_a_leaf(knowledge):
    assert non_leaf_modules(list(knowledge.tools.values())) == []
    names = [module_name(t) for t in knowledge.tools.values()]
    assert len(names) == len(set(names)), "two tools share a module"
    assert all(re.fullmatch(r"[a-z0-9]+(/[a-z0-9]+)?", n) for n in names), names


def test_a_nested_module_is_found(knowledge):
    tools = [knowledge.tools["star_genome_generate"], knowledge.tools["star"].model_copy(update={"nf_module": None})]
    assert non_leaf_modules(tools) == ["star"]


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_emitted_modules_are_leaves_with_their_process(workspace, knowledge, name, tmp_path):
    result = compile_request(example_request(name), example_inputs(workspace, name), str(tmp_path / "main.nf"),
                             target="nextflow", knowledge=knowledge, validate=False)
    modules = sorted(p.parent.relative_to(tmp_path / "modules/local").as_posix()
                     for p in (tmp_path / "modules/local").rglob("main.nf"))
    assert not [m for m in modules if any(o.startswith(m + "/") for o in modules)], modules
    for module in modules:
        source = (tmp_path / "modules/local" / module / "main.nf").read_text()
        (process,) = re.findall(r"^process (\w+) \{", source, re.M)
        assert process == module.replace("/", "_").upper(), (module, process)
    wiring = (tmp_path / "workflows/bioplan.nf").read_text()
    for process, module in re.findall(r"^include \{ (\w+) as \w+ \} from '\.\./modules/local/([\w/]+)/main'",
                                      wiring, re.M):
        assert process == module.replace("/", "_").upper()
    assert result.workflow is not None
