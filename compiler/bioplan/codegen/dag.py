"""The planned workflow as a graph of files and steps, drawn as Graphviz DOT or a Mermaid flowchart.

One graph, target-neutral, read off the Workflow IR: the inputs and references the workflow reads,
its steps (tool steps and the precondition checks that gate them) and the requested results, with an
edge wherever one reads what the other provides. `bioplan plan --emit dot` prints the DOT; the
emitted READMEs draw the Mermaid flowchart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bioplan.codegen.ir import FileRef, Workflow
from bioplan.knowledge.models import Knowledge

NodeKind = Literal["input", "reference", "check", "tool", "result"]


@dataclass(frozen=True)
class Node:
    id: str  # unique within the graph; never written unquoted into DOT or Mermaid
    label: str
    kind: NodeKind


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str], ...]  # (from node id, to node id), each once


def _source_node(ref: FileRef) -> Node:
    """The node of a file the workflow reads but no step writes."""
    if ref.kind == "config_reference":
        return Node(f"reference:{ref.path}", ref.path, "reference")
    if ref.kind == "samplesheet":
        return Node(f"samples:{ref.path}", f"samples.tsv: {ref.path}", "input")
    return Node(f"input:{ref.path}", ref.path, "input")


def workflow_graph(workflow: Workflow) -> Graph:
    """Inputs and references, then the steps in workflow order, then the requested results."""
    producer = {port.ref.path: step.id for step in workflow.steps for port in step.outputs}
    sources: dict[str, Node] = {}
    steps: list[Node] = []
    edges: dict[tuple[str, str], None] = {}  # an ordered set
    for step in workflow.steps:
        label = f"{step.id}\n{step.tool}" if step.tool else step.id
        steps.append(Node(f"step:{step.id}", label, "check" if step.kind == "check" else "tool"))
        for port in step.inputs:
            if port.ref.kind == "result" and port.ref.path in producer:
                edges[(f"step:{producer[port.ref.path]}", f"step:{step.id}")] = None
                continue
            node = sources.setdefault(_source_node(port.ref).id, _source_node(port.ref))
            edges[(node.id, f"step:{step.id}")] = None
    results = [Node(f"result:{t.path}", t.path, "result") for t in workflow.targets]
    for target, node in zip(workflow.targets, results, strict=True):
        if target.path in producer:
            edges[(f"step:{producer[target.path]}", node.id)] = None
    return Graph(tuple(sources.values()) + tuple(steps) + tuple(results), tuple(edges))


# ------------------------------------------------------------------------------------------- DOT

_DOT_SHAPES: dict[NodeKind, str] = {
    "input": 'shape=note, style=filled, fillcolor="#eef3fb"',
    "reference": 'shape=folder, style=filled, fillcolor="#f6f0e4"',
    "check": 'shape=diamond, style=filled, fillcolor="#fdf2d0"',
    "tool": 'shape=box, style="rounded,filled", fillcolor="#e6f4ea"',
    "result": 'shape=note, style="filled,bold", fillcolor="#dcefdc"',
}


def dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, line breaks as DOT's centred \\n,
    other non-printable characters as spaces (a DOT string holds no raw control characters)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif not ch.isprintable():  # controls, and U+2028/U+2029 that JavaScript (Mermaid) ends lines at
            out.append(" ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def to_dot(workflow: Workflow) -> str:
    graph = workflow_graph(workflow)
    lines = [f"digraph {dot_string(workflow.name)} {{", "    rankdir=TB;",
             '    node [fontname="Helvetica", fontsize=11];', '    edge [color="#555555"];']
    lines += [f"    {dot_string(n.id)} [label={dot_string(n.label)}, {_DOT_SHAPES[n.kind]}];" for n in graph.nodes]
    lines += [f"    {dot_string(a)} -> {dot_string(b)};" for a, b in graph.edges]
    return "\n".join(lines) + "\n}\n"


# --------------------------------------------------------------------------------------- Mermaid

_MERMAID_SHAPES: dict[NodeKind, tuple[str, str]] = {
    "input": ("[/", "/]"),
    "reference": ("[(", ")]"),
    "check": ("{", "}"),
    "tool": ("[", "]"),
    "result": ("([", "])"),
}


def mermaid_label(text: str) -> str:
    """A quoted Mermaid label: quotes, backticks and markup characters as entity codes (Mermaid's
    own escape), line breaks as <br/>, so nothing in a label can end it or the Markdown fence."""
    codes = {'"': "#quot;", "`": "#96;", "<": "#lt;", ">": "#gt;", "#": "#35;", "&": "#amp;"}
    out = []
    for ch in text:
        if ch == "\n":
            out.append("<br/>")
        elif ch in codes:
            out.append(codes[ch])
        elif not ch.isprintable():  # controls, and U+2028/U+2029 that JavaScript (Mermaid) ends lines at
            out.append(" ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def to_mermaid(workflow: Workflow) -> str:
    """A Mermaid flowchart; node ids are n1, n2, ... (labels carry the names)."""
    graph = workflow_graph(workflow)
    ids = {node.id: f"n{i}" for i, node in enumerate(graph.nodes, start=1)}
    lines = ["flowchart TD"]
    for node in graph.nodes:
        left, right = _MERMAID_SHAPES[node.kind]
        lines.append(f"    {ids[node.id]}{left}{mermaid_label(node.label)}{right}")
    lines += [f"    {ids[a]} --> {ids[b]}" for a, b in graph.edges]
    for kind in ("check", "result"):  # the checks and the results stand out
        members = [ids[n.id] for n in graph.nodes if n.kind == kind]
        if members:
            lines.append(f"    class {','.join(members)} {kind}")
    lines.append("    classDef check fill:#fdf2d0,stroke:#b08800")
    lines.append("    classDef result fill:#dcefdc,stroke:#2e7d32")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------- final results

@dataclass(frozen=True)
class Result:
    """One requested result: where it is written, by which step, and what it is."""

    path: str  # relative to the workflow directory; may hold {sample}
    step: str
    datatype: str
    format: str
    per_sample: bool
    port: str = ""  # the writing step's output port (names an output that has no datatype of its own)
    group: str | None = None  # one file per value of this sample sheet column (patient): {patient} in the path


def final_results(workflow: Workflow) -> list[Result]:
    """The workflow's targets with the step and output port that write each."""
    ports = {port.ref.path: (step.id, port) for step in workflow.steps for port in step.outputs}
    out = []
    for target in workflow.targets:
        if target.path in ports:
            step_id, port = ports[target.path]
            out.append(Result(target.path, step_id, port.datatype, port.format, target.per_sample, port.name,
                              target.group))
    return out


def result_description(knowledge: Knowledge, result: Result) -> str:
    """'Result table (Comma-separated values)': the datatype's label and the format's."""
    datatype = knowledge.datatypes.get(result.datatype)
    fmt = knowledge.formats.get(result.format)
    what = datatype.label if datatype else (result.datatype or result.port.replace("_", " "))
    return f"{what} ({fmt.label if fmt else result.format})"
