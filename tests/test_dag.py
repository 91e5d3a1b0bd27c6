"""The planned workflow as a graph: `bioplan plan --emit dot` (Graphviz DOT, parsed back with pydot)
and the Mermaid flowchart of the emitted READMEs, for the five reference classes."""

from __future__ import annotations

import json

import pydot
import pytest
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.codegen.dag import dot_string, mermaid_label, to_dot, to_mermaid, workflow_graph
from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from conftest import REFERENCE_CLASSES, example_inputs, example_request

# pydot 4.0.1's parser still calls pyparsing's camelCase names, deprecated in pyparsing 3.3
pytestmark = pytest.mark.filterwarnings("ignore:'\\w+' deprecated - use:DeprecationWarning")


@pytest.fixture(scope="module")
def workflows(workspace, knowledge):
    out = {}
    for name in REFERENCE_CLASSES:
        result = plan_request(example_request(name), example_inputs(workspace, name), knowledge)
        out[name] = synthesize(knowledge, result.spec, result.plans[0])
    return out


def _parsed(dot: str) -> pydot.Dot:
    graphs = pydot.graph_from_dot_data(dot)
    assert graphs is not None and len(graphs) == 1, dot
    return graphs[0]


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_dot_parses_and_holds_every_step_and_edge(workflows, name):
    workflow = workflows[name]
    graph = _parsed(to_dot(workflow))
    node_names = {n.get_name().strip('"') for n in graph.get_nodes()} - {"node", "edge"}
    assert {f"step:{s.id}" for s in workflow.steps} <= node_names
    assert {f"result:{t.path}" for t in workflow.targets} <= node_names
    edges = {(e.get_source().strip('"'), e.get_destination().strip('"')) for e in graph.get_edges()}
    assert edges == set(workflow_graph(workflow).edges)
    # every step is reached from an input or reference, and every result from a step
    reached = {b for _, b in edges}
    assert {f"step:{s.id}" for s in workflow.steps} <= reached
    assert {f"result:{t.path}" for t in workflow.targets} <= reached
    # a check gates the step it guards
    for step in workflow.steps:
        if step.kind == "check":
            assert (f"step:{step.id}", f"step:{step.guards}") in edges


def test_dot_edges_follow_the_data(workflows):
    edges = set(workflow_graph(workflows["bulk_de"]).edges)
    assert ("step:differential_expression", "step:gene_filtering") in edges
    assert ("step:check_replicates", "step:differential_expression") in edges
    assert ("input:raw_count_matrix", "step:differential_expression") in edges
    assert not any(b.startswith("input:") for _, b in edges)  # nothing flows into an input


def test_emit_dot_cli_is_deterministic(workspace):
    args = ["plan", example_request("variants"), *sum((["-i", f] for f in example_inputs(workspace, "variants")), []),
            "--emit", "dot"]
    first = CliRunner().invoke(main, args)
    second = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    graph = _parsed(first.stdout)
    assert graph.get_type() == "digraph"


def test_labels_cannot_break_out():
    hostile = 'a"b\\c\nd\x1b[31m'
    dot = f"digraph g {{ n [label={dot_string(hostile)}]; }}"
    node = [n for n in _parsed(dot).get_nodes() if n.get_name() == "n"][0]
    assert json.loads(node.get("label").replace("\\n", "\\\\n")) == 'a"b\\c\\nd [31m'
    label = mermaid_label('x"]; click n1 call evil()`\n<b>#')
    assert label.count('"') == 2 and "`" not in label and "<b>" not in label and "\n" not in label


@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_mermaid_names_every_node_once(workflows, name):
    workflow = workflows[name]
    chart = to_mermaid(workflow)
    graph = workflow_graph(workflow)
    assert chart.startswith("flowchart TD\n")
    declared = [line for line in chart.splitlines() if line.startswith("    n") and "-->" not in line]
    assert len(declared) == len(graph.nodes)
    assert sum(1 for line in chart.splitlines() if "-->" in line) == len(graph.edges)
    for step in workflow.steps:
        assert f'"{step.id}' in chart
