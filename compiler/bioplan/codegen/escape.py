"""One escaping filter per output context: user text becomes data, never code.

User-derived text (the request, file and sample names, sample sheet values, paths,
the condition column, SLURM partition/account) reaches emitted files only through
these functions. Each returns a complete literal of its context, so the caller
never adds quotes:

    py        Python (and Snakemake) string literal, or a literal of a list/dict/number
    yaml      YAML double-quoted scalar (any value: flow-style literal)
    groovy    Groovy single-quoted string (no ${} interpolation), or a Groovy literal
    shell     one POSIX shell word
    json      JSON value
    md        Markdown inline text (one line, markup characters backslash-escaped, web addresses no links)
    md_knowledge  the same for knowledge text, its web addresses left links (never user text)
    comment   knowledge text (never user text) on one comment line
    delimited (not a filter) the TSV/CSV sample sheets, quoted as pandas and nf-schema read them

Every character that is not printable (`str.isprintable()` is false: control
characters, every line and paragraph separator, U+0085, format characters) is
written as an escape, so the emitted line structure cannot change whatever the
text holds. Text with lone surrogates (bytes that were not UTF-8) is refused:
it cannot be written to a UTF-8 file.

The Jinja environments of both generators register these filters and `finalize`
with `refuse_raw_user_text`: a value marked `UserText` that reaches a template
expression without passing through a filter stops the render (a bioplan bug).
templates/README.md states the rule; tests/test_escaping.py checks every template.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import unicodedata
from typing import Any

import jinja2
import yaml as pyyaml

from bioplan.codegen.generator import EmitOptions
from bioplan.codegen.ir import Workflow
from bioplan.codegen.template_cache import TemplateBytecodeCache, template_cache_dir
from bioplan.errors import InvalidOptionError, UnreadableInputError
from bioplan.request.text import clean_request_text, plain_request, require_utf8


class UserText(str):
    """Text that came from the user. Generators mark user-derived IR fields with it; a
    template may emit it only through a context filter (see `refuse_raw_user_text`)."""

    __slots__ = ()


class UnescapedUserTextError(AssertionError):
    """A template emitted user text without a context filter: a bug in bioplan's templates."""


def mark(value: Any) -> Any:
    """`value` with every string in it marked as UserText (lists, tuples and dicts recursively)."""
    if isinstance(value, str):
        return UserText(value)
    if isinstance(value, dict):
        return {k: mark(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(mark(v) for v in value)
    return value


def refuse_raw_user_text(value: Any) -> Any:
    """Jinja `finalize`: every `{{ }}` result passes here before it is written."""
    if isinstance(value, UserText):
        raise UnescapedUserTextError(
            f"user text {str(value)[:60]!r} reached a template without an escaping filter "
            "(py, yaml, groovy, shell, json, md): see templates/README.md")
    return value


# ----------------------------------------------------------------------------- helpers
def _checked(text: str) -> str:
    require_utf8(text, f"the text {text.encode('utf-8', 'backslashreplace').decode('ascii', 'backslashreplace')!r}")
    return str(text)


def _utf16_escapes(char: str) -> str:
    """\\uXXXX (a surrogate pair above the BMP): the escape form JSON and Groovy share."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _escape(text: str, specials: dict[str, str], table: dict[int, str], other) -> str:
    """`table` is str.maketrans(specials), made once beside each context's specials."""
    text = _checked(text)
    if type(text) is str and text.isprintable():  # no character for `other`: the specials by str.translate
        return text.translate(table)
    out = []
    for char in text:
        if char in specials:
            out.append(specials[char])
        elif char.isprintable():
            out.append(char)
        else:
            out.append(other(char))
    return "".join(out)


def _python_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


# ----------------------------------------------------------------------------- contexts
_PY_SPECIALS = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PY_TABLE = str.maketrans(_PY_SPECIALS)


def py(value: Any) -> str:
    """A Python literal: strings double-quoted with every non-printable character escaped."""
    if isinstance(value, str):
        return '"' + _escape(value, _PY_SPECIALS, _PY_TABLE, _python_escape) + '"'
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for {type(value).__name__}")


# YAML double-quoted escapes (YAML 1.1/1.2): \\ \" \n \r \t and \x \u \U for the rest
_YAML_SPECIALS = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_YAML_TABLE = str.maketrans(_YAML_SPECIALS)


def yaml(value: Any) -> str:
    """A YAML flow value: strings as double-quoted scalars; lists and dicts in flow style."""
    if isinstance(value, str):
        return '"' + _escape(value, _YAML_SPECIALS, _YAML_TABLE, _python_escape) + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        # PyYAML's own representer: YAML 1.1 reads 1e-05 as a string, PyYAML writes 1.0e-05
        return pyyaml.safe_dump(value).removesuffix("\n...\n").strip()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml(k)}: {yaml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no YAML literal for {type(value).__name__}")


# Groovy single-quoted strings interpolate nothing ($ is literal); \' \\ and \uXXXX escapes
_GROOVY_SPECIALS = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_GROOVY_TABLE = str.maketrans(_GROOVY_SPECIALS)


def groovy(value: Any) -> str:
    """A Groovy literal: strings single-quoted (never a GString), lists and maps in Groovy syntax."""
    if isinstance(value, str):
        return "'" + _escape(value, _GROOVY_SPECIALS, _GROOVY_TABLE, _utf16_escapes) + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(groovy(v) for v in value) + "]"
    if isinstance(value, dict):
        return "[" + (", ".join(f"{groovy(k)}: {groovy(v)}" for k, v in value.items()) or ":") + "]"
    raise TypeError(f"no Groovy literal for {type(value).__name__}")


def shell(value: Any) -> str:
    """One POSIX shell word (single-quoted when it holds anything but safe characters)."""
    return shlex.quote(_checked(str(value)))


def json_value(value: Any) -> str:
    """A JSON value; non-ASCII text stays readable, non-printable characters are \\u escapes."""
    if isinstance(value, str):
        _checked(value)
    text = json.dumps(value, ensure_ascii=False)
    # json.dumps already escapes U+0000-U+001F, quotes and backslashes; the rest of the
    # non-printable characters (U+0085, U+2028, ...) are escaped here
    return "".join(c if c.isprintable() else _utf16_escapes(c) for c in text)


# CommonMark (and GFM): a backslash before ASCII punctuation makes it literal. Escaped: what
# opens inline markup (emphasis, code, links, HTML, entities, strike-through, table cells, and GitHub's
# math: `$...$`, `$$...$$` render as MathJax, where `\color`, `\huge`, `\text` draw any words in any size
# and colour over the README; GitHub documents `\$` as a literal dollar sign) ...
_MD_INLINE = re.compile(r"([\\`*_\[\]<>&|~$])")
# ... and what opens a block at the start of a line (heading, list, quote, ordered list)
_MD_LINE_START = re.compile(r"^([#+\-=>]|\d+(?=[.)]))")


# ... and what GFM's extended autolinks (GitHub, GitLab) and linkify turn into a link with no markup at all:
# a scheme's "://" ("https://x.example", "ftp://"), "www." ("www.x.example"). A backslash before the ':' or
# the '.' (not shown) keeps them text. An e-mail address stays a mailto: link: GitHub's renderer joins the
# text around a backslash before it looks for one (its target is the address shown).
_MD_AUTOLINK = re.compile(r"(:)(?=/)|(?<![A-Za-z0-9])((?i:www)(?=\.))")


def _escape_autolink(match: re.Match) -> str:
    return "\\:" if match.group(1) else match.group(2) + "\\"


def _escape_block_start(match: re.Match) -> str:
    marker = match.group(1)
    return marker + "\\" if marker.isdigit() else "\\" + marker  # "1\. item", "\# heading"


def md(value: Any) -> str:
    """Markdown inline text: one line (request normalisation), markup characters escaped, web addresses
    no links. Safe in a paragraph, a block quote (`> {{ x | md }}`) and a table cell."""
    return _md_inline(value, links=False)


def md_knowledge(value: Any) -> str:
    """bioplan's own words (the knowledge's descriptions, its documentation and download addresses) as `md`
    writes them, but their web addresses stay links. Never for user text: that is `md`."""
    return _md_inline(value, links=True)


# the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), the invisible directional
# marks (LRM U+200E, RLM U+200F, ALM U+061C: a strong direction of their own that reorders the digits and
# punctuation around them, 'results/\u200f1.2/x' draws as another path) and the control characters that are no
# space (ESC, DEL, C1): shown as `\u202E`, never dropped (a condition column named U+202E alone was an empty table
# cell) nor obeyed (they reorder what follows); line breaks and tabs stay spaces (request normalisation)
_BIDI_CLASSES = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_DIRECTIONAL_MARKS = frozenset("\u200e\u200f\u061c")


def _shown_escaped(char: str) -> bool:
    return (unicodedata.bidirectional(char) in _BIDI_CLASSES or char in _DIRECTIONAL_MARKS
            or (unicodedata.category(char) == "Cc" and not char.isspace()))


def _md_inline(value: Any, links: bool) -> str:
    shown = str(value)
    if not shown.isprintable():  # every character _shown_escaped shows is a non-printable one (Cc, Cf)
        shown = "".join(f"\\u{ord(c):04X}" if _shown_escaped(c) else c for c in shown)
    text = _MD_INLINE.sub(r"\\\1", clean_request_text(shown))
    if not links:
        text = _MD_AUTOLINK.sub(_escape_autolink, text)
    return _MD_LINE_START.sub(_escape_block_start, text)


def comment(value: Any) -> str:
    """Knowledge text on one comment line (`#`, `//`): line separators and controls -> spaces.
    Never for user text: user text goes into strings (yaml, py, groovy)."""
    return clean_request_text(str(value)).replace("*/", "* /")


def delimited(rows: list[list[str]], delimiter: str) -> str:
    """A TSV/CSV table as pandas and nf-schema read it: a field holding the delimiter, a quote
    or a non-printable character (a line break) is double-quoted, inner quotes doubled."""
    def field(value: str) -> str:
        value = _checked(value)
        if "\0" in value:  # no reader keeps a NUL inside a field; no file name can hold one
            raise UnreadableInputError(f"{value!r}: a NUL character cannot be part of a sample name or path",
                                       ["to resolve, remove the NUL character from the sample sheet"],
                                       {"value": value})
        if any(c == delimiter or c == '"' or not c.isprintable() for c in value):
            return '"' + value.replace('"', '""') + '"'
        return value

    return "".join(delimiter.join(field(v) for v in row) + "\n" for row in rows)


def refuse_broken_slurm_settings(options: EmitOptions) -> None:
    """--partition and --account end up on `#SBATCH` lines of job scripts (Nextflow writes them
    there verbatim): a line break or other non-printable character would start a new line of
    the script, i.e. a command, and sbatch reads every space-separated word of the line as another
    option (`lab -o /home/u/.bashrc` wrote each job's output over .bashrc), as it reads a leading '-'.
    Quoting cannot help there, and no SLURM name holds either, so such a value is refused."""
    for option, value in (("--partition", options.partition), ("--account", options.account)):
        if value is None:
            continue
        bad = next((c for c in value if not c.isprintable() or c.isspace()), None)
        if bad is not None or not value or value.startswith("-"):
            why = (f"the character {bad!r} cannot be part of a SLURM name: sbatch would read what follows it on "
                   "the job script's #SBATCH line as further options" if bad
                   else "a SLURM name cannot be blank" if not value
                   else "a SLURM name cannot start with '-': sbatch would read it as an option")
            raise InvalidOptionError(
                f"{option} {value!r}: {why}",
                [f"to resolve, give {option} the name as `sinfo -s` / `sacctmgr show assoc` print it"],
                {"option": option, "value": value})


# Workflow IR fields whose strings come from the user (the request, the sample sheet, the
# command line); config_inputs[].path is marked separately.
USER_FIELDS = ("query", "samples", "condition_column", "unrecognized", "deviations", "reference_cache")
# EmitOptions fields from the command line (--partition, --account): templates see them as `cluster.*`
USER_OPTION_FIELDS = ("partition", "account")


def mark_options(options: EmitOptions) -> dict[str, Any]:
    """The emit options a template sees (`cluster`), every value from the user marked `UserText`."""
    return {name: mark(getattr(options, name)) for name in USER_OPTION_FIELDS}


def mark_user_text(workflow: Workflow) -> Workflow:
    """The workflow with every user-derived string marked `UserText`: the request (and its words
    nothing understood), input paths, sample sheet rows, the condition column, SLURM settings."""
    fields = [f for f in USER_FIELDS if f in type(workflow).model_fields]
    update = {f: mark(getattr(workflow, f)) for f in fields}
    update["config_inputs"] = tuple(c.model_copy(update={"path": UserText(c.path)}) for c in workflow.config_inputs)
    # a reference's path lies under the user's --reference-cache
    update["references"] = tuple(r.model_copy(update={"path": UserText(r.path)}) for r in workflow.references)
    # tool parameter values: some come from the inputs (an AnnData clustering column as cluster_key, the sample
    # sheet's normals as CNVkit's normal_samples), so every string value is marked (names are the knowledge's)
    update["params"] = {tool: {name: mark(value) for name, value in values.items()}
                        for tool, values in workflow.params.items()}
    return workflow.model_copy(update=update)


FILTERS = {"py": py, "yaml": yaml, "groovy": groovy, "shell": shell, "json": json_value, "md": md,
           "comment": comment, "md_knowledge": md_knowledge}
# Filters that make user text safe in some output context (the template scan accepts these).
CONTEXT_FILTERS = frozenset(FILTERS) - {"comment", "md_knowledge"}


def environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """The Jinja environment both generators render with: strict, the context filters, and
    `finalize` refusing user text that skipped them."""
    env = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             autoescape=False, finalize=refuse_raw_user_text)
    env.filters.update(FILTERS)
    return env


@functools.lru_cache(maxsize=8)
def template_environment(root: str) -> jinja2.Environment:
    """The environment of the templates under `root`, made once per process: Jinja compiles each
    template once and reuses it (it recompiles a template whose file changed), where a new
    environment per compile parsed every template again (a third of an emit). Compiled templates
    are also kept on disk between runs (`template_cache`)."""
    env = environment(jinja2.FileSystemLoader(root))
    env.bytecode_cache = TemplateBytecodeCache(template_cache_dir())
    return env


def request_text(query: str) -> UserText:
    """The request as emitted files show it (normalised on one line, read as the plan read it: no invisible
    format characters, lookalike letters of mixed-script words as the Latin ones), still marked as user text."""
    return UserText(plain_request(query))
