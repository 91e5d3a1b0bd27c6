"""Issue 9, findings 1 and 2, reproduced: request text that ends a comment line, control
characters and bytes that are not UTF-8. Each of these tests failed before the fix (the
payload ran during bioplan's own `snakemake -n`, tracebacks, `invalid_knowledge`)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.codegen import escape
from bioplan.compile import compile_request
from bioplan.request.text import plain_request
from conftest import example_inputs

BENIGN = "mouse raw counts: differential expression with a volcano plot"
# Every character Python, YAML or Groovy may take for the end of a line
LINE_ENDS = {"CR": "\r", "NEL": "\x85", "LS": "\u2028", "PS": "\u2029", "LF": "\n", "CRLF": "\r\n"}


def payload(canary: Path) -> str:
    # `pwn: EXPR` is a YAML key and a Python annotation (which Python evaluates) at the start of a line
    return f"pwn: __import__('os').system('touch {canary}')"


def _non_string_tokens(source: str) -> list[str]:
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type != tokenize.STRING]


@pytest.mark.parametrize("line_end", list(LINE_ENDS), ids=list(LINE_ENDS))
def test_a_line_end_in_the_request_runs_nothing_in_the_snakemake_workflow(workspace, knowledge, tmp_path, line_end):
    canary = tmp_path / "X"
    query = BENIGN + LINE_ENDS[line_end] + payload(canary)
    out = tmp_path / "wf" / "Snakefile"
    # validate=True: bioplan's own pre-check runs `snakemake -n` on the emitted workflow
    # allow_partial: plan what was understood, so that the words of the payload reach the emitted
    # files (config.yaml, README) instead of stopping at a partially_understood error
    result = compile_request(query, example_inputs(workspace, "bulk_de")[:2], str(out), knowledge=knowledge,
                             allow_partial=True)
    assert not canary.exists(), "the request ran as code during the pre-check"
    workdir = result.output_dir
    dry = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "-n", "--cores", "1"], cwd=workdir,
                         capture_output=True, text=True, timeout=300)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert not canary.exists(), "the request ran as code under snakemake -n"
    # the text only ever lands inside string tokens of the Snakefile and the rule files
    for path in [workdir / "workflow" / "Snakefile", *(workdir / "workflow" / "rules").glob("*.smk")]:
        assert not [tok for tok in _non_string_tokens(path.read_text()) if "__import__" in tok or "pwn" in tok], path
    config_text = (workdir / "config" / "config.yaml").read_text()
    config = yaml.safe_load(config_text)
    assert "pwn" not in config and config["request"] == plain_request(query)
    assert "__import__" not in "".join(line for line in config_text.splitlines() if not line.startswith("request:"))
    assert not [c for c in config_text if c in "\r\x85\u2028\u2029"]


@pytest.mark.parametrize("line_end", ["\r", "\u2028", "\x85", "\n"], ids=["CR", "LS", "NEL", "LF"])
def test_a_line_end_in_the_request_keeps_nextflow_files_well_formed(workspace, knowledge, tmp_path, line_end):
    query = BENIGN + line_end + "pwn */ '; println('x') //"
    out = tmp_path / "nf" / "main.nf"
    result = compile_request(query, example_inputs(workspace, "bulk_de")[:2], str(out), target="nextflow",
                             knowledge=knowledge, allow_partial=True)
    workdir = result.output_dir
    for name in ("nextflow.config", "main.nf", "workflows/bioplan.nf", "conf/modules.config", "README.md"):
        text = (workdir / name).read_text()
        assert not [c for c in text if c in "\r\x85\u2028\u2029\x0b\x0c"], name
        assert "pwn" not in text or name in ("nextflow.config", "README.md"), name
    config = (workdir / "nextflow.config").read_text()
    lines = [line for line in config.splitlines() if "pwn" in line]
    # the request is only the manifest description: one single-quoted string, not a comment
    assert lines == ["    description = 'mouse raw counts: differential expression with a volcano plot "
                     "pwn */ \\'; println(\\'x\\') //'"], lines
    schema = json.loads((workdir / "nextflow_schema.json").read_text())
    assert schema["description"] == escape.md(plain_request(query))  # nf-core's tools render it as Markdown


def test_the_nextflow_config_of_a_hostile_request_passes_the_strict_parser(workspace, knowledge, tmp_path, nf_lint):
    query = BENIGN + "\r\u2028pwn */ '; println('x') // ${System.exit(1)} \\ {{ x }}"
    out = tmp_path / "nf" / "main.nf"
    result = compile_request(query, example_inputs(workspace, "bulk_de")[:2], str(out), target="nextflow",
                             knowledge=knowledge, allow_partial=True)
    proc = nf_lint(result.output_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("char", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x00", "\x07", "\x1b", "\x7f", "\t"],
                         ids=["VT", "FF", "FS", "GS", "RS", "NUL", "BEL", "ESC", "DEL", "TAB"])
def test_control_characters_in_the_request_compile_cleanly(workspace, tmp_path, char):
    inputs = sum((["-i", p] for p in example_inputs(workspace, "bulk_de")[:2]), [])
    query = f"mouse raw counts: differential expression{char} with a volcano plot"
    result = CliRunner().invoke(main, ["compile", query, *inputs, "-o", str(tmp_path / "wf" / "Snakefile"),
                                       "--no-validate", "--json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    config = yaml.safe_load((tmp_path / "wf" / "config" / "config.yaml").read_text())
    assert config["request"] == "mouse raw counts: differential expression with a volcano plot"
    plan = CliRunner().invoke(main, ["plan", query, *inputs, "--json"])
    assert plan.exit_code == 0, plan.output
    assert json.loads(plan.output)["query"] == query  # the plan report keeps the original


def test_a_byte_that_is_not_utf8_is_an_unreadable_input_not_invalid_knowledge(workspace, tmp_path):
    """The arguments as the entry point gets them from a UTF-8 locale (LC_ALL=C.UTF-8): Python decodes
    argv's bytes with os.fsdecode (surrogateescape, b'\\xff' -> '\\udcff'); the same strings reach the
    CLI in process (no `bioplan` process: ~0.5 CPU-s each)."""
    inputs = [arg for p in example_inputs(workspace, "bulk_de")[:2] for arg in (b"-i", os.fsencode(p))]
    for command in ([b"compile", b"differential expression \xff with DESeq2", *inputs, b"-o",
                     os.fsencode(tmp_path / "wf" / "Snakefile"), b"--json"],
                    [b"plan", b"differential expression \xff with DESeq2", *inputs, b"--json"]):
        result = CliRunner().invoke(main, [os.fsdecode(arg) for arg in command])
        assert result.exit_code == 2, result.output
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "unreadable_input", error
        assert re.search(r"not valid UTF-8 text: byte 0xff at character 25", error["message"]), error
        assert any("UTF-8" in h for h in error["hints"])
    assert not (tmp_path / "wf").exists()
