"""What -o means now that the Snakemake target writes the snakemake-workflows layout: -o DIR is the
workflow's directory; DIR/Snakefile and DIR/workflow/Snakefile name the same directory; another
target's entry file, '-', and an older layout's top-level Snakefile are refused with clear errors."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.codegen import escape
from bioplan.compile import compile_request, output_directory
from bioplan.errors import OutputExistsError, OutputUnwritableError, TargetUnsupportedError
from conftest import example_inputs, example_request


@pytest.mark.parametrize(("output", "target", "expected"), [
    ("out/wf", "snakemake", "out/wf"),
    ("out/wf/", "snakemake", "out/wf"),
    ("out/wf/Snakefile", "snakemake", "out/wf"),
    ("out/wf/workflow/Snakefile", "snakemake", "out/wf"),
    ("Snakefile", "snakemake", "."),
    ("workflow/Snakefile", "snakemake", "."),
    ("out/nf", "nextflow", "out/nf"),
    ("out/nf/main.nf", "nextflow", "out/nf"),
])
def test_output_names_the_workflow_directory(output, target, expected):
    from bioplan.codegen.generator import generator_class

    assert str(output_directory(output, target, generator_class(target).entry_file)) == expected


@pytest.mark.parametrize(("output", "target", "error"), [
    ("out/wf/main.nf", "snakemake", TargetUnsupportedError),
    ("out/nf/Snakefile", "nextflow", TargetUnsupportedError),
    ("-", "snakemake", OutputUnwritableError),
    ("", "snakemake", OutputUnwritableError),
])
def test_output_that_cannot_be_the_workflow_directory_is_refused(output, target, error):
    from bioplan.codegen.generator import generator_class

    with pytest.raises(error) as info:
        output_directory(output, target, generator_class(target).entry_file)
    assert info.value.hints


def test_every_spelling_of_the_directory_gives_the_same_tree(workspace, knowledge, tmp_path):
    trees = []
    for output in ("a", "b/", "c/Snakefile", "d/workflow/Snakefile"):
        res = compile_request(example_request("variants"), example_inputs(workspace, "variants"),
                              str(tmp_path / output), validate=False, knowledge=knowledge)
        assert res.snakefile == res.output_dir / "workflow" / "Snakefile" and res.snakefile.is_file()
        trees.append({str(p.relative_to(res.output_dir)): p.read_bytes() for p in sorted(res.output_dir.rglob("*"))
                      if p.is_file() and p.name != "config.yaml"})  # config.yaml: input paths differ by depth
    assert all(tree.keys() == trees[0].keys() for tree in trees)


def test_an_older_layouts_snakefile_is_never_left_to_shadow_the_new_one(workspace, knowledge, tmp_path):
    """Snakemake prefers ./Snakefile over workflow/Snakefile: a stale one from an older bioplan would run."""
    wf = tmp_path / "wf"
    wf.mkdir()
    (wf / "Snakefile").write_text("rule old:\n    output:\n        'x'\n")
    with pytest.raises(OutputExistsError) as info:
        compile_request(example_request("variants"), example_inputs(workspace, "variants"), str(wf), force=True,
                        validate=False, knowledge=knowledge)
    assert "Snakefile" in info.value.message and "workflow/Snakefile" in info.value.message
    assert sorted(p.name for p in wf.iterdir()) == ["Snakefile"]


def test_cli_reports_the_snakefile_inside_workflow(workspace, tmp_path):
    inputs = sum((["-i", f] for f in example_inputs(workspace, "variants")), [])
    result = CliRunner().invoke(main, ["compile", example_request("variants"), *inputs, "-o", str(tmp_path / "wf"),
                                       "--no-validate", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["output"] == str(tmp_path / "wf" / "workflow" / "Snakefile")
    assert "workflow/rules/common.smk" in report["files"] and "config/README.md" in report["files"]


def test_user_text_in_config_readme_and_crate_stays_data(workspace, knowledge, tmp_path):
    """Hostile file names and a request with Markdown and JSON syntax: config/README.md keeps its table
    (every row has exactly the table's pipes) and ro-crate-metadata.json reads back to the same text."""
    request = example_request("hostile") + ' | `x` | "quoted" \\ <b>**bold**</b>'
    res = compile_request(request, example_inputs(workspace, "hostile"), str(tmp_path / "wf"), validate=False,
                          knowledge=knowledge)
    readme = (res.output_dir / "config" / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    assert rows and all(len(re.findall(r"(?<!\\)\|", row)) == 4 for row in rows), rows
    assert any("touch INJECTED" in row for row in rows)  # the path is there, as text
    raw = (res.output_dir / "ro-crate-metadata.json").read_text()
    assert raw.isascii()
    root = next(e for e in json.loads(raw)["@graph"] if e["@id"] == "./")
    assert root["description"] == escape.md(escape.request_text(res.workflow.query))  # Markdown-escaped, as the README
