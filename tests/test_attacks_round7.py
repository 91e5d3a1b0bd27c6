"""Attacks round 7: what reaches the shell of a SLURM job's submission and of the job itself.

- snakemake-executor-plugin-slurm 2.8 submits each job with `sbatch --wrap="<the job's snakemake command>"` through a
  shell unless slurm-pass-command-as-script is set: profiles/slurm sets it, but `snakemake --executor slurm` without
  that profile does not, and the command names the job's sample (`--target-jobs 'rule:sample=<id>'`): inside those
  double quotes a sample 'S$(touch PWNED)' ran touch on the submitting host. Ids holding '$' or a backtick are now
  refused at compile time (codegen/names.py ID_SYNTAX), from file names, sample sheets and read groups alike;
- the same command names every input file of the job (`--wait-for-files <path> ...`) and the workflow's folder
  (`--snakefile <-o>/workflow/Snakefile`) as Python's repr quotes them: a path holding a "'" goes in double quotes,
  where '$(...)' and backticks are commands, also in the script profiles/slurm passes (an input folder
  "it's$(touch PWNED)" ran touch in each job reading a file of it, seen with the plugin and fake SLURM commands);
  one holding both quotes gets a \\' the shell reads as the quote's end. Such input, reference and -o paths are
  refused for the Snakemake target (codegen/snakemake.py slurm_unquotable), and by samples.schema.yaml.

Shell quoting is checked with the plugin's own functions run through `sh` (tests/test_attacks_round6.py's helpers),
and under `e2e` with Snakemake's SLURM executor itself, against fake SLURM commands that record each submission.
Properties: 50 examples in the fast tier (a tenth of them where each runs a shell), 2,000 under CI=true.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bioplan.codegen.names import refuse_id_syntax
from bioplan.codegen.snakemake import SAMPLE_NAME_PATTERN, SHEET_PATH_PATTERN, slurm_unquotable
from bioplan.compile import compile_request
from bioplan.errors import TargetUnsupportedError, UnreadableInputError
from helpers import fastq_pairs, planning_refusal, write_fastq
from test_attacks_round6 import SETTINGS, TRIM, _refused, _run_as_script, _run_wrapped

EXAMPLES = SETTINGS.max_examples


def _intact(lines: list[str], name: str) -> bool:
    shown = f'"{name}"' if "," in name else name  # the plugin's own quotes around an id holding a ','
    return lines == ["--target-jobs", f"read_trimming:sample={shown}"]


# ----------------------------------------------------------------------------- '$' and '`' in ids
DOLLAR_IDS = ["S$(touch PWNED)", "S`touch PWNED`", "S${PWNED:=x}", "S$HOME"]


@pytest.mark.parametrize("name", DOLLAR_IDS)
def test_an_id_holding_a_dollar_or_a_backtick_is_refused_naming_its_file(knowledge, tmp_path, name):
    (tmp_path / "sh").mkdir()
    assert not _intact(_run_wrapped(name, tmp_path / "sh").splitlines(), name)  # why: --wrap="..." expands it
    assert _intact(_run_as_script(name, tmp_path / "sh").splitlines(), name)  # (profiles/slurm's way keeps it)
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [name, "S2"]), tmp_path / "out")
    assert isinstance(err, UnreadableInputError) and err.code == "unreadable_input"
    assert f"the sample id {name!r} (from {repr(name + '_R')[:-1]}" in err.message
    assert "--wrap" in err.message and "submitting host" in err.message
    assert err.hints == ["to resolve, rename the sample without '$' or '`' (in the input files' names, the sample "
                         "sheet or an alignment's read-group SM tag)"]
    assert not re.match(SAMPLE_NAME_PATTERN, name)  # nor taken from samples.tsv edited after compiling
    assert [p.parent for p in tmp_path.rglob("PWNED")] in ([], [tmp_path / "sh"])  # only the --wrap shell above


def test_an_id_from_a_sample_sheet_or_a_read_group_is_held_to_the_same_rule(knowledge, tmp_path):
    """The id sources beside file names: a sample sheet's sample column (its rows naming the FASTQ files) and an
    alignment's read-group SM tag (bamCoverage over SAM files)."""
    sheet_dir = tmp_path / "sheet"
    for i in (1, 2):
        for mate in (1, 2):
            write_fastq(sheet_dir / f"x{i}_R{mate}.fastq.gz", mate)
    sheet = sheet_dir / "samples.tsv"
    sheet.write_text("sample\tfastq_1\tfastq_2\ntreated $(touch PWNED)\tx1_R1.fastq.gz\tx1_R2.fastq.gz\n"
                     "ctrl\tx2_R1.fastq.gz\tx2_R2.fastq.gz\n")
    err = planning_refusal(knowledge, TRIM, [str(sheet)], tmp_path / "out")
    assert isinstance(err, UnreadableInputError) and "'treated $(touch PWNED)'" in err.message, err.message
    sams = []
    for sm in ("S`touch PWNED`", "S2"):
        sam = tmp_path / "sam" / f"{len(sams)}.sam"
        sam.parent.mkdir(exist_ok=True)
        sam.write_text(f"@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chr1\tLN:1000\n@RG\tID:rg1\tSM:{sm}\n"
                       "r1\t0\tchr1\t10\t60\t4M\t*\t0\t0\tACGT\tIIII\n")
        sams.append(str(sam))
    err = planning_refusal(knowledge, "make bigWig coverage tracks with deepTools bamCoverage", sams, tmp_path / "o")
    assert isinstance(err, UnreadableInputError) and "'S`touch PWNED`' (from '0.sam')" in err.message, err.message
    assert not list(tmp_path.rglob("PWNED"))


def test_patient_and_lane_ids_are_refused_with_a_dollar_too():
    for key in ("patient", "lane"):
        with pytest.raises(UnreadableInputError, match=f"the {key} id 'p\\$1' holds '\\$' or '`'"):
            refuse_id_syntax({"sample": ["s1"], key: ["p1", "p$1"]}, {})


# ----------------------------------------------------------------------------- ids a SLURM job's target cannot hold
def _target_of(name: str) -> dict[str, str]:
    """The wildcards a SLURM job's snakemake reads from its --target-jobs argument (the plugin's encoding, then
    Snakemake's own parser; the shell between them is checked by the properties)."""
    from snakemake.target_jobs import parse_target_jobs_cli_args
    from snakemake_interface_executor_plugins.utils import TargetSpec, encode_target_jobs_cli_args

    (encoded,) = encode_target_jobs_cli_args([TargetSpec("read_trimming", {"sample": name})])
    unquoted = encoded.replace(f'"{name}"', name) if "," in name else encoded  # the shell removes those quotes
    return parse_target_jobs_cli_args([unquoted])[0].wildcards_dict


@pytest.mark.parametrize("name, why", [("a,b", "splits at every ','"), ("ctrl '2'", "quotes at the value's ends"),
                                       ("'x", "quotes at the value's ends")])
def test_an_id_a_slurm_jobs_target_cannot_hold_is_refused(knowledge, tmp_path, name, why):
    """A SLURM job's snakemake reads '<rule>:sample=<id>': Snakemake splits it at every ',' (every job of sample
    'a,b' failed: "Invalid target wildcards definition") and strips quotes at the value's ends (the job of "ctrl '2'"
    looked for "ctrl '2")."""
    with contextlib.suppress(ValueError):
        assert _target_of(name) != {"sample": name}
    err = planning_refusal(knowledge, TRIM, fastq_pairs(tmp_path / "in", [name, "S2"]), tmp_path / "out")
    assert isinstance(err, UnreadableInputError) and repr(name) in err.message and why in err.message, err.message
    assert not re.match(SAMPLE_NAME_PATTERN, name)


_SHELL_PIECES = ["$(touch PWNED)", "`touch PWNED`", "${PWNED:=x}", "$", "'", '"', ",", ";", " ", "|", "&", "\\",
                 "(", ")", "{", "}", "!", "*", "?", "~", "#", "=", "a", "b"]


@settings(SETTINGS, max_examples=max(10, EXAMPLES // 5))  # two shells per example
@given(name=st.lists(st.sampled_from(_SHELL_PIECES), min_size=1, max_size=8).map("".join))
def test_property_an_id_bioplan_takes_reaches_the_job_as_itself_with_or_without_the_profile(tmp_path_factory, name):
    """Every id bioplan accepts is exactly the id in the job's command, submitted as profiles/slurm submits it (a
    script) and as `snakemake --executor slurm` without it does (sbatch --wrap="..."), runs nothing, and is the
    sample the job's snakemake reads from its target."""
    if _refused(name):
        return
    cwd = tmp_path_factory.mktemp("sh")
    assert _intact(_run_as_script(name, cwd).splitlines(), name), name
    assert _intact(_run_wrapped(name, cwd).splitlines(), name), name
    assert not (cwd / "PWNED").exists()
    assert _target_of(name) == {"sample": name}, name  # and the job's snakemake takes it as that sample


# ----------------------------------------------------------------------------- paths the jobs' commands name
def _wait_for_files(path: str, cwd: Path, wrapped: bool = False) -> list[str]:
    """The job's `--wait-for-files` as the SLURM executor writes it (the plugin's own quoting), run as the script
    profiles/slurm passes to sbatch or, `wrapped`, inside sbatch --wrap="..." from a shell (only '"' escaped)."""
    from snakemake_interface_executor_plugins.utils import format_cli_arg

    script = "printf '%s\\n' " + format_cli_arg("--wait-for-files", [path, "results/x.ok"])
    if wrapped:
        script = 'sh -c "' + script.replace('"', '\\"') + '"'
    return subprocess.run(["sh", "-s"], input=script, cwd=cwd, capture_output=True, text=True, timeout=30,
                          ).stdout.splitlines()


@pytest.mark.parametrize("folder", ["it's$(touch PWNED)", "it's`touch PWNED`", "a'\"; touch PWNED; \"",
                                    "run $(touch PWNED)", "run`touch PWNED`"])
def test_an_input_folder_the_slurm_quoting_breaks_is_refused_for_snakemake(knowledge, tmp_path, folder):
    (tmp_path / "sh").mkdir()
    path = f"../in/{folder}/S1_R1.fastq.gz"
    intact = ["--wait-for-files", path, "results/x.ok"]
    assert intact != _wait_for_files(path, tmp_path / "sh") or intact != _wait_for_files(path, tmp_path / "sh", True)
    reads = fastq_pairs(tmp_path / "in" / folder, ["S1", "S2"])
    with pytest.raises(TargetUnsupportedError) as err:
        compile_request(TRIM, reads, str(tmp_path / "wf"), knowledge=knowledge, validate=False)
    assert err.value.code == "target_unsupported" and "sbatch --wrap" in err.value.message
    assert len(err.value.details["paths"]) == 4 and all(f"/{folder}/" in p for p in err.value.details["paths"])
    assert err.value.hints == ["to resolve, rename the file or folder without '$' and '`', and without either quote "
                               "if it holds both"]
    assert not (tmp_path / "wf").exists() and not re.match(SHEET_PATH_PATTERN, path)
    for run in tmp_path.rglob("PWNED"):  # only the shells of the check above ran it
        assert run.parent == tmp_path / "sh", run


def test_a_folder_with_one_kind_of_quote_or_shell_punctuation_still_compiles(knowledge, tmp_path):
    """Only what the quoting breaks is refused: "it's" is in double quotes with nothing to expand, 'say "hi"' and
    ';', '|', '&' in single quotes, in the job's script and inside --wrap="..." alike."""
    for i, folder in enumerate(("it's", 'say "hi"', "a;b|c&d (1)")):
        out = tmp_path / f"wf{i}"
        compile_request(TRIM, fastq_pairs(tmp_path / f"in{i}" / folder, ["S1", "S2"]), str(out), knowledge=knowledge,
                        validate=False)
        path = list(csv.reader((out / "config" / "samples.tsv").open(), delimiter="\t"))[1][1]
        assert path == f"../in{i}/{folder}/run0/S1_R1.fastq.gz" and re.match(SHEET_PATH_PATTERN, path)
        for wrapped in (False, True):
            assert _wait_for_files(path, tmp_path, wrapped) == ["--wait-for-files", path, "results/x.ok"]


@pytest.mark.parametrize("name", ["out'$(touch PWNED)", "out $(touch PWNED)", "out`touch PWNED`", "o'\"x"])
def test_an_output_folder_the_slurm_quoting_breaks_is_refused_before_any_work(knowledge, tmp_path, name):
    """Every job's command names the workflow's folder (--snakefile, its temporary folder)."""
    reads = fastq_pairs(tmp_path / "in", ["S1", "S2"])
    out = tmp_path / name
    with pytest.raises(TargetUnsupportedError, match="-o .*workflow's folder") as err:
        compile_request(TRIM, reads, str(out), knowledge=knowledge, validate=False)
    assert err.value.details == {"path": str(out)}
    assert not out.exists() and not list(tmp_path.rglob("PWNED"))


_PATH_PIECES = ["$(touch PWNED)", "`touch PWNED`", "$", "'", '"', "\\", " ", ";", "|", "&", "/", "a", ".", "-", "="]


@settings(SETTINGS, max_examples=max(10, EXAMPLES // 5))  # two shells per example
@given(path=st.lists(st.sampled_from(_PATH_PIECES), min_size=1, max_size=8).map("".join))
def test_property_a_path_bioplan_takes_reaches_the_job_as_itself(tmp_path_factory, path):
    """Every input path the Snakemake target accepts is exactly itself in the job's --wait-for-files, submitted as a
    script (profiles/slurm) or inside --wrap="..." (without it), and samples.tsv's schema takes exactly those."""
    path = f"./{path}"  # as codegen/ir.py _rel writes a path starting like a formula
    accepted = not slurm_unquotable(path)
    assert bool(re.match(SHEET_PATH_PATTERN, path)) == accepted, path
    if accepted and "\\" not in path:  # (a backslash: see test_a_backslash_in_a_path_is_doubled_in_a_jobs_script)
        cwd = tmp_path_factory.mktemp("sh")
        for wrapped in (False, True):
            assert _wait_for_files(path, cwd, wrapped) == ["--wait-for-files", path, "results/x.ok"], (path, wrapped)
        assert not (cwd / "PWNED").exists()


def test_a_backslash_in_a_path_is_doubled_in_a_jobs_script(tmp_path):
    """Left as it is (SECURITY.md, known limit): Python's repr doubles a backslash, and single quotes keep both, so
    the job waits for a file that does not exist and fails; nothing runs. If this stops, the plugin quotes paths."""
    assert _wait_for_files("a\\b.fq", tmp_path) == ["--wait-for-files", "a\\\\b.fq", "results/x.ok"]


# ----------------------------------------------------------------------------- Snakemake's SLURM executor itself
_FAKE_SBATCH = """#!/bin/sh
# records each submission: its arguments, and the script on stdin when there is one; prints a job id. Named by
# this shell's process id: the executor may submit two jobs at once, and a count of the files already written
# gave both the same name, one overwriting the other.
calls="$BIOPLAN_FAKE_SLURM"
n=$$
printf '%s\\n' "$@" > "$calls/$n.args"
case "$*" in *"/dev/stdin"*) cat > "$calls/$n.script";; esac
echo "42$n"
"""


def _fake_slurm(bin_dir: Path) -> None:
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(_FAKE_SBATCH)
    for tool in ("sinfo", "squeue", "sacct", "sacctmgr", "sshare", "scontrol", "scancel", "srun"):
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)


def _submissions(workdir: Path, calls: Path, bin_dir: Path, *args: str, jobs: int = 2) -> list[str]:
    """Run `snakemake --executor slurm` (Snakemake's SLURM executor plugin) until it has submitted its first `jobs`
    jobs to the fake sbatch, then stop it: each submission's job command (the script, or the --wrap value)."""
    calls.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
           "BIOPLAN_FAKE_SLURM": str(calls)}
    env.pop("SNAKEMAKE_PROFILE", None)
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "--executor", "slurm", "--jobs", "4", "--nolock",
                             "--default-resources", "slurm_partition=debug", "slurm_account=ci", *args],
                            cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        end = time.monotonic() + 180
        while len(list(calls.glob("*.args"))) < jobs and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(0.5)  # the last submission's script written
    finally:
        with contextlib.suppress(ProcessLookupError):  # (it may have ended on its own)
            os.killpg(proc.pid, signal.SIGKILL)
        output = proc.communicate()[0].decode(errors="replace")
    commands = []
    for found in sorted(calls.glob("*.args")):
        script = found.with_suffix(".script")
        if script.exists():
            commands.append(script.read_text().split("\n", 1)[1])
        else:
            commands.append(next(a for a in found.read_text().splitlines() if a.startswith("--wrap="))[7:])
    assert commands, output[-3000:]
    return commands


def _job_args(command: str, cwd: Path) -> list[str]:
    """The arguments a job's command gives its snakemake, as the node's shell reads them."""
    return subprocess.run(["sh", "-s"], input="printf '%s\\n' " + command.split(" ", 1)[1], cwd=cwd,
                          capture_output=True, text=True, timeout=60).stdout.splitlines()


@pytest.mark.e2e
def test_snakemakes_slurm_executor_submits_hostile_names_as_data_with_or_without_the_profile(knowledge, tmp_path):
    """The emitted workflow under Snakemake's SLURM executor, against fake SLURM commands: an id and paths bioplan
    accepts (a "'" with ';' and '|') run nothing at submission and reach each job's snakemake as themselves, with
    profiles/slurm (the job's script run here as the node would, its command printing its arguments) or without it
    (sbatch --wrap="...": the submitting shell has read the command once already)."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    bin_dir = tmp_path / "bin"
    _fake_slurm(bin_dir)
    name = "S 'q';touch PWNED"
    reads = fastq_pairs(tmp_path / "in 'a';touch PWNED|", [name, "S2"])
    workdir = compile_request(TRIM, reads, str(tmp_path / "wf ;touch PWNED"), knowledge=knowledge,
                              validate=False, partition="debug", account="ci").output_dir
    sheet = {row[i] for row in list(csv.reader((workdir / "config/samples.tsv").open(), delimiter="\t"))[1:]
             for i in (1, 2)}
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "config.yaml").write_text("\n".join(  # the emitted profile, its tools found on PATH (no conda)
        line for line in (workdir / "profiles/slurm/config.yaml").read_text().splitlines()
        if not line.startswith("software-deployment-method:")) + "\n")
    node = tmp_path / "node"
    node.mkdir()
    # without the profile each sample's check is a job of its own (2 at once); with it the step's checks are one
    # group job of both samples (its group-components), and nothing else is submitted before that job ends, which
    # the fake SLURM never reports: waiting for a second submission there would only wait for the timeout
    for mode, extra, jobs in (("wrap", (), 2), ("script", ("--profile", str(profile)), 1)):
        targets, waited = [], []
        for command in _submissions(workdir, tmp_path / mode, bin_dir, *extra, jobs=jobs):
            args = _job_args(command, node)
            targets += args[args.index("--target-jobs") + 1:args.index("--allowed-rules")]
            waited += [a for a in args[args.index("--wait-for-files") + 1:] if a.endswith(".fastq.gz")]
        assert any(t.endswith(f":sample={name}") for t in targets), (mode, targets)
        assert waited and set(waited) <= sheet, (mode, waited, sheet)
    assert not list(tmp_path.rglob("PWNED")), "a name ran as a command"
