"""Property: hostile sample names, file names and request text through every tool family's templates,
for both targets (the attacks of issue 9, over the tools of issue 18).

tests/test_escaping_properties.py proves the emitted files keep their structure for one plan (the
rnaseq_fastq example); the 165 tools each have their own Snakemake rule and Nextflow module, and
each could carry a name past the filters (a read group `@RG\\tID:...`, a label list, an output
prefix). Here every case of tests/tool_cases/*.yaml (one per family in the fast tier, all under the
`e2e` marker) is planned once on its benign inputs, then each example substitutes text drawn from a
hostile alphabet (quotes, backslashes, `{}`, `${}`, `$(...)`, backticks, every line separator, NUL,
`../`, a leading `-`, YAML `: ` and `!!python`, Groovy `\"\"\"`, Markdown links and HTML) for the
request, the sample names, every input path and the condition column, and renders both targets:

- Snakemake: every rule file and the Snakefile tokenise like the benign workflow, strings aside;
  config.yaml and samples.tsv load back to the substituted values; a file no user text reaches is
  byte-identical (the same checks as tests/test_escaping_properties.py);
- Nextflow: every .nf and .config lexes to the benign skeleton, bioplan's structural checks pass,
  every JSON file parses; names the target cannot carry are refused with target_unsupported
  naming them.

`test_hostile_file_names_compile_inside_the_output_dir` compiles real files under hostile names
(no pre-check; the property above covers what is emitted) and checks nothing is written outside
`-o` and the names that cannot be made safe are a BioplanError naming them, never a traceback.
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import bioplan.codegen.snakemake as snakemake_generator
from bioplan.cli import main
from bioplan.codegen.escape import delimited
from bioplan.codegen.generator import EmitOptions
from bioplan.codegen.ir import Workflow, synthesize, unusable_sample_name
from bioplan.codegen.names import ID_SYNTAX, slurm_target_stripped
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SAMPLE_NAME_PATTERN, SHELL_WORD_PATTERN, SnakemakeGenerator, shell_word_params
from bioplan.compile import plan_request
from bioplan.errors import TargetUnsupportedError
from bioplan.request.text import plain_request
from conftest import SniffOnce
from test_escaping import TEMPLATES
from test_escaping_properties import (
    BENIGN_OPTIONS,
    _loaded,
    check_nextflow_files,
    expected_config,
    options_of,
    python_tokens,
)
from test_named_tools import CASES, FAMILIES, case_inputs
from test_named_tools import data as named_tools_data  # noqa: F401  (fixture)

# one case per family in the fast tier; every case (every tool of the library) under e2e
REPRESENTATIVE = [next(iter(family.cases)) for family in FAMILIES.values() if family.cases]  # (gwas: named only)
OTHERS = [case for case in CASES if case not in REPRESENTATIVE]

# examples per representative case (each renders both targets: ~0.3 s); the other cases draw a sixth
# of them. CI (.ci/run) draws more, within its 30-minute budget; BIOPLAN_FAMILY_EXAMPLES overrides both
EXAMPLES = int(os.environ.get("BIOPLAN_FAMILY_EXAMPLES", 12 if os.environ.get("CI") == "true" else 4))


def _settings(examples: int):
    # no shrinking: a failure is reported as drawn (shrinking re-renders a workflow hundreds of times)
    return settings(max_examples=examples, deadline=None, database=None,
                    phases=(Phase.explicit, Phase.reuse, Phase.generate),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


# What attackers write whole: shell, Python, YAML, Groovy, Jinja, Markdown and path syntax
ATTACKS = [
    "'; touch X; '", '"; touch X; "', "$(touch X)", "`touch X`", "${System.exit(1)}", "${x}", "{sample}",
    "{{ x }}", "{% if x %}", "\\", "\\'", '\\"', "\\n", "\\t", "\n", "\r\n", "\u2028", "\u2029", "\x85",
    "\x00", "\t", "\x1b[2J", "../", "../../etc/passwd", "-rf", "--force", "# x", ";", "|", "&&",
    "pwn: __import__('os').system('touch X')", ": ", "!!python/object/apply:os.system ['touch X']",
    '"""', "'''", "*/", "/*", "//", "[x](javascript:alert(1))", "<script>alert(1)</script>", "<!--", "&amp;",
    "@RG\\tID:x", "ID:x SM:y", "*", "?", "~", "%s", "\ufeff", "\u202e", "\U0001f9ec", "",
]
SPECIALS = "\n\r\v\f\x85\u2028\u2029\x00\t\x1b\x7f\"'\\{}$`#;|&<>()[]*?~!%:=,@/.- "
_characters = st.one_of(st.characters(exclude_categories=("Cs",)), st.sampled_from(SPECIALS))
hostile = st.tuples(st.text(_characters, max_size=6), st.sampled_from(ATTACKS),
                    st.text(_characters, max_size=6)).map("".join)
hostile_name = hostile.map(lambda s: s.replace("\0", "")).filter(lambda s: s.strip() != "")


@st.composite
def family_values(draw, workflow: Workflow) -> dict:
    """Hostile text for every user-derived field of `workflow` (its samples may be none: a cohort
    of files), sample names numbered to stay distinct."""
    n = len(workflow.samples)
    pool = draw(st.lists(hostile_name, min_size=2, max_size=2))
    n_paths = n * (len(workflow.sample_columns) - 1) + len(workflow.config_inputs)
    return {
        "query": draw(hostile.filter(lambda s: plain_request(s) != "")),
        "names": [f"{pool[i % 2]}{i}" for i in range(n)],
        "paths": [f"{pool[(i + 1) % 2]}/{i}" for i in range(n_paths)],
        "condition": draw(hostile_name),
        # SLURM names: non-printables, spaces and a leading '-' are refused (tests/test_attacks_options.py)
        "partition": "".join(c for c in pool[0] if c.isprintable() and not c.isspace()).lstrip("-") or "p",
        "account": "".join(c for c in pool[1] if c.isprintable() and not c.isspace()).lstrip("-") or "a",
    }


def substitute(workflow: Workflow, values: dict) -> Workflow:
    paths = iter(values["paths"])
    samples = tuple({"sample": name, **{c: next(paths) for c in workflow.sample_columns[1:]}}
                    for name in values["names"])
    config_inputs = tuple(c.model_copy(update={"path": next(paths)}) for c in workflow.config_inputs)
    update = {"query": values["query"], "samples": samples, "config_inputs": config_inputs,
              # words of the request not understood, deviations and --reference-cache: the READMEs
              "unrecognized": (values["condition"], values["query"]), "deviations": (values["query"],),
              "reference_cache": values["names"][0] if values["names"] else values["condition"]}
    if workflow.condition_column is not None:
        update["condition_column"] = values["condition"]
    return workflow.model_copy(update=update)


def refused_names_are_the_values(exc: TargetUnsupportedError, values: dict) -> None:
    refused = exc.details.get("samples", []) + exc.details.get("paths", [])
    assert refused and all(x in values["names"] + values["paths"] for x in refused), exc.details


@lru_cache(maxsize=1)
def _markdown():
    """CommonMark with GFM tables, as GitHub renders the READMEs (markdown_it loaded on first use, not at
    collection: only this module, in the pandas group of conftest.SHARED_GROUPS, reads Markdown)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def markdown_structure(text: str) -> list[tuple[str, str]]:
    """The Markdown token stream, text contents left out (runs of text tokens as one): user text
    that opened a link, HTML, a code span, emphasis or a new block would change it."""
    out: list[tuple[str, str]] = []
    for token in _markdown().parse(text):
        for t in [token, *(token.children or [])]:
            if t.type == "inline":
                continue
            item = (t.type, t.tag)
            if not (item == ("text", "") and out and out[-1] == item):
                out.append(item)
    return out


SNAKEMAKE_USER_FILES = {"config/config.yaml", "config/samples.tsv", "config/README.md", "profiles/slurm/config.yaml",
                        "README.md"}


def check_snakemake(files: dict[str, str], reference: dict[str, str], workflow: Workflow,
                    options: EmitOptions) -> None:
    """tests/test_escaping_properties.py's checks, and the READMEs' Markdown structure."""
    assert files.keys() == reference.keys()
    for name, source in files.items():
        if (name == "workflow/Snakefile" or name.endswith(".smk")) and source != reference[name]:
            assert python_tokens(source) == python_tokens(reference[name]), name
        if name.endswith(".md"):
            assert markdown_structure(source) == markdown_structure(reference[name]), name
        elif name not in SNAKEMAKE_USER_FILES:
            assert source == reference[name], f"{name} changed with user text that never reaches it"
    config = yaml.safe_load(files["config/config.yaml"])
    assert config == expected_config(_loaded(reference["config/config.yaml"]), workflow)
    if workflow.samples:
        import pandas as pd  # here, not at import: see conftest.SHARED_GROUPS

        sheet = pd.read_csv(io.StringIO(files["config/samples.tsv"]), sep="\t", dtype=str, keep_default_na=False)
        assert sheet.to_dict("records") == [dict(row) for row in workflow.samples]
    resources = yaml.safe_load(files["profiles/slurm/config.yaml"])["default-resources"]
    assert ast.literal_eval(resources["slurm_partition"]) == options.partition
    assert ast.literal_eval(resources["slurm_account"]) == options.account


@pytest.fixture(scope="module")
def benign_of(named_tools_data, workspace, knowledge):
    """case -> its benign Workflow IR (planned once): the representative cases with paired reads, the
    others single-end (the templates' other branch)."""
    cache: dict[str, Workflow] = {}
    sniffs = SniffOnce()  # the reads the cases share are read once (conftest.SniffOnce)

    def get(case: str) -> Workflow:
        if case not in cache:
            spec, layout = CASES[case], "paired" if case in REPRESENTATIVE else "single"
            with sniffs:
                result = plan_request(spec.request, case_inputs(named_tools_data, case, layout), knowledge)
            cache[case] = synthesize(knowledge, result.spec, result.plans[0], workdir=str(workspace / "out"))
        return cache[case]

    return get


@pytest.fixture(scope="module")
def render(knowledge):
    """(target, workflow, options) -> the generator's files, without snakefmt (the templates already use
    its layout; tests/test_escaping_properties.py formats too) and with what only knowledge decides
    (conda envs, module meta.yml) made once."""
    smk, nf = SnakemakeGenerator(knowledge), NextflowGenerator(knowledge)
    cached = {(smk, "conda_env"): lru_cache(maxsize=None)(smk.conda_env),
              (nf, "meta_yml"): lru_cache(maxsize=None)(nf.meta_yml),
              (nf, "environment_yml"): lru_cache(maxsize=None)(nf.environment_yml)}

    def run(target: str, workflow: Workflow, options: EmitOptions = BENIGN_OPTIONS):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(snakemake_generator, "format_snakefile", lambda source, name: source)
            for (generator, name), function in cached.items():
                patch.setattr(generator, name, function)
            if target == "snakemake":
                return smk.files(workflow, options), None
            return nf.files_and_uses(workflow, options)

    return run


def check_case(case: str, benign_of, render, examples: int) -> None:
    # the README sections of words not understood and of deviations exist in the reference too
    benign = benign_of(case).model_copy(update={"unrecognized": ("a", "b"), "deviations": ("c",),
                                                "reference_cache": "resources"})
    smk_reference, _ = render("snakemake", benign)
    nf_reference, _ = render("nextflow", benign)

    @_settings(examples)
    @given(values=family_values(benign))
    def prop(values):
        workflow = substitute(benign, values)
        options = options_of(values)
        try:
            files, _ = render("snakemake", workflow, options)
        except TargetUnsupportedError as exc:
            refused_names_are_the_values(exc, values)
        else:
            check_snakemake(files, smk_reference, workflow, options)
        try:
            nf_files, uses = render("nextflow", workflow, options)
        except TargetUnsupportedError as exc:
            refused_names_are_the_values(exc, values)
        else:
            check_nextflow_files(nf_files, uses, nf_reference, workflow, options)
            for name, text in nf_files.items():
                if name.endswith(".json"):
                    json.loads(text)
                if name.endswith(".md"):
                    assert markdown_structure(text) == markdown_structure(nf_reference[name]), name

    prop()


@pytest.mark.parametrize("case", REPRESENTATIVE)
def test_hostile_names_stay_data_in_every_family(case, benign_of, render):
    check_case(case, benign_of, render, EXAMPLES)


@pytest.mark.e2e
@pytest.mark.parametrize("case", OTHERS)
def test_hostile_names_stay_data_in_every_tool_case(case, benign_of, render):
    check_case(case, benign_of, render, max(2, EXAMPLES // 6))



# ----------------------------------------------------------------------------- real files, real names
# File names a user may really have (each is a legal Linux file name: no '/'), as the sample part of paired
# FASTQ names: either the workflow compiles, or a BioplanError names the sample (never a traceback)
HOSTILE_SAMPLES = ["ctrl 1", "x'$(touch X)", "a;touch X", "`touch X`", "b\u2028c", "-n", 'q"x', "back\\tslash",
                   "pwn: !!python:os.system ['touch X']", "${HOME}", "..x", "{w}", "c\nd", "e\tf",
                   "[x](javascript:alert(1))", "<img src=x onerror=alert(1)>", '"""', "#x", "\x85", "\U0001f9ec"]
# the sample ids no quoting can carry (tools' own syntax), refused on input; braces: by the Snakemake target
REFUSED = {"b\u2028c", "-n", 'q"x', "back\\tslash", "c\nd", "e\tf", '"""', "\x85"}


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _hostile_reads(data: Path, folder: Path, names: list[str]) -> list[str]:
    folder.mkdir(parents=True)
    reads = []
    for original, name in zip(("ctrl_1", "ctrl_2", "treated_1", "treated_2"), names):
        for mate in (1, 2):
            target = folder / f"{name}_R{mate}.fastq.gz"
            shutil.copyfile(data / "reads" / f"{original}_R{mate}.fastq.gz", target)
            reads.append(str(target))
    return reads


@pytest.mark.parametrize("index", [pytest.param(i, marks=() if i < 8 else pytest.mark.e2e)
                                   for i in range(0, len(HOSTILE_SAMPLES), 4)])
def test_hostile_file_names_compile_inside_the_output_dir(index, named_tools_data, tmp_path):
    """Four samples under hostile names through an aligner's read groups (STAR, bwa mem) and what follows:
    a compile writes only inside -o, runs nothing, and refuses exactly the names it cannot carry."""
    names = (HOSTILE_SAMPLES[index:index + 4] + ["s1", "s2", "s3", "s4"])[:4]
    # STAR's read groups (STAR + Arriba) and bwa mem's (GATK), in turn; with a sample sheet of the names
    case = CASES["arriba" if index % 8 == 0 else "gatk_germline"]
    folder = tmp_path / "in ;touch X|"  # ('$' and '`' in a path are refused: tests/test_attacks_round7.py)
    reads = _hostile_reads(named_tools_data, folder, names)
    sheet = folder / "samples;touch X.tsv"
    sheet.write_text(delimited([["sample", "condition"]] + [[n, "control" if i < 2 else "treated $(touch X)"]
                                                             for i, n in enumerate(names)], "\t"))
    inputs = reads + [str(sheet)] + [str(named_tools_data / f) for f in case.inputs]
    before = _tree(tmp_path)
    out = tmp_path / "out 'x';touch X &"
    args = ["compile", case.request, *sum((["-i", p] for p in inputs), []), "-o", str(out), "--no-validate",
            "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    # '<', '>' (HTML reports), '%' (SLURM log paths), '$' and '`' (SLURM's --wrap), ',' (a SLURM job's target):
    # codegen/names.py ID_SYNTAX
    refused = [n for n in names if n in REFUSED or "{" in n or any(c in n for c in "<>%$`,")]
    if refused:
        assert result.exit_code == 2, result.output
        error = json.loads(result.output)["error"]
        assert error["code"] in ("unreadable_input", "target_unsupported"), error
        assert any(repr(n) in error["message"] or n in error["message"] for n in refused), error["message"]
        assert not out.exists()
    else:
        assert result.exit_code == 0, result.output
        for path in out.rglob("*"):
            assert Path(os.path.realpath(path)).is_relative_to(out.resolve()) or path.is_symlink(), path
    assert _tree(tmp_path) - before - {str(p.relative_to(tmp_path)) for p in out.rglob("*")} - {out.name} == set()
    # Nextflow interpolates staged names into scripts: these paths ('in ;touch X|/...') are refused by name
    nf_out = tmp_path / "nf"
    nf = CliRunner().invoke(main, [*args[:args.index("-o")], "-o", str(nf_out), "--target", "nextflow",
                                   "--no-validate", "--json"])
    assert nf.exception is None or isinstance(nf.exception, SystemExit), nf.exception
    assert nf.exit_code == 2, nf.output
    nf_error = json.loads(nf.output)["error"]
    assert nf_error["code"] in ("unreadable_input", "target_unsupported")
    assert "touch X" in nf_error["message"] or any(repr(n) in nf_error["message"] for n in refused), nf_error
    assert not nf_out.exists()
    assert not list(tmp_path.rglob("X")) and not (Path.cwd() / "X").exists()


# ----------------------------------------------------------------------------- values read at run time
def test_unquoted_shell_params_have_one_word_defaults(knowledge, render):
    """Every param a Snakemake rule's shell reads unquoted has a number, boolean or one-word default (the
    config schema holds string values to SHELL_WORD_PATTERN), so the defaults always validate."""
    word = re.compile(SHELL_WORD_PATTERN)
    for tool in knowledge.tools.values():
        template = tool.templates.get("snakemake")
        if template is None:
            continue
        for name in shell_word_params((TEMPLATES / template).read_text()):
            assert name in tool.params, f"{template}: {{params.{name}}} is not a param of {tool.id}"
            value = tool.params[name]
            assert isinstance(value, (bool, int, float)) or (isinstance(value, str) and word.match(value)), (
                tool.id, name, value)


def test_the_config_schema_refuses_shell_in_params_and_hostile_sample_rows(benign_of, render):
    """What Snakemake's `validate()` checks before any rule: a config param value holding shell syntax,
    where a rule's shell reads it unquoted, and a sample sheet row a hand edit made hostile."""
    files, _ = render("snakemake", benign_of("chipseq"))
    config = yaml.safe_load(files["config/config.yaml"])
    schema = yaml.safe_load(files["workflow/schemas/config.schema.yaml"])
    jsonschema.validate(config, schema)
    for value in ("CPM; touch X", "$(touch X)", "CPM --foo", "`x`", "a'b", "CPM\n"):
        config["params"]["bamcoverage"]["normalize_using"] = value
        with pytest.raises(jsonschema.ValidationError, match="does not match"):
            jsonschema.validate(config, schema)
    sample = yaml.safe_load(files["workflow/schemas/samples.schema.yaml"])["properties"]["sample"]
    for name in ("ctrl 1", "treated;touch X", "a;b", "x'y", "\U0001f9ec"):
        jsonschema.validate(name, sample)
    for name in ("-n", 'q"x', "a\\tb", "a\nb", "a\u2028b", "{w}", "..", "a/b", "ctrl\n", "treated $(touch X)", "`x`"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(name, sample)
    fastq = yaml.safe_load(files["workflow/schemas/samples.schema.yaml"])["properties"]["fastq_1"]
    jsonschema.validate("../data/reads/x ;y|\n_R1.fastq.gz", fastq)
    for path in ("-rf.fastq.gz", "--force", "x $(y).fq", "`y`.fq", "it's\".fq"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(path, fastq)


@_settings(EXAMPLES * 12)
@given(name=hostile_name)
def test_every_sample_name_bioplan_accepts_passes_the_sample_sheet_schema(name):
    """The runtime schema never refuses a name the compiler accepted (nor accepts braces Snakemake cannot
    carry, nor '%', '<', '>': codegen/names.py ID_SYNTAX, nor a "'" at either end: SLURM's target); the
    compiler refuses every name with a character the schema refuses."""
    accepted = (unusable_sample_name(name) is None and not ({"{", "}"} & set(name))
                and not any(c in name for chars in ID_SYNTAX for c in chars)
                and not slurm_target_stripped(name))
    if accepted:
        assert re.match(SAMPLE_NAME_PATTERN, name), name
    if not re.match(SAMPLE_NAME_PATTERN, name):
        assert not accepted, name


def test_nextflow_schema_holds_script_params_to_a_word_or_a_line(benign_of, render):
    """nf-schema's validateParameters() runs before any task: a string param a module's script reads is
    one word (or, for a multi-word default such as a filter expression, one line), and its default passes."""
    for case in ("chipseq", "gatk_joint_germline"):
        files, _ = render("nextflow", benign_of(case))
        schema = json.loads(files["nextflow_schema.json"])
        tools = schema["$defs"]["tool_options"]["properties"]
        patterned = [p for p in tools.values() if "pattern" in p]
        assert patterned, case
        for prop in patterned:
            jsonschema.validate(prop["default"], prop)
            for value in ("x\ntouch X", "x\u2028y", f"{prop['default']}\n"):
                with pytest.raises(jsonschema.ValidationError):
                    jsonschema.validate(value, prop)
            if prop["errorMessage"].startswith("one word"):
                for value in ("CPM; touch X", "$(touch X)", "a'b", "a b"):
                    with pytest.raises(jsonschema.ValidationError):
                        jsonschema.validate(value, prop)
    files, _ = render("nextflow", benign_of("chipseq"))
    assert "pattern" in json.loads(files["nextflow_schema.json"])["$defs"]["tool_options"]["properties"][
        "bamcoverage_normalize_using"]
    # files staged into a task keep their names, which scripts interpolate: the sheet's and the references'
    sheet = json.loads(files["assets/schema_input.json"])["items"]["properties"]
    references = json.loads(files["nextflow_schema.json"])["$defs"]["reference_options"]["properties"]
    for prop in [sheet["fastq_1"], sheet["sample"], *(p for p in references.values() if p.get("format") == "path")]:
        for value in ("a$(touch X).fq.gz", "dir/-x.fq", "x y.fq", "a.fq\n", "`x`.fq"):
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(value, {k: v for k, v in prop.items() if k in ("type", "pattern")})
    for value in ("../data/reads/ctrl_1_R1.fastq.gz", "/db/kraken2/", "s3://bucket/genome.fa"):
        jsonschema.validate(value, {k: v for k, v in sheet["fastq_1"].items() if k in ("type", "pattern")})


def test_gatk_filter_expression_reaches_the_shell_as_one_quoted_word(benign_of, render):
    """The multi-word param of VariantFiltration is quoted in Groovy ('...' with ' as '\\''), not "${x}"."""
    files, _ = render("nextflow", benign_of("gatk_joint_germline"))
    module = files["modules/local/gatk4/variantfiltration/main.nf"]
    assert '"${expression}"' not in module and "--filter-expression ${expression_word}" in module
    assert "def expression_word = \"'\" + expression.toString().replace(\"'\", \"'\\\\''\") + \"'\"" in module


# ----------------------------------------------------------------------------- hostile -o
HOSTILE_OUTPUTS = ["out $(touch X)", "out\nx", "out\u2028x", "-rf", "out`touch X`;|&", "out'\"\\", "--force",
                   "out: !!python", "${HOME}", "out\x1b[31m"]


def _compile_bulk(workspace: Path, out: Path, *extra: str):
    data = workspace / "data" / "bulk_de"
    args = ["compile", "mouse raw counts: differential expression with a volcano plot", "-i",
            str(data / "counts.csv"), "-i", str(data / "samples.tsv"), "-o", str(out), "--json", *extra]
    return CliRunner().invoke(main, args)


# three in the fast tier (a compile each), the rest under e2e
@pytest.mark.parametrize("name", [pytest.param(n, marks=() if i < 3 else pytest.mark.e2e)
                                  for i, n in enumerate(HOSTILE_OUTPUTS)])
def test_a_hostile_output_dir_holds_the_workflow_and_nothing_else(workspace, tmp_path, name):
    """-o is a path like any other: every file lands inside it, the name appears in no emitted file
    (paths inside the workflow are relative), and nothing runs."""
    out = tmp_path / "base" / name
    result = _compile_bulk(workspace, out, "--no-validate")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if snakemake_generator.slurm_unquotable(str(out.absolute())):  # SLURM jobs' commands name it: test_attacks_round7
        assert result.exit_code == 2 and json.loads(result.output)["error"]["code"] == "target_unsupported"
        assert not out.exists() and not list(tmp_path.rglob("X"))
        return
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "base").iterdir()) == [name]
    for path in out.rglob("*"):
        assert path.is_symlink() or Path(os.path.realpath(path)).is_relative_to(out.resolve()), path
        if path.is_file() and path.suffix in (".smk", ".yaml", ".tsv", ".md", ".json", "") and name.strip("-"):
            assert name not in path.read_text(errors="replace"), path
    assert not list(tmp_path.rglob("X")) and not (Path.cwd() / "X").exists()


@pytest.mark.e2e
def test_the_precheck_in_a_hostile_output_dir_runs_nothing(workspace, tmp_path):
    """bioplan's own `snakemake -n` runs inside a scratch copy beside -o: a hostile -o name stays a path."""
    out = tmp_path / "out 'x';touch X|&\n"
    result = _compile_bulk(workspace, out)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["checks"], result.output
    assert not list(tmp_path.rglob("X")) and sorted(p.name for p in tmp_path.iterdir()) == [out.name]


# sed "s/^/$sample\t/" ran a sample name holding "/e;" as a command (GNU sed's e flag); awk -v reads
# backslash escapes: a value reaches sed, awk, perl or an inline script only as data (ENVIRON, a file)
_PROGRAM_FROM_VALUE = re.compile(r'\b(sed|awk|perl|python3? -c|Rscript -e)(\s+-\w+)*\s+"[^"\n]*'
                                 r'(\\?\$[A-Za-z_{]|\{wildcards|\{params)')


def test_no_template_builds_a_program_from_a_value():
    found = [f"{path.relative_to(TEMPLATES)}:{i}: {line.strip()}"
             for path in sorted([*(TEMPLATES / "snakemake").glob("*.j2"), *(TEMPLATES / "nextflow").glob("*.j2")])
             for i, line in enumerate(path.read_text().splitlines(), 1) if _PROGRAM_FROM_VALUE.search(line)]
    assert not found, found
    assert _PROGRAM_FROM_VALUE.search('tail x | sed "s/^/$sample\\\\t/" >>{output.segments:q}')


@pytest.mark.parametrize("sm, ok", [("tumour_1", True), ("ctrl 1", True), ("../../x", False), ("a/b", False),
                                    ("-n", False), ("..", False)])
def test_bam_sample_name_refuses_an_sm_tag_that_would_leave_its_folder(tmp_path, sm, ok):
    """scripts/bam_sample_name.sh (Strelka2 somatic, CNVkit, CalculateContamination name files after the SM
    tag at run time): a tag bioplan would refuse as a sample name on input stops the step."""
    bam = tmp_path / "x.bam"
    with gzip.open(bam, "wt") as fh:  # BGZF is gzip: the script reads the header text the same way
        fh.write(f"@HD\tVN:1.6\n@RG\tID:x\tSM:{sm}\n")
    proc = subprocess.run(["sh", str(TEMPLATES / "scripts" / "bam_sample_name.sh"), str(bam)],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode == 0) == ok, proc.stderr
    assert proc.stdout == (f"{sm}\n" if ok else "") and (ok or "cannot name a sample" in proc.stderr)
