"""`ro-crate-metadata.json`: the emitted workflow described as a Workflow RO-Crate (WorkflowHub's profile).

The entities the `rocrate` library writes, built without it (see `_Graph`): the root dataset (the
request as its description, the license of bioplan's templates), the main workflow entity (its
language, and its inputs, references and results as Bioschemas FormalParameters with EDAM data and
format ids), the plan's steps in order (HowToStep, each with its EDAM operation and the tool with its
pinned version), every emitted file, and how the crate was made (a CreateAction whose instrument is
bioplan at its version). Deterministic: the same workflow gives the same bytes (no clock: the
publication date is bioplan's release date, see `RELEASE_DATE`, which a registry replaces when the
crate is published).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from json.encoder import encode_basestring_ascii
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from bioplan import __version__
from bioplan.codegen import escape
from bioplan.codegen.ir import FileRef, IOPort, Workflow
from bioplan.knowledge.models import Knowledge

CRATE_FILE = "ro-crate-metadata.json"
EDAM = "http://edamontology.org/"
# The license of the templates and scripts the workflow is made of (bioplan's LICENSE). A user who
# publishes the workflow under another license changes it here and in README.md.
LICENSE = {"@id": "https://spdx.org/licenses/MIT", "@type": "CreativeWork", "name": "MIT License",
           "identifier": "MIT"}
# datePublished is required on the root; a compile has no honest date of publication and must be
# byte-identical run to run, so the crate carries the date of the bioplan release that wrote it.
RELEASE_DATE = "2026-12-01"
FORMAL_PARAMETER = "https://bioschemas.org/profiles/FormalParameter/1.0-RELEASE"
COMPUTATIONAL_WORKFLOW = "https://bioschemas.org/profiles/ComputationalWorkflow/1.0-RELEASE"
# the rocrate library's language ids for the targets
LANGUAGES = {"snakemake": "snakemake", "nextflow": "nextflow"}


@dataclass(frozen=True)
class Parameter:
    """One input, reference or result of the workflow, as the crate describes it."""

    id: str
    name: str
    description: str
    datatype: str
    format: str
    required: bool = True


def crate_title(request: str, limit: int = 80) -> str:
    """The crate's title (a registry lists it): the request, cut at a word within `limit` characters."""
    text = " ".join(request.split())
    if len(text) <= limit:
        return text or "bioplan workflow"
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + " ..."


def _edam(term: str | None) -> dict[str, str] | None:
    return {"@id": EDAM + term} if term else None


@functools.cache
def _lang_version(target: str) -> str | None:
    """The pinned version of the target's engine where bioplan installs it (Snakemake), looked up once
    per process (~1 ms: importlib.metadata reads the installed distributions)."""
    try:
        return package_version(target)
    except PackageNotFoundError:
        return None


def _port_of(workflow: Workflow, ref: FileRef) -> IOPort | None:
    """The port that reads (config inputs, sample sheet columns) or writes (results) `ref`."""
    for step in workflow.steps:
        for port in (*step.outputs, *step.inputs):
            if port.ref.kind == ref.kind and port.ref.path == ref.path:
                return port
    return None


def workflow_parameters(workflow: Workflow) -> tuple[list[Parameter], list[Parameter]]:
    """(inputs, outputs): config inputs and references, sample sheet columns; the requested results."""
    inputs: list[Parameter] = []
    for c in workflow.config_inputs:
        ref = FileRef(kind="config_input" if c.section == "inputs" else "config_reference", path=c.key)
        port = _port_of(workflow, ref)
        inputs.append(Parameter(f"#param-{c.section}-{c.key}", f"{c.section}.{c.key}",
                                f"config/config.yaml {c.section}.{c.key}: {c.hint}".strip(),
                                c.datatype, c.format or (port.format if port else "")))
    for column in workflow.sample_columns[1:]:
        port = _port_of(workflow, FileRef(kind="samplesheet", path=column))
        if port is not None:
            inputs.append(Parameter(f"#param-samples-{column}", f"samples.{column}",
                                    f"config/samples.tsv column {column}: one file per sample",
                                    port.datatype, port.format))
    outputs: list[Parameter] = []
    for target in workflow.targets:
        port = _port_of(workflow, target.model_copy(update={"gathered": False}))
        if port is not None:
            outputs.append(Parameter(f"#result-{target.path}", target.path, "a requested result",
                                     port.datatype, port.format))
    return inputs, outputs


def _parameter_entity(knowledge: Knowledge, p: Parameter) -> dict[str, Any]:
    datatype = knowledge.datatypes.get(p.datatype)
    fmt = knowledge.formats.get(p.format)
    props: dict[str, Any] = {
        "@type": "FormalParameter",
        "conformsTo": {"@id": FORMAL_PARAMETER},
        "name": p.name,
        "description": p.description,
        "valueRequired": p.required,
    }
    if datatype is not None and datatype.edam:
        props["additionalType"] = _edam(datatype.edam)
    if fmt is not None and fmt.edam:
        props["encodingFormat"] = EDAM + fmt.edam
    return props


def _tool_entity(knowledge: Knowledge, tool_id: str) -> dict[str, Any]:
    tool = knowledge.tools[tool_id]
    props: dict[str, Any] = {"@type": "SoftwareApplication", "name": tool.name,
                             "softwareVersion": tool.software.version, "url": tool.homepage,
                             "description": tool.description}
    if tool.biotools:
        props["identifier"] = f"https://bio.tools/{tool.biotools}"
    if tool.doi:
        props["citation"] = {"@id": f"https://doi.org/{tool.doi}"}
    return props


def _step_entities(knowledge: Knowledge, workflow: Workflow) -> Iterable[tuple[str, dict[str, Any]]]:
    for position, step in enumerate(workflow.steps, start=1):
        props: dict[str, Any] = {"@type": "HowToStep", "name": step.id, "position": position}
        if step.kind == "check":
            constraint = knowledge.constraints.get(step.constraint or "")
            what = constraint.label if constraint is not None else step.constraint
            props["description"] = f"checks {what} before {step.guards} runs (stops the run when it does not hold)"
            props["workExample"] = {"@id": "#bioplan"}
        else:
            operation = knowledge.operations.get(step.operation or "")
            if operation is not None:
                props["description"] = operation.label
                if operation.edam:
                    props["additionalType"] = _edam(operation.edam)
            if step.tool:
                props["workExample"] = {"@id": f"#tool-{step.tool}"}
        yield f"#step-{step.id}", props


# What the `rocrate` library (0.16) writes for a crate made as `crate_metadata` describes it, built here
# without it: importing the library (and `requests`, `dateutil` with it) cost ~0.3 s of every compile,
# and its entities (each id resolved against a URI with `urljoin`) ~6 ms a crate. The bytes are the
# library's (tests/test_crate.py builds the crate of each reference workflow with the library too).
CRATE_CONTEXT = "https://w3id.org/ro/crate/1.3/context"
CRATE_PROFILE = "https://w3id.org/ro/crate/1.3"
WORKFLOW_CRATE_PROFILE = ("https://w3id.org/workflowhub/workflow-ro-crate/1.1", "1.1")
LANGUAGE_ENTITIES = {
    "snakemake": ("https://w3id.org/workflowhub/workflow-ro-crate#snakemake", "Snakemake",
                  "https://doi.org/10.1093/bioinformatics/bts480", "https://snakemake.readthedocs.io"),
    "nextflow": ("https://w3id.org/workflowhub/workflow-ro-crate#nextflow", "Nextflow",
                 "https://www.nextflow.io/", "https://www.nextflow.io/"),
}
_BASE = "arcp://uuid,00000000-0000-0000-0000-000000000000/"


@functools.lru_cache(maxsize=4096)
def _canonical(entity_id: str) -> str:
    """The id under which the library keeps an entity (one id, one entity: a later one replaces it)."""
    return (entity_id if urlsplit(entity_id).scheme else urljoin(_BASE, entity_id)).rstrip("/")


class _Graph:
    """The crate's entities in the order first added; an entity added under a known id replaces it."""

    def __init__(self) -> None:
        self.entities: dict[str, dict[str, Any]] = {}
        self.root: dict[str, Any] = {"@id": "./", "@type": "Dataset", "datePublished": RELEASE_DATE}
        self.add(self.root)
        self.add({"@id": CRATE_FILE, "@type": "CreativeWork", "conformsTo": {"@id": CRATE_PROFILE},
                  "about": {"@id": "./"}})

    def add(self, entity: dict[str, Any]) -> dict[str, str]:
        self.entities[_canonical(entity["@id"])] = entity
        return {"@id": entity["@id"]}

    def context(self, entity_id: str, props: Mapping[str, Any]) -> dict[str, str]:
        """A contextual entity: its @-keys as given, its other values with entity references as {"@id"}."""
        entity: dict[str, Any] = {"@id": entity_id, "@type": "Thing"}
        entity.update(props)
        return self.add(entity)

    def data(self, entity: dict[str, Any]) -> dict[str, str]:
        """A file of the crate: listed in the root's hasPart when its id is new."""
        if _canonical(entity["@id"]) not in self.entities:
            self.root.setdefault("hasPart", []).append({"@id": entity["@id"]})
        return self.add(entity)

    def json(self) -> str:
        return json_text({"@context": CRATE_CONTEXT, "@graph": list(self.entities.values())}) + "\n"


def json_text(value: Any, newline: str = "\n") -> str:
    """`json.dumps(value, indent=2, ensure_ascii=True)`, the same text for str-keyed JSON data, without
    the generator-based encoder json falls back to for any indent (~3 ms of a crate): strings by json's
    own C escaper, numbers and constants by `json.dumps`."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, (list, tuple, dict)):
        if not value:
            return "{}" if isinstance(value, dict) else "[]"
        inner = newline + "  "
        if isinstance(value, dict):
            items = [f"{encode_basestring_ascii(_json_key(k))}: {json_text(v, inner)}" for k, v in value.items()]
            return "{" + inner + ("," + inner).join(items) + newline + "}"
        return "[" + inner + ("," + inner).join([json_text(v, inner) for v in value]) + newline + "]"
    return json.dumps(value)


def _json_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a JSON object key must be a str here, not {type(key).__name__}")
    return key


def crate_metadata(knowledge: Knowledge, workflow: Workflow, files: Mapping[str, object], target: str,
                   entry: str) -> str:
    """The JSON text of `ro-crate-metadata.json` for the emitted `files` (paths relative to the crate
    root, the workflow directory), whose main workflow is `entry` in `target`'s language."""
    graph = _Graph()
    root = graph.root
    # the request as the READMEs show it (one line, no invisible format characters or bidi overrides, lookalike
    # letters as the Latin ones the plan read), not the raw text; registries (WorkflowHub) render the
    # description as Markdown, so it is Markdown-escaped like the README's (no links, HTML or autolinks)
    shown = str(escape.request_text(workflow.query))
    root["name"] = crate_title(shown)
    root["description"] = escape.md(shown)
    root["license"] = graph.context(LICENSE["@id"], {k: v for k, v in LICENSE.items() if k != "@id"})
    bioplan = graph.context("#bioplan", {
        "@type": "SoftwareApplication", "name": "bioplan", "softwareVersion": __version__,
        "description": "a deterministic workflow compiler for bioinformatics (request + input files -> workflow)"})

    inputs, outputs = workflow_parameters(workflow)
    main_id = _file_id(entry)
    main: dict[str, Any] = {"@id": main_id, "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow"],
                            "name": f"{workflow.name} ({target})", "conformsTo": {"@id": COMPUTATIONAL_WORKFLOW}}
    graph.data(main)
    main["programmingLanguage"] = _language(graph, target)
    root["mainEntity"] = {"@id": main_id}
    profile, profile_version = WORKFLOW_CRATE_PROFILE
    if _canonical(profile) not in graph.entities:
        root.setdefault("conformsTo", []).append(graph.context(profile, {
            "@type": ["CreativeWork", "Profile"], "name": "Workflow RO-Crate", "version": profile_version}))
    main["input"] = [graph.context(p.id, _parameter_entity(knowledge, p)) for p in inputs]
    main["output"] = [graph.context(p.id, _parameter_entity(knowledge, p)) for p in outputs]
    main["creator"] = bioplan
    tools = sorted({s.tool for s in workflow.steps if s.tool})
    for tool in tools:
        graph.context(f"#tool-{tool}", _tool_entity(knowledge, tool))
    main["step"] = [graph.context(sid, props) for sid, props in _step_entities(knowledge, workflow)]
    main["softwareRequirements"] = [{"@id": f"#tool-{t}"} for t in tools]

    for path in sorted(files):
        if path not in (entry, CRATE_FILE):
            graph.data({"@id": _file_id(path), "@type": "File"})
    graph.context("#compile", {
        "@type": "CreateAction", "name": "bioplan compile",
        "description": f"compiled by bioplan {__version__} from the request and the input files",
        "instrument": {"@id": "#bioplan"}, "result": {"@id": entry}, "object": [{"@id": p.id} for p in inputs]})
    return graph.json()


def _file_id(path: str) -> str:
    """A file's id: its relative POSIX path, percent-encoded as a URI path."""
    return quote(PurePosixPath(path).as_posix())


def _language(graph: _Graph, target: str) -> dict[str, str]:
    entity_id, name, identifier, url = LANGUAGE_ENTITIES[target]
    props: dict[str, Any] = {"@type": "ComputerLanguage", "name": name, "identifier": {"@id": identifier},
                             "url": {"@id": url}}
    version = _lang_version(target)
    if version:
        props["version"] = version
    return graph.context(entity_id, props)
