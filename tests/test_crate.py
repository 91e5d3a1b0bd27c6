"""ro-crate-metadata.json (Workflow RO-Crate) beside every compiled workflow, both targets: read back
with the `rocrate` library, with the main workflow, its language, EDAM-typed inputs and results, the
plan's steps with EDAM operations and tool versions, the license, bioplan as the creator, every
emitted file, byte-identical on recompiling."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bioplan import __version__
from bioplan.codegen import crate as crate_module
from bioplan.codegen import escape
from bioplan.codegen.crate import CRATE_FILE, EDAM, crate_metadata, crate_title, json_text
from bioplan.compile import compile_request
from conftest import REFERENCE_CLASSES, example_inputs, example_request, examples

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
    from rocrate.rocrate import ROCrate  # imported by the tests that use it, not at each worker's collection

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


def library_crate(knowledge, workflow, files, target: str, entry: str) -> str:
    """The crate as the `rocrate` library builds it (how codegen/crate.py built it until it wrote the
    same entities itself, without importing the library): the reference for its bytes."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    crate = ROCrate(gen_preview=False)
    root = crate.root_dataset
    shown = str(escape.request_text(workflow.query))
    root["name"] = crate_title(shown)
    root["description"] = escape.md(shown)
    root["datePublished"] = crate_module.RELEASE_DATE
    license_ = crate_module.LICENSE
    root["license"] = crate.add(ContextEntity(crate, license_["@id"],
                                              {k: v for k, v in license_.items() if k != "@id"}))
    bioplan = crate.add(ContextEntity(crate, "#bioplan", {
        "@type": "SoftwareApplication", "name": "bioplan", "softwareVersion": __version__,
        "description": "a deterministic workflow compiler for bioinformatics (request + input files -> workflow)"}))
    inputs, outputs = crate_module.workflow_parameters(workflow)
    main = crate.add_workflow(None, entry, main=True, lang=target, lang_version=crate_module._lang_version(target),
                              properties={"name": f"{workflow.name} ({target})",
                                          "conformsTo": {"@id": crate_module.COMPUTATIONAL_WORKFLOW}})
    entity = crate_module._parameter_entity
    main["input"] = [crate.add(ContextEntity(crate, p.id, entity(knowledge, p))) for p in inputs]
    main["output"] = [crate.add(ContextEntity(crate, p.id, entity(knowledge, p))) for p in outputs]
    main["creator"] = bioplan
    tools = sorted({s.tool for s in workflow.steps if s.tool})
    for tool in tools:
        crate.add(ContextEntity(crate, f"#tool-{tool}", crate_module._tool_entity(knowledge, tool)))
    main["step"] = [crate.add(ContextEntity(crate, sid, props))
                    for sid, props in crate_module._step_entities(knowledge, workflow)]
    main["softwareRequirements"] = [{"@id": f"#tool-{t}"} for t in tools]
    for path in sorted(files):
        if path not in (entry, CRATE_FILE):
            crate.add_file(None, dest_path=path)
    crate.add(ContextEntity(crate, "#compile", {
        "@type": "CreateAction", "name": "bioplan compile",
        "description": f"compiled by bioplan {__version__} from the request and the input files",
        "instrument": {"@id": "#bioplan"}, "result": {"@id": entry}, "object": [{"@id": p.id} for p in inputs]}))
    return json.dumps(crate.metadata.generate(), indent=2, ensure_ascii=True) + "\n"


@pytest.mark.parametrize("target", ENTRY)
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_the_crate_has_the_bytes_the_rocrate_library_writes(compiled, knowledge, name, target):
    """codegen/crate.py writes the crate's entities itself: the same bytes as the library's, for the
    workflow's files and for file names it must percent-encode or that name one file twice."""
    workdir, res = compiled[name, target]
    files = dict.fromkeys(res.files)
    expected = library_crate(knowledge, res.workflow, files, target, ENTRY[target])
    assert (workdir / CRATE_FILE).read_text() == expected
    odd = dict.fromkeys([*files, "docs/a b#c?.txt", "données/ü.tsv", "x/./y.txt", "x/y.txt", "x//z.txt", "x/z.txt/",
                         "q/../r.txt", "r.txt", "%41.txt", "A.txt"])
    assert crate_metadata(knowledge, res.workflow, odd, target, ENTRY[target]) == library_crate(
        knowledge, res.workflow, odd, target, ENTRY[target])


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=examples(500), deadline=None)
@given(JSON_DATA)
def test_the_crate_json_is_the_text_json_dumps_writes(value):
    """crate.json_text, the crate's writer: json.dumps(indent=2, ensure_ascii=True)'s text for any JSON data
    (any string, empty and nested lists, tuples and objects, NaN and infinities as json writes them)."""
    assert json_text(value) == json.dumps(value, indent=2, ensure_ascii=True)
