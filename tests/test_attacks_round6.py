"""Attacks round 6: classes rounds 1-5 left open.

- nextflow_schema.json described the workflow with the raw request, which nf-core's tools render as Markdown
  (`nf-core pipelines schema docs`, the launch page): links, images and HTML the request held were live there;
- GitHub renders `$...$` and `$$...$$` in a README as MathJax (`\\color`, `\\huge`, `\\text`: any words in any size
  and colour), and the invisible directional marks (LRM, RLM, ALM) reorder the digits and punctuation around them:
  neither was escaped by the `md` filter;
- an input inside -o under a folder named `=cmd` or `+x` was written as `=cmd/S1_R1.fastq.gz` into samples.tsv
  and samplesheet.csv: a formula to a spreadsheet opening them (CSV injection; sample ids were refused already);
- the Snakemake SLURM executor submits each job through a shell, naming its sample in Python's quotes: in
  `sbatch --wrap="..."` a sample `S$(touch PWNED)` ran `touch` on the submitting host (seen on a real SLURM
  cluster); profiles/slurm now passes the command as a script, and the ids Python's quoting breaks in a script
  (a "'" beside '$', '`' or ',') are refused by name;
- thousands of input files given one by one were matched to the sniffed files by a scan per input (quadratic:
  4,000 FASTQ pairs planned in 26 s).

Markdown is checked with GitHub's own renderer (cmarkgfm); shell quoting with the SLURM plugin's own functions run
through `sh`. Properties: 50 examples in the fast tier, 2,000 under CI=true, BIOPLAN_PROPERTY_EXAMPLES overrides.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.codegen import escape
from bioplan.codegen.ir import SPREADSHEET_FORMULA_STARTS, _rel, synthesize
from bioplan.codegen.names import SLURM_QUOTE, SLURM_QUOTED_SYNTAX, refuse_id_syntax
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SAMPLE_NAME_PATTERN, SHEET_PATH_PATTERN
from bioplan.compile import plan_request
from bioplan.errors import UnreadableInputError
from helpers import deadline, fastq_pairs, planning_refusal, write_fastq
from test_escaping_properties import mixed_text
from test_slurm import slurm_node  # noqa: F401  (the local cluster, for the `slurm` test below)

EXAMPLES = int(os.environ.get("BIOPLAN_PROPERTY_EXAMPLES", 2000 if os.environ.get("CI") == "true" else 50))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TRIM = "trim the reads with fastp"


def _gfm_html(markdown: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    return cmarkgfm.github_flavored_markdown_to_html(markdown)


def _shown(html: str) -> str:
    """The text a reader sees of rendered HTML."""
    return re.sub(r"<[^>]+>", "", html).strip().replace("&lt;", "<").replace("&gt;", ">").replace(
        "&quot;", '"').replace("&amp;", "&")


@pytest.fixture(scope="module")
def trimming(knowledge, tmp_path_factory):
    base = tmp_path_factory.mktemp("round6")
    result = plan_request(TRIM, fastq_pairs(base / "in", ["S1", "S2"]), knowledge)
    return synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "wf"))


# ----------------------------------------------------------------------------- nextflow_schema.json
HOSTILE_REQUEST = ("Trim the reads with fastp. [docs](javascript:alert(1)) <img src=x onerror=alert(1)> "
                   "https://evil.example/x www.evil.example $\\color{red}{\\text{ALL CHECKS PASSED}}$ **bold**")


def test_the_nextflow_schema_describes_the_request_as_the_readme_quotes_it(knowledge, trimming):
    """nf-core's tools render a schema's descriptions as Markdown: the request was a live link, image and HTML."""
    schema = json.loads(NextflowGenerator(knowledge).params_schema(trimming.model_copy(update={
        "query": HOSTILE_REQUEST})))
    description = schema["description"]
    assert description == escape.md(escape.request_text(HOSTILE_REQUEST))  # as the READMEs and the RO-Crate
    html = _gfm_html(description)
    assert "<a " not in html and "<img" not in html and "<strong>" not in html, html
    assert _shown(html) == HOSTILE_REQUEST  # every character shown as typed


# ----------------------------------------------------------------------------- GitHub math, directional marks
@pytest.mark.parametrize("text", ["$\\color{red}{\\text{PASS}}$", "$$\\huge{x}$$", "$`\\huge x`$", "a $5 and $6 b",
                                  "\\$x$"])
def test_github_math_in_user_text_is_shown_not_rendered(text):
    out = escape.md(text)
    assert not re.search(r"(?<!\\)(\\\\)*\$", out), out  # every '$' escaped: GitHub documents `\$` as a dollar
    assert _shown(_gfm_html(out)) == text


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u061c"], ids=["LRM", "RLM", "ALM"])
def test_an_invisible_directional_mark_is_shown_not_obeyed(mark):
    out = escape.md(f"results/{mark}1.2/x")
    assert mark not in out and f"\\u{ord(mark):04X}" in _shown(_gfm_html(out))


_MD_PIECES = ["$", "$$", "`", "\\", "x", " ", "\u200f", "\u202e", "\u2066", "\u061c", "{", "}", "1.", "-", "|"]


@SETTINGS
@given(text=mixed_text(_MD_PIECES, 16))  # up to 16 pieces: any character or a Markdown or direction piece
def test_property_markdown_text_holds_no_math_and_no_direction(text):
    """Whatever the text: no unescaped '$' (GitHub's math), no character that reorders what follows."""
    out = escape.md(text)
    assert not re.search(r"(?<!\\)(\\\\)*\$", out), (text, out)
    assert not [c for c in out if unicodedata.bidirectional(c) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI",
                                                                    "FSI", "PDI") or c in "\u200e\u200f\u061c"]


# ----------------------------------------------------------------------------- formulas in sample sheet paths
@SETTINGS
@given(start=st.sampled_from(["-", *SPREADSHEET_FORMULA_STARTS]), rest=st.text(alphabet="abc/=+@-. ", max_size=12))
def test_property_no_path_of_the_workflow_starts_like_a_formula_or_an_option(start, rest):
    written = _rel(f"/wf/{start}{rest}", "/wf")
    assert not written.startswith(("-", *SPREADSHEET_FORMULA_STARTS)), written
    assert os.path.normpath(os.path.join("/wf", written)) == os.path.normpath(f"/wf/{start}{rest}")  # the same file


@pytest.mark.parametrize("folder", ["=cmd", "+x", "@SUM(A1)", "-rf"])
def test_an_input_folder_named_like_a_formula_is_no_formula_in_the_sample_sheets(knowledge, tmp_path, folder):
    """Reads inside -o under a folder '=cmd': samples.tsv and samplesheet.csv wrote '=cmd/S1_R1.fastq.gz',
    which a spreadsheet opening them runs as a formula (CSV injection)."""
    workdir = tmp_path / "wf"
    inputs = [write_fastq(workdir / folder / f"S{s}_R{m}.fastq.gz", m) for s in (1, 2) for m in (1, 2)]
    result = plan_request(TRIM, inputs, knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(workdir))
    cells = [row[c] for row in workflow.samples for c in workflow.sample_columns[1:]]
    assert cells and all(c.startswith(f"./{folder}/") for c in cells), cells
    assert all(re.match(SHEET_PATH_PATTERN, c) for c in cells)  # what the sheet's schema holds an edit to
    assert not [c for c in cells if c.startswith(("-", *SPREADSHEET_FORMULA_STARTS))]
    assert not re.match(SHEET_PATH_PATTERN, f"{folder}/S1_R1.fastq.gz")


# ----------------------------------------------------------------------------- SLURM: the executor's quoting
def _plugin_command(name: str) -> str:
    """The part of a job's command the SLURM executor (and its jobstep) writes for the job's sample, with the
    plugin's own functions, after a command that prints each argument on a line."""
    from snakemake_interface_executor_plugins.utils import TargetSpec, encode_target_jobs_cli_args, format_cli_arg

    return "printf '%s\\n' " + format_cli_arg("--target-jobs", encode_target_jobs_cli_args(
        [TargetSpec("read_trimming", {"sample": name})]))


def _run_as_script(name: str, cwd: Path) -> str:
    """The command as profiles/slurm passes it (slurm-pass-command-as-script: a script on sh's stdin)."""
    return subprocess.run(["sh", "-s"], input=_plugin_command(name), cwd=cwd, capture_output=True, text=True,
                          timeout=30).stdout


def _run_wrapped(name: str, cwd: Path) -> str:
    """The command as the plugin's default passes it: sbatch --wrap="<command>" from a shell (only '"' escaped),
    then the job script sbatch writes of it run by sh."""
    wrapped = _plugin_command(name).replace('"', '\\"')
    return subprocess.run(f'sh -c "{wrapped}"', shell=True, cwd=cwd, capture_output=True, text=True,
                          timeout=30).stdout


def _refused(name: str) -> bool:
    """Whether bioplan refuses `name` as a sample id (one by one: unusable_sample_name; the reports' and SLURM's
    syntax: refuse_id_syntax)."""
    from bioplan.codegen.ir import unusable_sample_name

    if unusable_sample_name(name) is not None:
        return True
    try:
        refuse_id_syntax({"sample": [name]}, {})
    except UnreadableInputError:
        return True
    return False


def test_a_job_passed_as_a_script_carries_a_command_in_its_sample_as_data(tmp_path):
    """In sbatch --wrap="..." a sample 'S$(touch PWNED)' ran `touch` on the submitting host (a real cluster: the
    file appeared at the first submission); as a script, as profiles/slurm passes it (the emitted profile's test
    below; test_slurm.py holds its settings to the pinned plugin's), the id is one quoted word. Since round 7 such an
    id is refused too (a run without the profile submits with --wrap: tests/test_attacks_round7.py)."""
    name = "S$(touch PWNED)"
    assert _run_as_script(name, tmp_path).splitlines() == ["--target-jobs", f"read_trimming:sample={name}"]
    assert not (tmp_path / "PWNED").exists()
    _run_wrapped(name, tmp_path)
    assert (tmp_path / "PWNED").exists()  # why the profile passes a script: if this stops, the plugin was fixed


@pytest.mark.parametrize("name", ["x'$(touch PWNED)", "x'`touch PWNED`", "a,b'; touch PWNED; #"])
def test_an_id_the_executors_quoting_turns_into_commands_is_refused(knowledge, tmp_path, name):
    (tmp_path / "run").mkdir()
    _run_as_script(name, tmp_path / "run")
    assert (tmp_path / "run" / "PWNED").exists()  # what the id does in the job's script: why it is refused
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [name, "S2"]), tmp_path / "out")
    assert isinstance(err, UnreadableInputError) and err.code == "unreadable_input"
    assert repr(name) in err.message and "SLURM" in err.message and f"(from {repr(name + '_R')[:-1]}" in err.message
    fix = "without '$' or '`'" if set(name) & set("$`") else "without ','"  # either alone is refused since round 7
    assert any(h.startswith(f"to resolve, rename the sample {fix}") for h in err.hints)
    assert not re.match(SAMPLE_NAME_PATTERN, name)  # nor taken from samples.tsv edited after compiling


_SHELL_PIECES = ["$(touch PWNED)", "`touch PWNED`", "${PWNED:=x}", "'", '"', ",", ";", " ", "|", "&", "\\",
                 "(", ")", "{", "}", "!", "*", "?", "~", "#", "=", "a", "b"]


@settings(SETTINGS, max_examples=max(10, EXAMPLES // 5))  # a shell per example
@given(name=st.lists(st.sampled_from(_SHELL_PIECES), min_size=1, max_size=8).map("".join))
def test_property_an_id_bioplan_takes_reaches_the_slurm_job_as_itself(tmp_path_factory, name):
    """Every id bioplan accepts is one word of the job's script, exactly the id, and runs nothing; every id it
    refuses for SLURM's sake would not have been."""
    cwd = tmp_path_factory.mktemp("sh")
    lines = _run_as_script(name, cwd).splitlines()
    shown = f'"{name}"' if "," in name else name  # the plugin's own quotes around an id holding a ','
    intact = lines == ["--target-jobs", f"read_trimming:sample={shown}"] and not (cwd / "PWNED").exists()
    if not _refused(name):
        assert intact, (name, lines)
    elif SLURM_QUOTE in name and any(c in name for c in SLURM_QUOTED_SYNTAX) and "\\" not in name \
            and '"' not in name:
        assert not intact, name  # refused for SLURM's quoting alone: it does break it


def test_patient_and_lane_ids_are_held_to_the_same_quoting():
    for key in ("patient", "lane"):
        with pytest.raises(UnreadableInputError, match=f"the {key} id \"p'\\$x\""):
            refuse_id_syntax({"sample": ["s1"], key: ["p1", "p'$x"]}, {})
    refuse_id_syntax({"sample": ["ctrl '2' b", "treated;touch INJECTED", "x;y"], "lane": ["1"]}, {})


# ----------------------------------------------------------------------------- many inputs (linear, not quadratic)
def _fastq_files(n: int) -> list:
    from bioplan.models import SniffedFile

    return [SniffedFile(path=f"/data/run/S{i}_R{m}.fastq.gz", datatype="raw_reads", format="fastq_gz",
                        sample=f"S{i}", mate=m) for i in range(n) for m in (1, 2)]


def test_many_input_files_given_one_by_one_are_taken_in_linear_time(knowledge, monkeypatch):
    """4,000 FASTQ pairs given as 8,000 inputs: each input scanned every sniffed file (64 million comparisons,
    26 s of a 30 s plan)."""
    import bioplan.compile as compile_module
    from bioplan.models import InputProfile

    files = _fastq_files(3_000)
    monkeypatch.setattr(compile_module, "sniff_inputs", lambda *args, **kwargs: InputProfile(files=tuple(files)))
    with deadline(3):  # quadratic: 36 million comparisons, over 5 s here
        profile = compile_module.sniff_with_declarations(knowledge, [f.path for f in reversed(files)], {})
    assert list(profile.files) == files[::-1]  # in the order given


def test_inputs_are_matched_to_their_files_as_before(knowledge, monkeypatch):
    """A file given, a folder (its files, nested too, never a folder that only starts alike), a declared file and
    the files a sample sheet names (after the inputs, once each)."""
    import bioplan.compile as compile_module
    from bioplan.models import InputProfile, SniffedFile

    def sniffed(path: str) -> SniffedFile:
        return SniffedFile(path=path, datatype="raw_reads", format="fastq_gz")

    files = [sniffed(p) for p in ("/d/quant/s1/quant.sf", "/d/quant2/x.fq.gz", "/d/a.fq.gz", "/d/quant/s2/quant.sf",
                                  "/d/sheet_named.fq.gz")]
    monkeypatch.setattr(compile_module, "sniff_inputs", lambda *args, **kwargs: InputProfile(files=tuple(files)))
    profile = compile_module.sniff_with_declarations(knowledge, ["/d/a.fq.gz", "/d/quant/", "/d/quant2"], {})
    assert [f.path for f in profile.files] == ["/d/a.fq.gz", "/d/quant/s1/quant.sf", "/d/quant/s2/quant.sf",
                                               "/d/quant2/x.fq.gz", "/d/sheet_named.fq.gz"]
    profile = compile_module.sniff_with_declarations(knowledge, ["/d/quant"], {})
    assert [f.path for f in profile.files][:2] == ["/d/quant/s1/quant.sf", "/d/quant/s2/quant.sf"]


# ----------------------------------------------------------------------------- the profile, YAML, the RO-Crate
def test_the_emitted_slurm_profile_passes_jobs_as_scripts(knowledge, trimming):
    import yaml

    from bioplan.codegen.generator import EmitOptions
    from bioplan.codegen.snakemake import SnakemakeGenerator

    profile = yaml.safe_load(SnakemakeGenerator(knowledge).profile_slurm(
        escape.mark_user_text(trimming), EmitOptions(partition="debug")))
    assert profile["executor"] == "slurm" and profile["slurm-pass-command-as-script"] is True


YAML_SYNTAX = ["<<: *a", "&a x", "*a", "!!python/object/apply:os.system ['touch X']", "? x\n: y", "%YAML 1.1",
               "no", "~", "0o17", "1e3", "--- x", "{a: 1}", "[1, 2]", "'x'", "@x", "`x`", "|\n  x"]


@pytest.mark.parametrize("text", YAML_SYNTAX)
def test_yaml_syntax_in_user_text_is_a_string_of_the_config(knowledge, trimming, text):
    """Tags, anchors, aliases, merge keys, directives, YAML 1.1 booleans and octals in the request or the condition
    column load back, with PyYAML and Snakemake's own config loader, as the very strings (never an object, a
    reference or another type)."""
    import yaml
    from snakemake.common.configfile import _load_configfile

    from bioplan.codegen.snakemake import SnakemakeGenerator

    workflow = trimming.model_copy(update={"query": f"{TRIM} {text}", "condition_column": text})
    config_text = SnakemakeGenerator(knowledge).config(escape.mark_user_text(workflow))
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bioplan_r6_config_{os.getpid()}.yaml"
    path.write_text(config_text, encoding="utf-8")
    try:
        for config in (yaml.safe_load(config_text), _load_configfile(str(path))):
            assert config["request"] == escape.request_text(f"{TRIM} {text}")
            assert config["condition_column"] == text
    finally:
        path.unlink()


def test_a_request_cannot_reach_the_crates_context_or_its_entities(knowledge, trimming):
    """The RO-Crate is JSON-LD: the request is a string value of the root's name and description, never a key,
    an `@context` or an entity of the graph, whatever JSON it holds."""
    from bioplan.codegen.crate import crate_metadata

    def crate(query: str) -> dict:
        return json.loads(crate_metadata(knowledge, trimming.model_copy(update={"query": query}),
                                         {"workflow/Snakefile": ""}, "snakemake", "workflow/Snakefile"))

    hostile = (TRIM + ' ", "@context": {"@vocab": "https://evil.example/"}, "@graph": [{"@id": "#x"}], "x": "'
               '\u2028 </script><script>alert(1)</script> {"@id": "https://evil.example/"}')
    benign, attacked = crate(TRIM), crate(hostile)
    assert attacked["@context"] == benign["@context"]
    assert [e["@id"] for e in attacked["@graph"]] == [e["@id"] for e in benign["@graph"]]
    assert [sorted(e) for e in attacked["@graph"]] == [sorted(e) for e in benign["@graph"]]
    root = next(e for e in attacked["@graph"] if e["@id"] == "./")
    assert root["description"] == escape.md(escape.request_text(hostile))


# ----------------------------------------------------------------------------- on a real SLURM cluster
@pytest.mark.slurm
def test_a_command_in_a_sample_id_stays_data_on_a_real_slurm_cluster(knowledge, tmp_path, slurm_node):
    """The emitted workflow under its own profiles/slurm (the test's copy only checks job states sooner and finds the
    tools on PATH): the sample "S 'q';touch PWNED" (Python quotes it in double quotes: the quoting a '$' would break,
    refused since round 7) is trimmed like any other and nothing runs (under the plugin's default --wrap
    submission, 'S$(touch PWNED)' ran touch on this host at the first sbatch call)."""
    import yaml

    from bioplan.compile import compile_request
    from test_slurm import ACCOUNT, INIT_SECONDS, PARTITION, SnakemakeRun, write_test_profile

    name = "S 'q';touch PWNED"
    # one CPU per job: the two samples' trimming jobs run side by side on the node, not one after the other
    workdir = compile_request(TRIM, fastq_pairs(tmp_path / "in", [name, "S2"]), str(tmp_path / "wf"),
                              knowledge=knowledge, validate=False, partition=PARTITION, account=ACCOUNT,
                              max_threads=1, max_mem_mb=slurm_node["mem_mb"]).output_dir
    profile = write_test_profile(workdir, **{"slurm-init-seconds-before-status-checks": INIT_SECONDS})
    assert yaml.safe_load((profile / "config.yaml").read_text())["slurm-pass-command-as-script"] is True
    code, text, _ = SnakemakeRun(workdir, profile, tmp_path / "run.log").finish()
    assert code == 0, text[-5000:]
    assert f"rule_read_trimming/{name}/" in text  # its job was a SLURM job
    assert [p for p in (workdir / "results").rglob("*") if name in p.name], "no result of the sample"
    assert not list(tmp_path.rglob("PWNED")) and not (Path.home() / "PWNED").exists()


# ----------------------------------------------------------------------------- the filters no property held yet
_LINE_ENDS = ["\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "*/", "/*", "#", "'"]


@SETTINGS
@given(text=mixed_text(_LINE_ENDS, 16))  # up to 16 pieces: any character or a line or comment end
def test_property_a_comment_stays_one_comment_line(text):
    """`comment` (knowledge text only, never user text) keeps any text on its one comment line: Python, YAML and a
    Groovy block comment read it as one comment, whatever line ends and comment ends it holds."""
    import io
    import tokenize

    import yaml

    line = escape.comment(text)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(f"x = 1  # {line}\n").readline)
              if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    assert [t.type for t in tokens] == [tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.COMMENT], (text, line)
    assert yaml.safe_load(f"x: 1  # {line}\ny: 2\n") == {"x": 1, "y": 2}
    assert f"/* {line} */".count("*/") == 1


@SETTINGS
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=20))
def test_property_terminal_text_holds_no_control_and_no_override(text):
    from bioplan.request.text import terminal_safe

    out = terminal_safe(text)
    assert not [c for c in out if (unicodedata.category(c) == "Cc" and c not in "\n\t")
                or unicodedata.bidirectional(c) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")]
