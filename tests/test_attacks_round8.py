"""Attacks round 8: names that collide after normalisation in a file's contents, and config values edited after
compiling.

- the condition column of a sample sheet: levels a reader takes for one group (`control` and `Control`, `сontrol`
  with a Cyrillic o, `control` with a zero-width space, fullwidth letters) were compared as different groups by
  every DE step: a sample the sheet shows as `control` was silently a third group (DESeq2's design ~condition,
  the contrast treated vs control), or the replicates check failed naming no cause. Refused at compile time
  (request/sniffers/tables.py, the relation of request/same_names.py that sample ids are held to), and at run
  time by the steps' own level choice (bioplan_step.py / bioplan_step.R `distinct_levels`) for a sheet edited
  after compiling or conditions read from an h5ad's obs (pseudobulk);
- paths in config.yaml (inputs, references, the sample sheet) edited after compiling were held to a non-empty
  string only: `it's$(touch PWNED)/counts.csv` passed validate(), and each SLURM job names its input files in
  its command in Python's quotes (double quotes for a path holding a "'": round 7), `--version` reached a tool
  as an option through `{input.x:q}`. They are now held to the sample sheet's path pattern.

Fast tier only: sniffing small sheets, in-process planning, the emitted schemas read and applied with jsonschema.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.codegen import snakemake as snakemake_generator
from bioplan.codegen.generator import NO_OPTIONS
from bioplan.codegen.ir import synthesize
from bioplan.codegen.snakemake import SnakemakeGenerator, config_path_schema, slurm_unquotable
from bioplan.compile import plan_request
from bioplan.errors import AmbiguousInputError
from bioplan.request.sniff import sniff_file
from conftest import ROOT
from helpers import planning_refusal, write_fastq

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
DE = "differential expression treated vs control with DESeq2"
SCRIPTS = ROOT / "templates" / "scripts"

# levels the sheet reader takes for a missing value (their rows drop out of the count, not refused)
MISSING_LIKE = {"na", "nan", "none", "null", "missing", "unknown"}


def _sheet(path: Path, levels: list[str]) -> str:
    path.write_text("sample\tcondition\n" + "".join(f"S{i}\t{lv}\n" for i, lv in enumerate(levels, 1)),
                    encoding="utf-8")
    return str(path)


# ----------------------------------------------------------------------------- condition levels at compile time
ONE_GROUP = [
    ("Control", ""),                         # case
    ("c\u043entrol", "U+043E CYRILLIC SMALL LETTER O"),  # a lookalike letter
    ("control\u200b", "U+200B ZERO WIDTH SPACE"),       # a character that draws nothing
    ("con\u00adtrol", "U+00AD SOFT HYPHEN"),
    ("control\ufe00", "U+FE00 VARIATION SELECTOR-1"),
    ("\uff43\uff4f\uff4e\uff54\uff52\uff4f\uff4c", ""),  # fullwidth letters
]


@pytest.mark.parametrize(("other", "named"), ONE_GROUP)
def test_condition_levels_a_reader_takes_for_one_group_are_refused(tmp_path, other, named):
    sheet = _sheet(tmp_path / "samples.tsv", ["control", "control", other, "treated", "treated", other])
    with pytest.raises(AmbiguousInputError) as err:
        sniff_file(sheet, {})
    message = err.value.message
    assert err.value.code == "ambiguous_input"
    assert message.startswith(f"{sheet}: levels of the condition column 'condition'")
    assert "'control' (samples 'S1', 'S2')" in message and f"{other!r}" in message and "'S3', 'S6'" in message
    assert named in message  # what a terminal does not show is named
    assert err.value.hints == [f"to resolve, write each group's level the same way in column 'condition' of {sheet} "
                               "(e.g. all 'control'), or rename one so that the groups differ in more than case, "
                               "encoding and lookalike letters"]


def test_a_de_request_over_such_a_sheet_is_refused_not_compared_as_three_groups(knowledge, workspace, tmp_path):
    """Before: 'treated vs control' compiled, said as treated against control, with the Cyrillic-o samples a third
    group DESeq2 left out of the comparison (the sheet shows them as control)."""
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\nctrl_1\tcontrol\nctrl_2\tcontrol\nctrl_3\tc\u043entrol\n"
                     "treated_1\ttreated\ntreated_2\ttreated\ntreated_3\tc\u043entrol\n", encoding="utf-8")
    counts = str(workspace / "data" / "bulk_de" / "counts.csv")
    err = planning_refusal(knowledge, DE, [counts, str(sheet)], tmp_path / "out")
    assert isinstance(err, AmbiguousInputError)
    assert "'c\u043entrol' (U+043E CYRILLIC SMALL LETTER O) (samples 'ctrl_3', 'treated_3')" in err.message


def test_levels_that_differ_in_more_than_that_are_read_as_before(tmp_path):
    sheet = sniff_file(_sheet(tmp_path / "s.tsv", ["WT", "WT", "KO", "KO", "HET", "HET", "TNF\u03b1", "TNF\u03b1"]), {})
    assert sheet.datatype == "sample_metadata"
    assert sheet.fact("replicates") == {"WT": 2, "KO": 2, "HET": 2, "TNF\u03b1": 2}


@pytest.mark.parametrize("other", ["s1", "\u04051", "S1\u200b", "\uff331"])
def test_sample_names_of_a_sheet_naming_no_files_are_held_to_the_same_relation(tmp_path, other):
    """A count matrix's sheet: its ids never become file names (codegen/names.py never sees them), yet every
    result keeps S1 and s1 (or a Cyrillic Dze S1) apart that a reader takes for one sample."""
    path = tmp_path / "samples.tsv"
    path.write_text(f"sample\tcondition\nS1\tcontrol\nS2\tcontrol\n{other}\ttreated\nS4\ttreated\n",
                    encoding="utf-8")
    with pytest.raises(AmbiguousInputError) as err:
        sniff_file(str(path), {})
    assert err.value.message.startswith(f"{path}: sample names in column 'sample' that differ only in letter case")
    assert f"'S1' and {other!r}" in err.value.message or f"{other!r} and 'S1'" in err.value.message


def test_a_sheet_of_fastq_files_leaves_its_ids_to_the_check_naming_their_files(knowledge, tmp_path):
    reads = tmp_path / "reads"
    rows = []
    for name in ("S1", "s1"):
        for mate in (1, 2):
            write_fastq(reads / f"{name}x_R{mate}.fastq.gz", mate)
        rows.append(f"{name}\treads/{name}x_R1.fastq.gz\treads/{name}x_R2.fastq.gz\n")
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tfastq_1\tfastq_2\n" + "".join(rows))
    err = planning_refusal(knowledge, "trim the reads with fastp", [str(sheet)], tmp_path / "out")
    assert isinstance(err, AmbiguousInputError)
    assert err.message.startswith("sample ids that differ only in letter case")


def test_a_level_spelt_with_a_lookalike_letter_is_the_level_the_request_names(knowledge, workspace, tmp_path):
    """The sheet's only control level spelt 'сontrol' (a Cyrillic Es): before, 'treated vs control' was not honoured
    (the warning showed the levels as 'control, treated') and the steps took the first level in sorted order as the
    reference, 'treated': every fold change the reverse of the request's. Now it is the level the sheet shows,
    in the sheet's spelling, its lookalike letter named."""
    cyrillic = "\u0441ontrol"
    sheet = _sheet(tmp_path / "samples.tsv", [cyrillic] * 3 + ["treated"] * 3)
    (tmp_path / "samples.tsv").write_text((tmp_path / "samples.tsv").read_text().replace("S1\t", "ctrl_1\t").replace(
        "S2\t", "ctrl_2\t").replace("S3\t", "ctrl_3\t").replace("S4\t", "treated_1\t").replace(
        "S5\t", "treated_2\t").replace("S6\t", "treated_3\t"), encoding="utf-8")
    counts = str(workspace / "data" / "bulk_de" / "counts.csv")
    result = plan_request(DE, [counts, sheet], knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))
    assert workflow.params["deseq2"]["reference_level"] == cyrillic
    assert workflow.params["deseq2"]["test_level"] == "treated"
    assert any(f"treated against the reference {cyrillic}" in w and "U+0441 CYRILLIC SMALL LETTER ES" in w
               for w in result.spec.warnings)


LOOKALIKE = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445"}
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\ufe0f", "\u034f", "\u3164"]


def _with_a_lookalike_letter(parts: tuple[str, str, int, str]) -> str:
    """A level `[a-z][a-z0-9_]{1,10}` holding a letter LOOKALIKE has a twin for: the drawn letter in at the
    drawn place when none of the drawn ones is."""
    first, rest, at, letter = parts
    level = first + rest
    if any(c in LOOKALIKE for c in level):
        return level
    at %= len(level)
    return level[:at] + letter + level[at + 1:]


# what st.from_regex(r"[a-z][a-z0-9_]{1,10}") filtered to levels with such a letter drew, at a tenth of its time
# (a third of its draws were thrown away; the regex strategy costs tens of ms a draw)
_level_with_a_lookalike_letter = st.tuples(
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"), st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1,
                                                           max_size=10),
    st.integers(0, 10), st.sampled_from(sorted(LOOKALIKE))).map(_with_a_lookalike_letter)


@st.composite
def one_group_spellings(draw) -> tuple[str, str]:
    """A level and another spelling of it that draws the same or folds to it."""
    base = draw(_level_with_a_lookalike_letter.filter(lambda s: s not in MISSING_LIKE))
    how = draw(st.sampled_from(["case", "invisible", "lookalike"]))
    if how == "case":
        other = base.upper() if draw(st.booleans()) else base[0].upper() + base[1:]
    elif how == "invisible":
        at = draw(st.integers(1, len(base)))
        other = base[:at] + draw(st.sampled_from(INVISIBLE)) + base[at:]
    else:
        at = next(i for i, c in enumerate(base) if c in LOOKALIKE)
        other = base[:at] + LOOKALIKE[base[at]] + base[at + 1:]
    return base, other


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> Iterator[Path]:
    """One folder for the examples' sheets, each under a new name (a numbered folder per example cost a scan
    of the base folder each)."""
    folder = tmp_path_factory.mktemp("sheets")
    return (folder / f"samples_{i}.tsv" for i in itertools.count())


@SETTINGS
@given(pair=one_group_spellings())
def test_property_every_spelling_of_one_level_is_refused(sheets, pair):
    base, other = pair
    if other == base:
        return
    sheet = _sheet(next(sheets), [base, base, other, other, "zz9", "zz9"])
    with pytest.raises(AmbiguousInputError, match="levels of the condition column 'condition'"):
        sniff_file(sheet, {})


# ----------------------------------------------------------------------------- condition levels at run time
@pytest.fixture(scope="module")
def step_lib():
    spec = importlib.util.spec_from_file_location("bioplan_step_round8", SCRIPTS / "bioplan_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_steps_refuse_one_group_spelt_two_ways_in_a_sheet_edited_later(step_lib):
    assert step_lib.distinct_levels(["control", "treated"]) == ["control", "treated"]
    for other in ("Control", "control\u200b", "\uff43ontrol", "CONTROL "):
        with pytest.raises(SystemExit):
            step_lib.distinct_levels(["control", other, "treated"])


def test_every_level_choice_of_the_steps_goes_through_distinct_levels():
    """The R DE steps (DESeq2, edgeR, limma, DSS: bioplan_step.R choose_levels), PyDESeq2 and the pseudobulk
    step (its conditions come from the h5ad's obs, which the compiler does not read)."""
    r_lib = (SCRIPTS / "bioplan_step.R").read_text()
    assert 'levels <- distinct_levels(sort(unique(levels), method = "radix"))' in r_lib
    assert 'gsub("\\\\p{Cf}", "", levels, perl = TRUE)' in r_lib
    for script in ("pydeseq2_de.py", "pseudobulk_pydeseq2.py"):
        assert "levels = distinct_levels(sorted(levels))" in (SCRIPTS / script).read_text()


# ----------------------------------------------------------------------------- config paths edited after compiling
HOSTILE_PATHS = ["it's$(touch PWNED)/counts.csv", "`touch PWNED`.csv", "a'b\"c.csv", "$HOME/x.csv",
                 "--version", "-x.csv", "=cmd.csv", "+x.csv", "@SUM(A1).csv"]


@pytest.fixture(scope="module")
def de_files(knowledge, workspace):
    """The Snakemake files of the bulk DE example (counts and sheet), snakefmt left out (no shell is formatted)."""
    bulk = workspace / "data" / "bulk_de"
    result = plan_request(DE, [str(bulk / "counts.csv"), str(bulk / "samples.tsv")], knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(workspace / "out"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snakemake_generator, "format_snakefile", lambda source, name: source)
        return SnakemakeGenerator(knowledge).files(workflow, NO_OPTIONS)


def test_an_input_path_edited_into_the_config_is_held_to_the_sheets_path_rule(de_files):
    config = yaml.safe_load(de_files["config/config.yaml"])
    schema = yaml.safe_load(de_files["workflow/schemas/config.schema.yaml"])
    jsonschema.validate(config, schema)  # what bioplan wrote passes
    for value in HOSTILE_PATHS:
        config["inputs"]["raw_count_matrix"] = value
        with pytest.raises(jsonschema.ValidationError, match="does not match"):
            jsonschema.validate(config, schema)
    for value in ("it's/counts.csv", 'a "b"/c.csv', "/data/x y;z|w/counts.csv", "./-x.csv", "../data/counts.csv"):
        config["inputs"]["raw_count_matrix"] = value
        jsonschema.validate(config, schema)


@pytest.fixture(scope="module")
def config_path_validator() -> jsonschema.protocols.Validator:
    """What jsonschema.validate builds for every call (checking the schema against its metaschema first, most of
    an example's time), built once."""
    schema = config_path_schema("reference_genome")
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


@SETTINGS
@given(path=st.text(st.sampled_from("ab/.' \"$`-=+@;|&()\\"), min_size=1, max_size=12))
def test_property_a_config_path_passes_only_when_a_slurm_job_keeps_it_data(config_path_validator, path):
    refused = slurm_unquotable(path) or path[0] in "-=+@"
    try:
        config_path_validator.validate(path)
    except jsonschema.ValidationError:
        assert refused
    else:
        assert not refused


# ----------------------------------------------------------------------------- text of the inputs in figures
MATH_LABELS = ["S$\\x$", "HALLMARK_$^$", "$\\mathrm{ALL\\ SIGNIFICANT}$", "Ctrl$_1$"]


def test_a_label_from_the_inputs_is_drawn_as_its_text_not_as_math(step_lib, monkeypatch):
    """Count-matrix columns (never sample ids, so '$' is not refused there), gene and gene-set names, taxa and
    cluster labels are drawn as tick labels and titles. Under matplotlib's mathtext 'S$\\x$' stopped the figure
    step (ValueError: Unknown symbol) and '$\\mathrm{...}$' drew other words (seen with matplotlib 3.11); the
    steps' pyplot() turns mathtext and TeX off. matplotlib itself is not imported (seconds): a stand-in records
    the settings, and matplotlib's own matplotlibrc is read to show they are its settings."""
    spec = importlib.util.find_spec("matplotlib")
    assert spec is not None and spec.origin is not None
    defaults = (Path(spec.origin).parent / "mpl-data" / "matplotlibrc").read_text()
    rc: dict = {}
    pyplot_module = types.ModuleType("matplotlib.pyplot")
    pyplot_module.rcParams = rc
    matplotlib_module = types.ModuleType("matplotlib")
    matplotlib_module.use = lambda backend: None
    matplotlib_module.pyplot = pyplot_module
    monkeypatch.setitem(sys.modules, "matplotlib", matplotlib_module)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot_module)
    assert step_lib.pyplot() is pyplot_module
    assert rc["text.parse_math"] is False and rc["text.usetex"] is False
    for key in step_lib.PLAIN_TEXT:
        assert f"#{key}:" in defaults, key


def test_every_step_drawing_a_figure_draws_plain_text():
    """Every step script using matplotlib gets it from bioplan_step.pyplot() or sets PLAIN_TEXT itself."""
    for script in sorted(SCRIPTS.glob("*.py")):
        source = script.read_text()
        if "matplotlib" in source or "pyplot()" in source:
            assert ("= pyplot()" in source or "**PLAIN_TEXT" in source
                    or "**bioplan_step.PLAIN_TEXT" in source), script.name


# ----------------------------------------------------------------------------- the run's environment: $TMPDIR
# A shell variable assigned a string of several words that holds the temporary folder (`covar="--covar
# $tmp/covar.tsv ..."`, then `$covar` unquoted so that its words split): a $TMPDIR holding a space split the path
# too (the job failed), one holding a glob character was expanded. Snakemake rules make their temporary folder under
# $TMPDIR (`mktemp -d`); Nextflow's are relative to the task's folder (`mktemp -d -p .`).
_SPLIT_WORDS_WITH_TMP = re.compile(r"""(?<![\w-])\w+=(?P<q>["'])(?P<value>[^"'\n]*\$tmp[^"'\n]*)(?P=q)""")


def test_no_snakemake_rule_splits_a_string_holding_its_temporary_folder():
    found = []
    for template in sorted((ROOT / "templates" / "snakemake").glob("*.j2")):
        for m in _SPLIT_WORDS_WITH_TMP.finditer(template.read_text()):
            if re.search(r"\s", m.group("value")):
                found.append(f"{template.name}: {m.group(0)}")
    assert found == []
    source = (ROOT / "templates" / "snakemake" / "rsem_calculate_expression.smk.j2").read_text()
    assert 'set -- --paired-end "$tmp/reads_1.fastq.gz" "$tmp/reads_2.fastq.gz"' in source
    assert '"$@" {input.index:q}/genome' in source
