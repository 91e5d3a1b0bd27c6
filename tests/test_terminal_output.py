"""What bioplan prints on a terminal never carries control sequences from user text (issue 9).

A request or a file name holding ESC (ANSI CSI), the 8-bit CSI U+009B or a bidi override would
otherwise clear the screen, hide lines or reorder what the user reads; the CLI shows them as
visible \\uXXXX escapes, in text and JSON output alike (JSON stays parseable).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.request.text import terminal_safe
from conftest import example_inputs

HOSTILE = "\x1b[2J\x1b[1;31m\u009b2J\u202e"


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x7f", "\u009b", "\u0085", "\u202e", "\u200e", "\u200f", "\u061c"])
def test_terminal_safe_escapes_each_control(char):
    out = terminal_safe(f"a{char}b\nc\td")
    assert char not in out and f"\\u{ord(char):04x}" in out
    assert out.endswith("b\nc\td")  # newlines and tabs are layout, kept


def test_plan_text_report_and_errors_show_controls_escaped(workspace):
    counts = example_inputs(workspace, "bulk_de")
    runner = CliRunner()
    result = runner.invoke(main, ["plan", f"mouse raw counts: differential expression {HOSTILE}", *sum(
        (["-i", p] for p in counts), [])])
    assert result.exit_code == 0, result.output
    assert not any(c in result.output for c in "\x1b\u009b\u202e")
    assert "\\u001b[2J" in result.output
    missing = runner.invoke(main, ["plan", "differential expression", "-i", f"no{HOSTILE}such.csv"])
    assert missing.exit_code == 2
    assert not any(c in missing.output for c in "\x1b\u009b\u202e")
    as_json = runner.invoke(main, ["plan", "differential expression", "-i", f"no{HOSTILE}such.csv", "--json"])
    assert as_json.exit_code == 2
    assert "\u009b" not in as_json.stdout
    assert json.loads(as_json.stdout)["error"]["code"] == "unreadable_input"
