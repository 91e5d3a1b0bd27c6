"""The escaping filters (bioplan.codegen.escape) and the rule that every template expression
carrying user-derived text goes through one (templates/README.md, SECURITY.md)."""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import shlex
import subprocess
import tokenize
import unicodedata
from pathlib import Path

import jinja2
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import nodes

from bioplan.codegen import escape
from bioplan.codegen.generator import EmitOptions
from bioplan.codegen.ir import ConfigInput, Workflow
from bioplan.errors import EmptyQueryError, InvalidOptionError, UnreadableInputError
from bioplan.request.text import clean_request_text
from conftest import examples

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"

# Every separator str.splitlines() knows, other controls, quotes, braces, Jinja syntax, comment closers
HOSTILE = [
    "a\nb", "a\rb", "a\r\nb", "a\vb", "a\fb", "a\x1cb", "a\x1db", "a\x1eb", "a\x85b", "a\u2028b", "a\u2029b",
    "a\x00b", "a\x07b", "a\x1bb", "a\x7fb", "a\u200bb", "\ufeffa", "a\u202eb", "a\tb",
    "it's", 'say "x"', "back\\slash", "\\", "\\'", '\\"', "{{ x }}", "{% if x %}", "{sample}", "${HOME}",
    "$(touch X)", "`id`", "'; touch X; '", "*/ touch X /*", "# not a comment", "--force", "-", "",
    "中文 请求：差异表达", "emoji 🧬", "\U0001f9ec\u2028x", "e\u0301", "\u00a0nbsp", "\ue000private",
]


# ----------------------------------------------------------------------------- request text
@pytest.mark.parametrize("separator", ["\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_every_line_separator_becomes_a_space(separator):
    assert ("a" + separator + "b").splitlines() == ["a", "b"]  # the premise: Python splits here
    assert clean_request_text(f"a{separator}b") == "a b"


def test_request_text_is_nfc_one_line_without_controls_or_bidi_overrides():
    assert clean_request_text("cafe\u0301  \t x\x00y\u202e z ") == "caf\u00e9 x y z"
    assert clean_request_text("差异表达\u3000分析") == "差异表达\u3000分析"  # ideographic space is text
    for text in HOSTILE:
        cleaned = clean_request_text(text)
        assert len(cleaned.splitlines()) <= 1, repr(text)
        # format characters such as U+200D (emoji, Indic scripts) stay; controls and separators do not
        assert not [c for c in cleaned if unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in "\u202a\u202e"]


def test_bytes_that_were_not_utf8_are_an_unreadable_input():
    with pytest.raises(UnreadableInputError, match=r"byte 0xff at character 3"):
        clean_request_text("ab\udcffcd")


def test_a_request_of_control_characters_only_is_empty(knowledge):
    from bioplan.request.parse import parse_request

    with pytest.raises(EmptyQueryError):
        parse_request("\r\n\v\u2028\x00", knowledge)


def test_the_plan_report_keeps_the_original_request(knowledge):
    from bioplan.request.parse import parse_request

    request = parse_request("differential expression\u2028with DESeq2", knowledge)
    assert request.query == "differential expression\u2028with DESeq2"
    assert "\u2028" not in request.normalized and "differential_expression" in request.operations


# ----------------------------------------------------------------------------- one filter per context
@pytest.mark.parametrize("text", HOSTILE)
def test_python_literal_round_trips_as_one_string_token(text):
    literal = escape.py(text)
    assert ast.literal_eval(literal) == text
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(f"x = {literal}\n").readline)
              if t.type not in (tokenize.NEWLINE, tokenize.ENDMARKER)]
    assert [t.type for t in tokens] == [tokenize.NAME, tokenize.OP, tokenize.STRING]
    assert literal.isprintable()


@pytest.mark.parametrize("text", HOSTILE)
def test_yaml_scalar_round_trips_on_one_line(text):
    literal = escape.yaml(text)
    assert literal.isprintable()
    assert yaml.safe_load(f"key: {literal}\nother: 1\n") == {"key": text, "other": 1}


@pytest.mark.parametrize("value", [0.05, 1e-05, 3, True, False, None, ["a", "b'c"], {"k": "v\n"}, float("inf")])
def test_yaml_and_python_literals_of_other_values(value):
    assert yaml.safe_load(f"key: {escape.yaml(value)}\n") == {"key": value}
    if value != float("inf"):
        assert ast.literal_eval(escape.py(value)) == value


def _groovy_single_quoted(literal: str) -> str:
    """Decode a Groovy single-quoted string: the whole literal must be one string token."""
    assert literal[0] == literal[-1] == "'"
    out, i, body = [], 0, literal[1:-1]
    simple = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"', "$": "$"}
    while i < len(body):
        c = body[i]
        assert c not in "'\n\r", f"unescaped {c!r} ends the string in {literal!r}"
        if c == "\\":
            nxt = body[i + 1]
            if nxt == "u":
                out.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(simple[nxt])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


@pytest.mark.parametrize("text", HOSTILE)
def test_groovy_string_is_single_quoted_and_round_trips(text):
    literal = escape.groovy(text)
    assert literal.isprintable() and "${" not in literal.replace("\\$", "") or "$" in text
    assert _groovy_single_quoted(literal) == text


def test_groovy_literals_of_other_values():
    assert escape.groovy(["a", 1, None, True]) == "['a', 1, null, true]"
    assert escape.groovy({"k": "it's"}) == "['k': 'it\\'s']"
    assert escape.groovy({}) == "[:]"


@pytest.mark.parametrize("text", [t for t in HOSTILE if "\x00" not in t])
def test_shell_word_is_one_argument(text):
    word = escape.shell(text)
    assert shlex.split(word) == [text] if text else word == "''"
    out = subprocess.run(["sh", "-c", f"printf %s {word}"], capture_output=True, check=True).stdout
    assert out.decode("utf-8", "surrogateescape") == text


@pytest.mark.parametrize("text", HOSTILE)
def test_json_value_round_trips_and_is_printable(text):
    literal = escape.json_value(text)
    assert literal.isprintable() and json.loads(literal) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_stays_one_line_of_literal_text(text):
    out = escape.md(text)
    assert len(out.splitlines()) <= 1 and not [c for c in out if unicodedata.category(c) in ("Cc", "Zl", "Zp")]
    for opener in ("<", "`", "*", "_", "[", "|", "&"):
        assert out.count(opener) == out.count("\\" + opener), (text, out)


def test_markdown_block_starts_are_escaped():
    assert escape.md("# heading") == "\\# heading"
    assert escape.md("- item") == "\\- item"
    assert escape.md("1. first") == "1\\. first"
    assert escape.md("> quote") == "\\> quote"


@pytest.mark.parametrize("rows", [[["sample", "path"], ["a\tb", 'q"uote'], ["line\nbreak", "cr\rx"],
                                   ["sep\u2028x", "plain"]]])
@pytest.mark.parametrize("delimiter", ["\t", ","])
def test_delimited_rows_read_back(rows, delimiter):
    import pandas as pd

    text = escape.delimited(rows, delimiter)
    frame = pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False)
    assert [list(frame.columns)] + frame.values.tolist() == rows
    assert list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)) == rows


def test_a_nul_in_a_sample_sheet_value_is_refused():
    with pytest.raises(UnreadableInputError, match="NUL"):
        escape.delimited([["sample"], ["a\0b"]], "\t")


@pytest.mark.parametrize("f", [escape.py, escape.yaml, escape.groovy, escape.shell, escape.json_value, escape.md])
def test_text_that_was_not_utf8_is_refused_by_every_filter(f):
    with pytest.raises(UnreadableInputError):
        f("name\udcff")


@pytest.mark.parametrize("value", ["debug\n#SBATCH --wrap=id", "gpu\r", "a\u2028b", "\x00", "  "])
@pytest.mark.parametrize("option", ["partition", "account"])
def test_slurm_names_that_would_break_a_job_script_line_are_refused(value, option):
    with pytest.raises(InvalidOptionError, match="--partition|--account"):
        escape.refuse_broken_slurm_settings(EmitOptions(**{option: value}))
    escape.refuse_broken_slurm_settings(EmitOptions(partition="it's\"x\"$(y)", account="a,b"))


# ----------------------------------------------------------------------------- finalize
def _workflow(**update) -> Workflow:
    base = dict(name="w", query="q", layout=None, organism=None, steps=(), targets=(), config_inputs=(),
                params={}, software=(), samples=(), sample_columns=("sample",), condition_column=None,
                scripts=(), has_samples=False)
    return Workflow(**{**base, **update})


def test_user_text_without_a_filter_stops_the_render():
    env = escape.environment(jinja2.DictLoader({
        "raw": "{{ workflow.query }}", "replaced": "{{ workflow.query | replace('x', 'y') | yaml }}",
        "path": "{% for c in workflow.config_inputs %}{{ c.path }}{% endfor %}",
        "sample": "{% for row in workflow.samples %}{{ row.sample }}{% endfor %}",
        "filtered": "{{ workflow.query | yaml }} {{ workflow.samples[0].sample | py }}",
    }))
    workflow = escape.mark_user_text(_workflow(
        query="q\u2028pwn: 1", samples=({"sample": "s'1"},),
        config_inputs=(ConfigInput(key="k", datatype="d", section="inputs", path="p\r", format=None, hint="h"),)))
    for name in ("raw", "path", "sample"):
        with pytest.raises(escape.UnescapedUserTextError):
            env.get_template(name).render(workflow=workflow)
    assert env.get_template("filtered").render(workflow=workflow) == '"q\\u2028pwn: 1" "s\'1"'
    env.get_template("replaced").render(workflow=workflow)  # filtered last: fine


def test_tool_parameter_values_from_the_inputs_stop_an_unfiltered_render():
    """params is knowledge's defaults, but some values come from the inputs (an AnnData clustering column as
    cluster_key, the sample sheet's normals as normal_samples): every string value is marked, so a template
    writing one without a filter stops the render as a sample name would (names and numbers stay plain)."""
    env = escape.environment(jinja2.DictLoader({
        "raw": "{% for t, p in workflow.params.items() %}{{ p.cluster_key }}{% endfor %}",
        "filtered": "{% for t, p in workflow.params.items() %}{{ t }}_{{ p.cluster_key | groovy }} "
                    "{{ p.n }}{% endfor %}"}))
    workflow = escape.mark_user_text(_workflow(params={"scanpy_umap": {"cluster_key": "x' $(y)", "n": 3}}))
    assert isinstance(workflow.params["scanpy_umap"]["cluster_key"], escape.UserText)
    with pytest.raises(escape.UnescapedUserTextError):
        env.get_template("raw").render(workflow=workflow)
    assert env.get_template("filtered").render(workflow=workflow) == "scanpy_umap_'x\\' $(y)' 3"


def test_every_user_derived_workflow_field_is_marked():
    """A new Workflow field must be classified: user-derived (marked, filtered) or bioplan's own."""
    bioplan_fields = {"name", "layout", "organism", "steps", "targets", "config_inputs", "params", "software",
                      "sample_columns", "scripts", "has_samples", "max_threads", "max_mem_mb", "max_runtime",
                      "references", "genome_build", "genome_build_default", "fetch_references",
                      "meta_columns"}  # meta_columns: bioplan's names (patient, status); their values are in samples
    unclassified = set(Workflow.model_fields) - bioplan_fields - set(escape.USER_FIELDS)
    assert not unclassified, f"classify these Workflow fields in bioplan.codegen.escape.USER_FIELDS: {unclassified}"
    marked = escape.mark_user_text(_workflow(query="q", samples=({"sample": "s", "fastq_1": "f"},),
                                             condition_column="c"))
    assert all(isinstance(x, escape.UserText) for x in (
        marked.query, marked.samples[0]["sample"], marked.samples[0]["fastq_1"], marked.condition_column))
    # the scheduler settings reach templates as `cluster`, from the emit options
    cluster = escape.mark_options(EmitOptions(partition="p", account="a"))
    assert set(cluster) == set(escape.USER_OPTION_FIELDS) == set(EmitOptions.__dataclass_fields__)
    assert all(isinstance(v, escape.UserText) for v in cluster.values())


# ----------------------------------------------------------------------------- the template scan
# What a template may reach that holds user text: these attributes of any object (workflow.query,
# c.path, row.sample ...) and these top-level names; loop variables over them inherit it.
USER_ATTRIBUTES = frozenset(escape.USER_FIELDS) | frozenset(escape.USER_OPTION_FIELDS) | {"path", "sample"}
USER_NAMES = frozenset({"request"})


def _user_derived(node: nodes.Node, tainted: set[str]) -> bool:
    for sub in [node, *node.find_all((nodes.Getattr, nodes.Name, nodes.Getitem))]:
        # a FileRef's path (`port.ref.path`) is the IR's own result pattern, not a user's file
        if (isinstance(sub, nodes.Getattr) and sub.attr in USER_ATTRIBUTES
                and not (sub.attr == "path" and isinstance(sub.node, nodes.Getattr) and sub.node.attr == "ref")):
            return True
        if isinstance(sub, nodes.Name) and (sub.name in USER_NAMES or sub.name in tainted):
            return True
        if isinstance(sub, nodes.Getitem) and isinstance(sub.arg, nodes.Const) and sub.arg.value in USER_ATTRIBUTES:
            return True
    return False


def unfiltered_user_expressions(source: str, env: jinja2.Environment) -> list[str]:
    """The `{{ }}` expressions of a template that carry user text without a context filter last."""
    tree = env.parse(source)
    tainted: set[str] = set()
    changed = True
    while changed:  # loop variables and {% set %} names bound to user text carry it too
        changed = False
        for binding in [*tree.find_all(nodes.For), *tree.find_all(nodes.Assign)]:
            value = binding.iter if isinstance(binding, nodes.For) else binding.node
            if _user_derived(value, tainted):
                for name in binding.target.find_all(nodes.Name) if not isinstance(binding.target, nodes.Name) \
                        else [binding.target]:
                    if name.name not in tainted:
                        tainted.add(name.name)
                        changed = True
    bad = []
    for output in tree.find_all(nodes.Output):
        for expr in output.nodes:
            if isinstance(expr, nodes.TemplateData) or not _user_derived(expr, tainted):
                continue
            if not (isinstance(expr, nodes.Filter) and expr.name in escape.CONTEXT_FILTERS):
                bad.append(f"line {expr.lineno}: {source.splitlines()[expr.lineno - 1].strip()}")
    return bad


def test_the_scan_finds_unfiltered_user_text():
    env = escape.environment(jinja2.DictLoader({}))
    assert unfiltered_user_expressions('# {{ workflow.query | replace("\\n", " ") }}', env)
    assert unfiltered_user_expressions("{% for c in workflow.config_inputs %}{{ c.path }}{% endfor %}", env)
    assert unfiltered_user_expressions("{% for r in workflow.samples %}{{ r['sample'] }}{% endfor %}", env)
    assert unfiltered_user_expressions("{% set q = workflow.query %}{{ q }}", env)
    assert unfiltered_user_expressions("{{ request | md | replace('a', 'b') }}", env)
    assert not unfiltered_user_expressions("{{ request | md }} {{ (c.path or 'x') | yaml }} {{ step.rule }}", env)
    assert not unfiltered_user_expressions("{% set n = step.outputs[0].ref.path %}{{ n }}", env)


def test_every_template_filters_user_text():
    env = escape.environment(jinja2.FileSystemLoader(str(TEMPLATES)))
    found = {}
    templates = sorted(TEMPLATES.rglob("*.j2"))
    assert len(templates) > 100
    for path in templates:
        bad = unfiltered_user_expressions(path.read_text(encoding="utf-8"), env)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, "user text without a context filter (see templates/README.md):\n" + json.dumps(found, indent=2)


def test_no_template_writes_user_text_into_a_comment():
    """Not even filtered: in a comment, user text is prose a reader may take for bioplan's."""
    env = escape.environment(jinja2.DictLoader({}))
    for path in sorted(TEMPLATES.rglob("*.j2")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.strip()
            if not (code.startswith(("#", "//", "*", "/*")) and "{{" in code):
                continue
            exprs = [e for o in env.parse(code.replace("{%-", "{%").replace("-%}", "%}")).find_all(nodes.Output)
                     for e in o.nodes if not isinstance(e, nodes.TemplateData)]
            assert not any(_user_derived(e, set()) for e in exprs), \
                f"{path.relative_to(ROOT)}:{number}: user text in a comment: {code}"


def _loop_escape(text: str, specials: dict[str, str], other) -> str:
    """escape._escape as a loop over every character (what it did before its no-escape fast path)."""
    return "".join(specials[c] if c in specials else c if c.isprintable() else other(c) for c in text)


def _loop_clean(text: str) -> str:
    """clean_request_text with its character loop always run (before its fast path for printable text)."""
    from bioplan.request.text import _BIDI_CONTROLS, _is_separator

    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if _is_separator(c) else c for c in text if c not in _BIDI_CONTROLS)
    return re.sub(" {2,}", " ", text).strip()


# printable text (the fast paths), specials, controls, separators, bidi controls and marks, astral characters
ESCAPE_TEXT = st.text(st.sampled_from(list("ab é_$'\"\\\t\n\r\b\f\x00\x1b\x7f\x85\u2028\u2029\u202e\u2066\u200f\u061c"
                                           "\u00a0\u3000中𝔸\U0001f600")) | st.characters(blacklist_categories=("Cs",)))


@settings(max_examples=examples(1000), deadline=None)
@given(ESCAPE_TEXT)
def test_the_escapers_fast_paths_give_what_the_character_loops_give(text):
    """py, yaml and groovy return a string that needs no escape as it is, md and clean_request_text skip
    their character loop for printable text: the same text as the loops for any text."""
    assert escape.py(text) == '"' + _loop_escape(text, escape._PY_SPECIALS, escape._python_escape) + '"'
    assert escape.yaml(text) == '"' + _loop_escape(text, escape._YAML_SPECIALS, escape._python_escape) + '"'
    assert escape.groovy(text) == "'" + _loop_escape(text, escape._GROOVY_SPECIALS, escape._utf16_escapes) + "'"
    assert clean_request_text(text) == _loop_clean(text)
    shown = "".join(f"\\u{ord(c):04X}" if escape._shown_escaped(c) else c for c in text)
    assert escape._md_inline(text, links=True) == escape._md_inline(shown, links=True)
