"""ro-crate-metadata.json (Workflow RO-Crate) beside every compiled workflow, both targets: read back
with the `rocrate` library, with the main workflow, its language, EDAM-typed inputs and results, the
plan's steps with EDAM operations and tool versions, the license, bioplan as the creator, every
emitted file, byte-identical on recompiling."""

from __future__ import annotations

import json

import pytest
from rocrate.rocrate import ROCrate

from bioplan import __version__
from bioplan.codegen import escape
from bioplan.codegen.crate import CRATE_FILE, EDAM, crate_title
from bioplan.compile import compile_request
from conftest import REFERENCE_CLASSES, example_inputs, example_request

ENTRY = {"snakemake": "workflow/Snakefile", "nextflow": "main.nf"}


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """(class, target) -> (workflow directory, CompileResult): the session's shared compiles (read-only)."""
    return {(name, target): (compiled_classes[name, target].output_dir, compiled_classes[name, target])
            for name in REFERENCE_CLASSES for target in ENTRY}


def _graph(workdir):
    return {e["@id"]: e for e in json.loads((workdir / CRATE_FILE).read_text())["@graph"]}


@pytest.mark.parametrize("target", ENTRY)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_crate_reads_back_as_a_workflow_crate(compiled, knowledge, name, target):
    workdir, res = compiled[name, target]
    crate = ROCrate(workdir)  # the library parses it and resolves every entity
    main = crate.mainEntity
    assert main.id == ENTRY[target]
    assert "ComputationalWorkflow" in main.type
    assert main["programmingLanguage"].id.endswith("#" + target)
    assert crate.root_dataset["license"].id == "https://spdx.org/licenses/MIT"
    assert crate.root_dataset["datePublished"]
    assert any(p.id == "https://w3id.org/workflowhub/workflow-ro-crate/1.1"
               for p in crate.root_dataset["conformsTo"])
    assert main["creator"].id == "#bioplan" and main["creator"]["softwareVersion"] == __version__
    # every file of the workflow is in the crate, and every file the crate names exists
    parts = {e.id for e in crate.root_dataset["hasPart"]}
    assert parts == set(res.files) - {CRATE_FILE}
    assert all((workdir / p).is_file() for p in parts)


@pytest.mark.parametrize("target", ENTRY)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_crate_describes_inputs_steps_and_results_with_edam(compiled, knowledge, name, target):
    workdir, res = compiled[name, target]
    graph = _graph(workdir)
    main = graph[ENTRY[target]]
    workflow = res.workflow
    inputs = [graph[i["@id"]] for i in main["input"]]
    outputs = [graph[o["@id"]] for o in main["output"]]
    assert len(inputs) >= len(workflow.config_inputs) and len(outputs) == len(workflow.targets)
    described = 0
    for param in inputs + outputs:
        assert param["@type"] == "FormalParameter" and param["name"] and param["description"]
        # EDAM ids exactly where the knowledge has one (GMT, a taxonomy dump have no EDAM format)
        if "additionalType" in param:
            assert param["additionalType"]["@id"].startswith(EDAM + "data_"), param
        if "encodingFormat" in param:
            assert param["encodingFormat"].startswith(EDAM + "format_"), param
            described += 1
    assert described >= len(inputs + outputs) / 2  # most are typed
    # where the knowledge has an EDAM id, the crate carries it
    for param in inputs:
        config_input = next((c for c in workflow.config_inputs if f"{c.section}.{c.key}" == param["name"]), None)
        if config_input is not None and knowledge.datatypes[config_input.datatype].edam:
            assert param["additionalType"] == {"@id": EDAM + knowledge.datatypes[config_input.datatype].edam}
    steps = [graph[s["@id"]] for s in main["step"]]
    assert [s["name"] for s in steps] == [s.id for s in workflow.steps]
    assert [s["position"] for s in steps] == list(range(1, len(steps) + 1))
    for step, entity in zip(workflow.steps, steps, strict=True):
        if step.kind == "tool":
            assert entity["additionalType"]["@id"] == EDAM + knowledge.operations[step.operation].edam
            tool = graph[entity["workExample"]["@id"]]
            assert tool["softwareVersion"] == knowledge.tools[step.tool].software.version
        else:
            assert step.guards in entity["description"]
    assert graph["./"]["description"] == escape.md(escape.request_text(workflow.query))
    assert graph["#compile"]["instrument"] == {"@id": "#bioplan"}


def test_crate_is_byte_identical_on_recompile(compiled, workspace, knowledge, tmp_path):
    first, _ = compiled["bulk_de", "snakemake"]
    again = tmp_path / "again"
    compile_request(example_request("bulk_de"), example_inputs(workspace, "bulk_de"), str(again), validate=False,
                    knowledge=knowledge)
    assert (again / CRATE_FILE).read_bytes() == (first / CRATE_FILE).read_bytes()


def test_title_is_the_request_cut_at_a_word():
    assert crate_title("short request") == "short request"
    long = "differential expression " * 10
    title = crate_title(long)
    assert len(title) <= 84 and title.endswith(" ...") and "  " not in title
    assert crate_title("  ") == "bioplan workflow"
