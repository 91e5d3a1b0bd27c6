"""Signals during `bioplan compile` (issue 9, finding 6): SIGINT, SIGTERM and SIGHUP while the pre-check runs
remove the stage and scratch directories, stop the child `snakemake -n` and exit 128 + the signal number."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

DE_REQUEST = "mouse raw counts: differential expression with a volcano plot"


def _processes_in(directory: Path) -> list[int]:
    """Pids of live processes whose working directory is inside `directory` (the pre-check's snakemake)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if (cwd == str(directory) or cwd.startswith(str(directory) + os.sep)) and _alive(int(entry)):
            pids.append(int(entry))
    return pids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_for_precheck(base: Path, proc: subprocess.Popen, timeout: float = 120.0) -> list[int]:
    """Block until the pre-check's `snakemake -n` runs in a .bioplan-check-* directory; its pids."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"bioplan ended before its pre-check ran: {proc.communicate()}"
        checks = list(base.glob(".bioplan-check-*"))
        pids = [pid for c in checks for pid in _processes_in(c)]
        if pids:
            return pids
        time.sleep(0.05)
    raise AssertionError("the pre-check did not start")


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc to find the child process")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_during_precheck_cleans_up_and_exits_128_plus_signal(workspace, tmp_path, sig):
    data = tmp_path / "data"
    data.mkdir()
    for name in ("counts.csv", "samples.tsv"):
        shutil.copy(workspace / "data" / "bulk_de" / name, data / name)
    base = tmp_path / "project"
    base.mkdir()
    out = base / "wf" / "Snakefile"
    # The pre-check lasts well under a second; on a loaded machine the signal could land after it. A
    # sitecustomize on PYTHONPATH holds the child `snakemake -n` for a minute once it is in a pre-check
    # directory, so the signal always finds it running: a child started there (a plain dry run) at
    # its start, the child started ahead (snakemake_checks._DryRunWorker) when it changes into it.
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(
        "import os, time\n"
        "def _hold():\n"
        "    if '.bioplan-check-' in os.getcwd():\n"
        "        time.sleep(60)\n"
        "_chdir = os.chdir\n"
        "def _chdir_then_hold(path):\n"
        "    _chdir(path)\n"
        "    _hold()\n"
        "os.chdir = _chdir_then_hold\n"
        "_hold()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(hold), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bioplan.cli", "compile", DE_REQUEST, "-i", str(data / "counts.csv"),
         "-i", str(data / "samples.tsv"), "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # as from a terminal: under nohup (a CI run started with it) SIGHUP is inherited ignored, and
        # bioplan rightly keeps a signal its caller ignores (cli._interruptible)
        preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        children = _wait_for_precheck(base, proc)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr, stderr
    assert sorted(p.name for p in base.iterdir()) == [], "stage, scratch or lock left behind"
    assert not [pid for pid in children if _alive(pid)], "the child snakemake -n outlived bioplan"


def test_signal_during_install_is_held_until_the_files_are_in_place():
    """Moving files into -o is never cut short: the signal arrives once the install is complete."""
    from bioplan.signals import deferred_signals

    received = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    try:
        with deferred_signals():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            assert received == []
        time.sleep(0.05)
        assert received == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_signal_while_the_child_starts_still_stops_it(tmp_path, monkeypatch):
    """A signal that lands while the pre-check's child is being started (inside Popen) is acted on once the
    child exists, so it is stopped, never orphaned."""
    import bioplan.validate.snakemake_checks as checks
    from bioplan.errors import Interrupted

    started: list[subprocess.Popen] = []
    real_popen = subprocess.Popen

    def popen_then_signal(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        os.kill(os.getpid(), signal.SIGTERM)  # delivered while bioplan is still inside Popen
        time.sleep(0.05)
        return proc

    def raise_interrupted(signum, frame):
        raise Interrupted(signum)

    monkeypatch.setattr(checks.subprocess, "Popen", popen_then_signal)
    previous = signal.signal(signal.SIGTERM, raise_interrupted)
    try:
        with pytest.raises(Interrupted):
            checks._run([sys.executable, "-c", "import time; time.sleep(120)"], tmp_path)
    finally:
        signal.signal(signal.SIGTERM, previous)
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                pytest.fail("the child outlived the interrupted check")
    assert started and started[0].returncode is not None
