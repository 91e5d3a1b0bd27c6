"""Property: whatever the request, sample names and file names hold, the emitted files keep
their structure and carry the text only as data (issue 9).

One plan (the rnaseq_fastq example: samples with mates, input files, a condition column) is
compiled to the Workflow IR once; each example substitutes random text drawn from full
Unicode plus quotes, braces, Jinja syntax, backslashes, every line separator and control
characters for the request, the sample names, every input path, the condition column and the
SLURM partition/account, then renders the generators' files:

- Snakemake: the Snakefile and every rule file tokenise (Python `tokenize`) to the same
  tokens as for the benign workflow, strings aside; config.yaml, samples.tsv and the SLURM
  profile load back to exactly the substituted values; every other file is byte-identical.
- Nextflow: nextflow.config, main.nf and every module lex (Groovy strings and comments) to
  the same skeleton as the benign pipeline and pass bioplan's structural checks; the
  manifest description decodes to the normalised request; names the target cannot carry
  are refused with target_unsupported instead.

1,000 examples per property under CI=true (.ci/run), 20 otherwise;
BIOPLAN_PROPERTY_EXAMPLES overrides both. Rendering skips what no user text reaches and
costs time (snakefmt's formatting; the modules' meta.yml): `test_formatted_files_keep_their_structure`
runs the full generator, formatter included, on fewer examples.
"""

from __future__ import annotations

import ast
import copy
import functools
import io
import os
import re
import tokenize
from collections.abc import Sequence
from functools import lru_cache

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bioplan.codegen.snakemake as snakemake_generator
from bioplan.codegen.generator import EmitOptions
from bioplan.codegen.ir import Workflow, synthesize
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from bioplan.errors import TargetUnsupportedError
from bioplan.request.text import plain_request
from bioplan.validate.nextflow_checks import check_pipeline
from conftest import example_inputs, example_request

# 1,000 examples under CI (.ci/run); 20 in the fast tier. What is left of an example's time is the
# generator's own rendering and the loads that must read its files as Snakemake does (pure-Python YAML)
EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 1000 if os.environ.get("CI") == "true" else 20))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Single characters that end lines, quote, escape or open template syntax, drawn as often as
# all of Unicode (surrogates aside: text that was not UTF-8 is refused on entry) ...
SPECIAL_CHARACTERS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029\x00\t\x1b\x7f\ufeff\u202e\"'\\{}$`#;|*/%- "
MAX_RUN = 12


def mixed_text(specials: Sequence[str], max_size: int) -> st.SearchStrategy[str]:
    """Up to max_size pieces, each any Unicode character (surrogates aside) or one of `specials`, the two kinds
    in any share and order: what st.lists(st.one_of(st.characters(...), st.sampled_from(specials))) draws, at a
    quarter of its time (a `one_of` per piece was half of an example's time): a Unicode string, a string of
    placeholders for the specials and a bit mask that interleaves them are three draws."""
    marks = "".join(chr(0xE000 + i) for i in range(len(specials)))
    return st.tuples(st.text(st.characters(exclude_categories=("Cs",)), max_size=max_size),
                     st.text(marks, max_size=max_size), st.integers(0, 2 ** max_size - 1)).map(
        functools.partial(_interleaved, specials, max_size))


def _interleaved(specials: Sequence[str], max_size: int, parts: tuple[str, str, int]) -> str:
    """Bit k of the mask set: the k-th piece is the next special one."""
    unicode_run, marks, mask = parts
    out, i, j = [], 0, 0
    for k in range(min(max_size, len(unicode_run) + len(marks))):
        if j < len(marks) and (i >= len(unicode_run) or mask >> k & 1):
            out.append(specials[ord(marks[j]) - 0xE000])
            j += 1
        else:
            out.append(unicode_run[i])
            i += 1
    return "".join(out)


# ... and, in every value, one thing attackers write whole
FRAGMENTS = ["\r\n", "{{ x }}", "{% if x %}", "{%", "%}", "{#", "#}", "*/", "/*", "//", "${x}", "$(touch X)",
             "'''", '"""', "{sample}", "pwn: __import__('os').system('touch X')", "\U0001f9ec", "e\u0301",
             "\\'", '\\"', "\\u0027", "\\n", "-", ""]
mixed_run = mixed_text(SPECIAL_CHARACTERS, MAX_RUN)
text = st.tuples(mixed_run, st.sampled_from(FRAGMENTS), mixed_run).map("".join)
nonblank = text.filter(lambda s: s.strip() != "")
# no file name, so no path or sample name taken from one, can hold a NUL (a sample sheet holding
# one is refused: tests/test_escaping.py)
name_text = nonblank.map(lambda s: s.replace("\0", "")).filter(lambda s: s.strip() != "")
SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-/"
safe_name = st.text(alphabet=SAFE[:-1], min_size=1, max_size=12).filter(lambda s: not s.startswith("-"))


# ----------------------------------------------------------------------------- the one plan
@pytest.fixture(scope="module")
def benign(workspace, knowledge) -> Workflow:
    result = plan_request(example_request("rnaseq_fastq"), example_inputs(workspace, "rnaseq_fastq"), knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(workspace / "out"))
    assert workflow.has_samples and len(workflow.sample_columns) == 3 and workflow.config_inputs
    return workflow


@st.composite
def user_values(draw, workflow: Workflow, names=name_text, paths=name_text) -> dict:
    # Drawing text is most of an example's cost: a few drawn names and paths fill every field,
    # numbered where values must differ (sample names), the number before or after the text
    n = len(workflow.samples)
    name_pool = draw(st.lists(names, min_size=2, max_size=2))
    path_pool = draw(st.lists(paths, min_size=2, max_size=2))
    n_paths = n * (len(workflow.sample_columns) - 1) + len(workflow.config_inputs)
    return {
        "query": draw(nonblank.filter(lambda s: plain_request(s) != "")),
        "names": [name_pool[0]] + [f"{i}{name_pool[i % 2]}" if i % 2 else f"{name_pool[i % 2]}{i}"
                                   for i in range(1, n)],
        "paths": [path_pool[i % 2] if i < 2 else f"{path_pool[i % 2]}/{i}" for i in range(n_paths)],
        "condition": draw(nonblank),
        # non-printable characters, spaces and a leading '-' in SLURM names are refused
        # (tests/test_escaping.py, tests/test_attacks_options.py); the rest stays
        "partition": _printable(name_pool[1]) or "p",
        "account": _printable(path_pool[0]) or "a",
    }


def _printable(value: str) -> str:
    return "".join(c for c in value if c.isprintable() and not c.isspace()).lstrip("-")


def assert_refusal_names_the_values(exc: TargetUnsupportedError, values: dict) -> None:
    """A name the target cannot carry is refused naming it, never silently changed."""
    refused = exc.details.get("samples", []) + exc.details.get("paths", [])
    assert refused and all(x in values["names"] + values["paths"] for x in refused), exc.details


def substitute(workflow: Workflow, values: dict) -> Workflow:
    paths = iter(values["paths"])
    samples = tuple({"sample": name, **{c: next(paths) for c in workflow.sample_columns[1:]}}
                    for name in values["names"])
    config_inputs = tuple(c.model_copy(update={"path": next(paths)}) for c in workflow.config_inputs)
    return workflow.model_copy(update={"query": values["query"], "samples": samples, "config_inputs": config_inputs,
                                       "condition_column": values["condition"]})


# the scheduler settings of the reference rendering; an example's come from its drawn values
BENIGN_OPTIONS = EmitOptions(partition="debug", account="lab")


def options_of(values: dict) -> EmitOptions:
    return EmitOptions(partition=values["partition"], account=values["account"])


# ----------------------------------------------------------------------------- Snakemake
@pytest.fixture(scope="module")
def snakemake_render(knowledge, benign):
    """files() of the Snakemake generator without snakefmt (templates already use its layout; the
    formatter is exercised by test_formatted_files_keep_their_structure)."""
    generator = SnakemakeGenerator(knowledge)
    # what only knowledge and the plan decide, never user text: the same for every example
    conda_env = lru_cache(maxsize=None)(generator.conda_env)
    config_schema, samples_schema = generator.config_schema(benign), generator.samples_schema(benign)

    def render(workflow: Workflow, options: EmitOptions = BENIGN_OPTIONS) -> dict[str, str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(snakemake_generator, "format_snakefile", lambda source, name: source)
            patch.setattr(generator, "conda_env", conda_env)
            patch.setattr(generator, "config_schema", lambda _: config_schema)
            patch.setattr(generator, "samples_schema", lambda _: samples_schema)
            return generator.files(workflow, options)

    return render


def python_tokens(source: str) -> list[tuple[int, str]]:
    """The token stream with the text of string literals left out."""
    return [(t.type, "" if t.type == tokenize.STRING else t.string)
            for t in tokenize.generate_tokens(io.StringIO(source).readline)]


@lru_cache(maxsize=64)
def _reference_tokens(source: str) -> list[tuple[int, str]]:
    """The reference's tokens, read once: the same text for every example."""
    return python_tokens(source)


def expected_config(benign_config: dict, workflow: Workflow) -> dict:
    config = copy.deepcopy(benign_config)
    config["request"] = plain_request(workflow.query)
    if workflow.condition_column is not None:  # a workflow without a sample sheet has none
        config["condition_column"] = workflow.condition_column
    for c in workflow.config_inputs:
        config[c.section][c.key] = c.path
    return config


@lru_cache(maxsize=4)
def _loaded(reference_yaml: str) -> dict:
    return yaml.safe_load(reference_yaml)


def check_snakemake_files(files: dict[str, str], reference: dict[str, str], workflow: Workflow,
                          options: EmitOptions) -> None:
    assert files.keys() == reference.keys()
    user_files = {"config/config.yaml", "config/samples.tsv", "config/README.md", "profiles/slurm/config.yaml",
                  "README.md"}
    for name, source in files.items():
        if (name == "workflow/Snakefile" or name.endswith(".smk")) and source != reference[name]:
            assert python_tokens(source) == _reference_tokens(reference[name]), name
        if name not in user_files:
            assert source == reference[name], f"{name} changed with user text that never reaches it"
    config = yaml.safe_load(files["config/config.yaml"])
    assert config == expected_config(_loaded(reference["config/config.yaml"]), workflow)
    import pandas as pd  # here, not at import: a worker that runs none of the pandas modules never loads it

    sheet = pd.read_csv(io.StringIO(files["config/samples.tsv"]), sep="\t", dtype=str, keep_default_na=False)
    assert sheet.to_dict("records") == [dict(row) for row in workflow.samples]
    resources = yaml.safe_load(files["profiles/slurm/config.yaml"])["default-resources"]
    # Snakemake evaluates resource strings as Python expressions: each must be one string literal
    assert ast.literal_eval(resources["slurm_partition"]) == options.partition
    assert ast.literal_eval(resources["slurm_account"]) == options.account
    readme, reference_readme = files["README.md"].splitlines(), reference["README.md"].splitlines()
    assert len(readme) == len(reference_readme)
    assert [i for i, (a, b) in enumerate(zip(readme, reference_readme)) if a != b] in ([], [4]), "only the quote"


def test_snakemake_files_keep_their_structure(benign, snakemake_render):
    reference = snakemake_render(benign)

    @SETTINGS
    @given(values=user_values(benign))
    def prop(values):
        workflow = substitute(benign, values)
        try:
            files = snakemake_render(workflow, options_of(values))
        except TargetUnsupportedError as exc:
            assert_refusal_names_the_values(exc, values)
            return
        check_snakemake_files(files, reference, workflow, options_of(values))

    prop()


def test_formatted_files_keep_their_structure(benign, knowledge):
    """The full generator, snakefmt included, on fewer examples (it formats every rule file)."""
    generator = SnakemakeGenerator(knowledge)
    reference = generator.files(benign, BENIGN_OPTIONS)

    @settings(SETTINGS, max_examples=max(5, EXAMPLES // 50))  # 20 under CI
    @given(values=user_values(benign))
    def prop(values):
        workflow = substitute(benign, values)
        options = options_of(values)
        check_snakemake_files(generator.files(workflow, options), reference, workflow, options)

    prop()


# ----------------------------------------------------------------------------- Nextflow
_LINE_BREAKS = "\r\n\x85\u2028\u2029"


def _groovy_code(source: str, i: int, out: list[str], closing: str | None) -> int:
    """Lex Groovy code from i (to the `}` closing an interpolation when `closing`), appending its
    skeleton: code and comments as they are, string literals as their quotes alone."""
    depth = 0
    while i < len(source):
        c = source[i]
        if closing and c == "}" and depth == 0:
            return i
        depth += {"{": 1, "}": -1}.get(c, 0)
        quote = next((q for q in ('"""', "'''", '"', "'") if source.startswith(q, i)), None)
        if quote:
            i = _groovy_string(source, i, quote, out)
        elif source.startswith("//", i):
            end = source.find("\n", i)
            end = len(source) if end < 0 else end
            out.append(source[i:end])
            i = end
        elif source.startswith("/*", i):
            end = source.index("*/", i) + 2
            out.append(source[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    assert not closing, "unterminated ${ interpolation"
    return i


def _groovy_string(source: str, i: int, quote: str, out: list[str]) -> int:
    """A string literal from its opening quote: the skeleton keeps the quotes and, in double-quoted
    strings, every interpolation (${code} lexed as code, $name as is): user text in a GString would
    change them. A line break in a one-line string fails (the strict parser rejects it)."""
    out.append(quote)
    j = i + len(quote)
    while not source.startswith(quote, j):
        assert j < len(source), f"unterminated string at {i}"
        c = source[j]
        if len(quote) == 1:
            assert c not in _LINE_BREAKS, f"raw line break in a string at {j}: {source[i:j + 1]!r}"
        if c == "\\":
            j += 2
        elif quote[0] == '"' and source.startswith("${", j):
            out.append("${")
            j = _groovy_code(source, j + 2, out, "}") + 1
            out.append("}")
        elif quote[0] == '"' and c == "$":
            name = re.match(r"\$[A-Za-z_][\w.]*", source[j:])
            out.append(name.group(0) if name else "$")
            j += len(name.group(0)) if name else 1
        else:
            j += 1
    out.append(quote)
    return j + len(quote)


def groovy_skeleton(source: str) -> list[str]:
    """Groovy source with the text of string literals left out (interpolations kept), comments kept."""
    out: list[str] = []
    _groovy_code(source, 0, out, None)
    return "".join(out).splitlines()


@lru_cache(maxsize=256)
def _reference_skeleton(source: str) -> list[str]:
    return groovy_skeleton(source)


def decode_groovy(literal: str) -> str:
    from test_escaping import _groovy_single_quoted

    return _groovy_single_quoted(literal)


@pytest.fixture(scope="module")
def nextflow_render(knowledge):
    generator = NextflowGenerator(knowledge)
    meta = lru_cache(maxsize=None)(generator.meta_yml)
    environment = lru_cache(maxsize=None)(generator.environment_yml)

    def render(workflow: Workflow, options: EmitOptions = BENIGN_OPTIONS) -> tuple[dict[str, str], list[dict]]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(generator, "meta_yml", meta)  # knowledge only: the same for every example
            patch.setattr(generator, "environment_yml", environment)
            files, uses = generator.files_and_uses(workflow, options)
        return files, uses

    return render


def check_nextflow_files(files: dict[str, str], uses: list[dict], reference: dict[str, str],
                         workflow: Workflow, options: EmitOptions) -> None:
    assert files.keys() == reference.keys()
    assert not check_pipeline(files, uses), check_pipeline(files, uses)
    for name, source in files.items():
        if name.endswith((".nf", ".config")):
            expected = _reference_skeleton(reference[name])  # lexed once: the same text for every example
            # a file equal to the reference has its skeleton (lexing it again was most of an example's time)
            assert source == reference[name] or groovy_skeleton(source) == expected, name
    config = files["nextflow.config"]
    description = [line for line in config.splitlines() if line.startswith("    description = ")]
    assert len(description) == 1
    assert decode_groovy(description[0].removeprefix("    description = ")) == plain_request(workflow.query)
    for line in config.splitlines():
        if line.lstrip().startswith("process.queue = "):
            assert decode_groovy(line.split(" = ", 1)[1]) == options.partition
        if line.lstrip().startswith("process.clusterOptions = "):
            assert decode_groovy(line.split(" = ", 1)[1]) == f"--account={options.account}"
    for c in workflow.config_inputs:
        line = next(x for x in config.splitlines() if x.startswith(f"    {c.key} = "))
        assert decode_groovy(line.split(" = ", 1)[1]) == c.path
    import pandas as pd  # here, not at import (see above)

    sheet = pd.read_csv(io.StringIO(files["assets/samplesheet.csv"]), dtype=str, keep_default_na=False)
    assert sheet.to_dict("records") == [dict(row) for row in workflow.samples]


def test_nextflow_files_keep_their_structure(benign, nextflow_render):
    reference, _ = nextflow_render(benign)
    names = st.one_of(safe_name, name_text)
    paths = st.one_of(st.text(alphabet=SAFE, min_size=1, max_size=20), name_text)

    @SETTINGS
    @given(values=user_values(benign, names=names, paths=paths))
    def prop(values):
        workflow = substitute(benign, values)
        try:
            files, uses = nextflow_render(workflow, options_of(values))
        except TargetUnsupportedError as exc:
            assert_refusal_names_the_values(exc, values)
            return
        check_nextflow_files(files, uses, reference, workflow, options_of(values))

    prop()
