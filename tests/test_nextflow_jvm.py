"""tests/nextflow_jvm.run, the one way the tests launch Nextflow with their JVM options: the options reach
the launcher, a first successful run's archive is kept (a failed one's is not), and a run past its
timeout is killed with everything it started. A shell script stands in for the launcher."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import nextflow_jvm


def _launcher(tmp_path: Path, body: str) -> str:
    script = tmp_path / "nextflow"
    script.write_text(f"#!/bin/bash\n{body}\n")
    script.chmod(0o755)
    return str(script)


def _running(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "bioplan" / "nextflow-cds"


@pytest.mark.parametrize("code", [0, 3])
def test_the_options_reach_the_launcher_and_only_a_good_first_run_keeps_its_archive(tmp_path, cache, code):
    # a first run is asked to write the archive at exit; the stand-in writes it where it is asked to
    nextflow = _launcher(tmp_path, 'echo "$NXF_OPTS"; f="${NXF_OPTS##*ArchiveClassesAtExit=}"; '
                                   f'echo archive > "$f"; echo "$1" >&2; exit {code}')
    proc = nextflow_jvm.run([nextflow, "run"], cwd=tmp_path, env={"NXF_OPTS": "-Xmx1g", "PATH": os.environ["PATH"]},
                            timeout=30)
    assert proc.returncode == code and proc.stderr == "run\n"
    assert proc.stdout.startswith(f"-Xmx1g {nextflow_jvm.GC} -XX:ArchiveClassesAtExit=")
    archive = nextflow_jvm.archive_path(nextflow)
    assert archive.is_file() == (code == 0) and not list(cache.glob("*.tmp"))
    if code == 0:  # the next run maps it
        again = nextflow_jvm.run([nextflow], cwd=tmp_path, env={"PATH": os.environ["PATH"]}, timeout=30,
                                 stderr=subprocess.STDOUT)
        assert f"-XX:SharedArchiveFile={archive}" in again.stdout


def test_a_run_past_its_timeout_is_killed_with_what_it_started(tmp_path, cache):
    pid_file = tmp_path / "child.pid"
    nextflow = _launcher(tmp_path, f'echo started; sleep 60 & echo $! > "{pid_file}"; wait')
    with pytest.raises(subprocess.TimeoutExpired) as timed_out:
        nextflow_jvm.run([nextflow], cwd=tmp_path, env={"PATH": os.environ["PATH"]}, timeout=0.5)
    assert timed_out.value.output == "started\n"
    child = int(pid_file.read_text())
    for _ in range(50):  # SIGKILL is delivered at once; the zombie is reaped by init
        if not _running(child):
            break
        time.sleep(0.02)
    else:
        pytest.fail(f"the launcher's child {child} still runs")
    assert not list(cache.glob("*.tmp"))


@pytest.mark.parametrize("reports", [False, True])
def test_a_run_renders_no_html_reports_unless_asked(tmp_path, cache, reports):
    """`run` gets the config that turns the HTML report, timeline and DAG off first among its -c files, unless
    reports=True; other commands are passed as they are."""
    nextflow = _launcher(tmp_path, 'echo "$*"')
    env = {"PATH": os.environ["PATH"]}
    proc = nextflow_jvm.run([nextflow, "run", ".", "-c", "mine.config"], cwd=tmp_path, env=env, timeout=30,
                            reports=reports)
    quiet = f"-c {nextflow_jvm.NO_REPORTS} "
    assert proc.stdout == f"run {'' if reports else quiet}. -c mine.config\n"
    assert "report.enabled = false" in nextflow_jvm.NO_REPORTS.read_text()
    other = nextflow_jvm.run([nextflow, "lint", "."], cwd=tmp_path, env=env, timeout=30)
    assert other.stdout == "lint .\n"
