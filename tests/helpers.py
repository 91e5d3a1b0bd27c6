"""Helpers shared by several test files (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM interrupts a blocking open() of a FIFO or a runaway loop."""
    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


SNAKEMAKE = Path(sys.executable).parent / "snakemake"  # the test environment's snakemake


def read_yaml(path: Path):
    """A YAML file's values, read with libyaml's safe loader where PyYAML has it: the same values as
    yaml.safe_load's in a third of its time (the case files and ontology files tests read and edit
    are large: the pure-Python loader was seconds of the fast tier)."""
    import yaml

    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def write_yaml(path: Path, data) -> None:
    """`data` as YAML (keys in their order, Unicode as is), with libyaml's safe dumper where PyYAML has it."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    path.write_text(yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True), encoding="utf-8")


# rules/software_versions.smk: versions_<package> rules and the table they make
PROVENANCE_RULES = ("software_versions",)


def step_of(rule: str, steps: set[str]) -> str:
    """The plan step a Snakemake rule belongs to: itself, or the step whose auxiliary rule it is
    (variant_annotation_build_db runs inside the variant_annotation process; the IR says which
    rules are steps: check_gene_annotation_read_counting is one, beside check_gene_annotation)."""
    if rule in steps:
        return rule
    owners = [s for s in steps if rule.startswith(s + "_")]
    return max(owners, key=len) if owners else rule


def snakemake_rule_graph_edges(workdir: Path, steps: set[str]) -> set[tuple[str, str]]:
    """Step -> step edges of `snakemake --rulegraph` in workdir (auxiliary rules folded into their
    step, the `all` target and self-edges left out)."""
    env = dict(os.environ)
    env["PATH"] = str(SNAKEMAKE.parent) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run([str(SNAKEMAKE), *RULEGRAPH_ARGS], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return rule_graph_edges(proc.stdout, steps)


RULEGRAPH_ARGS = ["--rulegraph", "--cores", "1", "--quiet"]


def rule_graph_edges(dot: str, steps: set[str]) -> set[tuple[str, str]]:
    """The step edges of the output of `snakemake --rulegraph` (see snakemake_rule_graph_edges)."""
    labels = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)"', dot, re.M))
    edges = {(step_of(labels[a], steps), step_of(labels[b], steps))
             for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.M)}
    # the software versions table (rules/software_versions.smk) is provenance, not a step: Nextflow
    # gathers it from the versions topic outside the process graph
    return {(a, b) for a, b in edges if not {"all", *PROVENANCE_RULES} & {a, b} and not a.startswith("versions_")
            and a != b}


# One Python process imports Snakemake once and dry-runs or lints many workflows (`snakemake -n`
# each costs about a second, most of it the import; warm, a dry run is ~0.2 s, a lint ~0.1 s):
# jobs are JSON lines {cwd, args, tool} on stdin (tool "snakemake", the default, or "snakefmt"),
# results JSON lines {code, output} on stdout, in order. Executor plugins are hidden as in bioplan's
# pre-check.
_DRY_RUN_LOOP = r'''
import json, os, pkgutil, sys, tempfile
_iter_modules = pkgutil.iter_modules
pkgutil.iter_modules = lambda *a, **k: (m for m in _iter_modules(*a, **k)
                                        if not m.name.startswith("snakemake_executor_plugin_"))
sys.argv[0] = "snakemake"
from snakemake.cli import main as snakemake_main
def snakefmt_main(args):
    from snakefmt.snakefmt import main  # imported on first use: only the lint loops format
    main(args, prog_name="snakefmt")  # click: always exits (SystemExit) with the tool's code
results, saved_out, saved_err = os.fdopen(os.dup(1), "w"), os.dup(1), os.dup(2)
for line in sys.stdin:
    job = json.loads(line)
    os.chdir(job["cwd"])
    main = snakefmt_main if job.get("tool") == "snakefmt" else snakemake_main
    code = 0
    # capture at the file descriptors: Snakemake's log handlers keep the stream they were made with
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            main(job["args"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, (int, type(None))):  # sys.exit(message): Python prints it at exit
                print(exc.code, file=sys.stderr)
        except Exception as exc:  # reported as the job's failure, the loop goes on
            code = 1
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved_out, 1)
            os.dup2(saved_err, 2)
        capture.seek(0)
        output = capture.read().decode("utf-8", "replace")
    results.write(json.dumps({"code": code, "output": output}) + "\n")
    results.flush()
'''


class DryRunLoop:
    """`snakemake -n` of many workflow directories in one Snakemake process. submit() queues a
    directory (the loop works while the caller emits the next one), results() returns
    (exit code, output) per submitted directory, in order. submit() also takes other Snakemake
    arguments (`--lint`), or snakefmt's (tool="snakefmt"), run in the same process."""

    ARGS = ["-n", "--cores", "1", "--quiet", "rules"]

    def __init__(self) -> None:
        # never ask a SLURM controller; the pinned tools beside this Python first (as bioplan's checks)
        env = dict(os.environ, SLURM_CONF=os.devnull,
                   PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-c", _DRY_RUN_LOOP], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.pending = 0

    def submit(self, workdir: Path, args: list[str] | None = None, tool: str = "snakemake") -> None:
        job = {"cwd": str(workdir), "args": self.ARGS if args is None else args, "tool": tool}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        self.pending += 1

    def results(self) -> list[tuple[int, str]]:
        out = []
        for _ in range(self.pending):
            line = self.proc.stdout.readline()
            assert line, "the dry-run loop ended early"
            result = json.loads(line)
            out.append((result["code"], result["output"]))
        self.pending = 0
        return out

    def close(self) -> None:
        """End the loop; jobs still queued (the caller failed before reading them) are dropped."""
        if self.pending:
            self.proc.kill()
        else:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def loop_checks(loop: DryRunLoop, workdir: Path) -> list[tuple[str, bool, str]]:
    """(name, ok, output) of bioplan's validate_workflow checks (`snakemake -n`, `snakemake --lint`,
    `snakefmt --check`; compiler/bioplan/validate/snakemake_checks.py), with its arguments and
    verdicts, run in the loop's one process instead of three new ones per workflow."""
    rules = sorted(str(p.relative_to(workdir)) for p in (workdir / "workflow" / "rules").glob("*.smk"))
    loop.submit(workdir)
    loop.submit(workdir, ["--lint", "--cores", "1"])
    loop.submit(workdir, ["--check", "--diff", "workflow/Snakefile", *rules], tool="snakefmt")
    (dry_code, dry_out), (lint_code, lint_out), (fmt_code, fmt_out) = loop.results()
    return [("dry_run", dry_code == 0, dry_out),
            ("lint", lint_code == 0 and "Lints for" not in lint_out, lint_out),
            ("format", fmt_code == 0, fmt_out)]


def write_fastq(path: Path, mate: int, reads: int = 4, length: int = 40, gz: bool = True) -> str:
    """A tiny FASTQ file of `reads` records '@r<i>/<mate>' of ACGT repeats at Q40, gzipped unless `gz`
    is False (parent folders made); returns the path as a string for compile's inputs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"@r{i}/{mate}\n{('ACGT' * length)[:length]}\n+\n{'I' * length}\n" for i in range(reads))
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return str(path)


def fastq_pairs(base: Path, samples: list[str]) -> list[str]:
    """Paired FASTQ files of each sample (in its own folder, so names differing only in case or
    normalisation can sit side by side on any file system)."""
    return [write_fastq(base / f"run{i}" / f"{sample}_R{mate}.fastq.gz", mate)
            for i, sample in enumerate(samples) for mate in (1, 2)]


def planning_refusal(knowledge, query: str, inputs: list[str], workdir: Path):
    """The BioplanError that planning or synthesizing the request's first plan raises (fails if none)."""
    import pytest

    from bioplan.codegen.ir import synthesize
    from bioplan.compile import plan_request
    from bioplan.errors import BioplanError

    with pytest.raises(BioplanError) as err:
        result = plan_request(query, inputs, knowledge)
        synthesize(knowledge, result.spec, result.plans[0], workdir=str(workdir))
    return err.value


@functools.cache
def r_packages_installed(packages: tuple[str, ...]) -> bool:
    """Whether every R package is installed. system.file() finds a package without loading it (as
    scripts/install-tools.sh checks): requireNamespace() would load its namespace, 12-14 CPU-s for DESeq2
    (S4 method tables), as much again as the test's own R run. Asked once per test process."""
    names = ", ".join(f'"{p}"' for p in packages)
    probe = f"quit(status = !all(vapply(c({names}), function(p) nzchar(system.file(package = p)), logical(1))))"
    return subprocess.run(["Rscript", "-e", probe], capture_output=True, timeout=120).returncode == 0


def require_r_packages(*packages: str) -> None:
    """Skip when Rscript or one of the R packages (and jsonlite, which the step scripts' runner reads
    its parameters with) is missing; under CI=true, where scripts/install-tools.sh installs them, fail."""
    import shutil

    from conftest import skip_or_fail_in_ci

    if shutil.which("Rscript") is None:
        skip_or_fail_in_ci("Rscript is not installed (scripts/install-tools.sh installs it)")
    if not r_packages_installed(("jsonlite", *packages)):
        skip_or_fail_in_ci(f"R packages {', '.join(packages)} are not installed "
                           "(scripts/install-tools.sh installs them)")


# Several runs of R step scripts in one R session, each through the Nextflow target's runner (bin/bioplan_run.R)
# as `Rscript bioplan_run.R ARGS` runs it: the runner reads its run's arguments from commandArgs(), given per run.
# What a script attaches stays for the next run, so a Bioconductor package loads once per session instead of once
# per run (DESeq2: 12-14 CPU-s); the sinks a run leaves are closed at its end, as its process's end would. fail()
# quits the session for real (exit status 1), so a run expected to fail goes last. A prelude (R code) runs first.
_R_SESSION = r"""
session <- commandArgs(trailingOnly = TRUE)
eval(parse(text = session[3]))
runs <- jsonlite::fromJSON(session[2], simplifyVector = FALSE)
for (i in seq_along(runs)) {
  cat(sprintf("@@bioplan-run %d\n", i), file = stderr())
  run_env <- new.env()
  run_env$commandArgs <- local({
    argv <- unlist(runs[[i]])
    function(trailingOnly = FALSE) if (trailingOnly) argv else base::commandArgs(FALSE)
  })
  source(session[1], local = run_env)
  while (sink.number() > 0) sink()
  sink(type = "message")
  cat(sprintf("@@bioplan-run %d ended\n", i), file = stderr())
}
"""
_RUN_MARK = re.compile(r"(.*)@@bioplan-run (\d+)( ended)?\n?", re.DOTALL)  # after a run's unended last line too


def run_r_session(workdir: Path, runner: Path, runs: list[list[str]], prelude: str = "",
                  timeout: int = 600) -> list[tuple[int | None, str]]:
    """Each run's (exit status, terminal) after `runs` (the runner's argument lists) ran in one R session:
    0 for a run that ended, the session's exit status for the run it ended in, None for a run never started
    (its terminal then says why). The terminal is what the run wrote on stderr."""
    (workdir / "r_session_runs.json").write_text(json.dumps(runs))
    proc = subprocess.run(["Rscript", "-e", _R_SESSION, str(runner), str(workdir / "r_session_runs.json"), prelude],
                          capture_output=True, text=True, timeout=timeout, cwd=workdir)
    return split_r_session(proc.stderr, len(runs), proc.returncode)


def split_r_session(stderr: str, n_runs: int, status: int) -> list[tuple[int | None, str]]:
    """run_r_session's result from the session's stderr (the runs' terminals between its marks) and exit status."""
    codes: list[int | None] = [None] * n_runs
    terminals = [""] * n_runs
    outside, current = "", None
    for line in stderr.splitlines(keepends=True):
        mark = _RUN_MARK.fullmatch(line)
        text = mark.group(1) if mark else line
        if current is None:
            outside += text
        else:
            terminals[current] += text
        if mark:
            run = int(mark.group(2)) - 1
            current = None if mark.group(3) else run
            if mark.group(3):
                codes[run] = 0
    for i, code in enumerate(codes):
        if code is None and terminals[i] == "" and i != current:
            terminals[i] = f"(not run: the R session ended before it, status {status})\n{outside}"
        elif code is None:
            codes[i] = status
    return list(zip(codes, terminals))
