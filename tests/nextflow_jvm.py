"""JVM options for the tests' Nextflow runs: the serial collector (a short run on few cores spends
less CPU than with G1's threads) and a class-data-sharing archive of Nextflow's own classes, so each
launch maps them instead of loading and verifying them from the jars (about 1.5 s of CPU a launch).

The first run without an archive writes one (-XX:ArchiveClassesAtExit) to a private name; it becomes
the archive only when that run succeeded (a partly written archive crashes the JVM that maps it).
The archive's name holds the Java and Nextflow it was made with: another runtime makes its own.

A `run` also gets `-c nextflow_no_reports.config` (the HTML report, timeline and DAG off: ~2.5 CPU-s a launch
that no test reads) unless the caller asks for the reports (reports=True)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

GC = "-XX:+UseSerialGC"
NO_REPORTS = Path(__file__).resolve().parent / "nextflow_no_reports.config"


def _java() -> str:
    """The java the Nextflow launcher runs: $NXF_JAVA_HOME, $JAVA_HOME, else PATH (as its script)."""
    for home in (os.environ.get("NXF_JAVA_HOME"), os.environ.get("JAVA_HOME")):
        if home:
            return str(Path(home) / "bin" / "java")
    return shutil.which("java") or "java"


def archive_path(nextflow: str) -> Path:
    java = os.path.realpath(_java())
    launcher = os.path.realpath(nextflow)
    stamp = "|".join(f"{p}:{os.stat(p).st_mtime_ns if os.path.exists(p) else 0}" for p in (java, launcher))
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bioplan" / "nextflow-cds"
    return cache / f"nextflow-{key}.jsa"


class JvmOptions:
    """NXF_OPTS for one Nextflow run; keep(returncode) after it ends installs a new archive."""

    def __init__(self, nextflow: str):
        self.archive = archive_path(nextflow)
        self.writing: Path | None = None
        if self.archive.is_file():
            self.options = f"{GC} -XX:SharedArchiveFile={self.archive}"
        else:
            self.archive.parent.mkdir(parents=True, exist_ok=True)
            self.writing = self.archive.with_name(f"{self.archive.name}.{os.getpid()}.tmp")
            self.options = f"{GC} -XX:ArchiveClassesAtExit={self.writing}"

    def env(self, env: dict[str, str]) -> dict[str, str]:
        """env with these options after any NXF_OPTS it already has."""
        return {**env, "NXF_OPTS": f"{env.get('NXF_OPTS', '')} {self.options}".strip()}

    def keep(self, returncode: int) -> None:
        if self.writing is None:
            return
        if returncode == 0 and self.writing.is_file():
            os.replace(self.writing, self.archive)  # atomic: a concurrent run maps a whole archive or none
        else:
            self.writing.unlink(missing_ok=True)


def without_reports(command: list[str]) -> list[str]:
    """A `nextflow run` command with NO_REPORTS given first among its -c files (a later one may still turn a
    report on); any other command as it is."""
    if command[1:2] != ["run"]:
        return command
    return [command[0], "run", "-c", str(NO_REPORTS), *command[2:]]


def run(command: list[str], *, cwd: Path | str, env: dict[str, str], timeout: float,
        stderr: int = subprocess.PIPE, reports: bool = False) -> subprocess.CompletedProcess[str]:
    """`command` (a Nextflow launcher, then its arguments) with these JVM options, in its own process
    group, so that on a timeout the JVM and every task it started are killed instead of left running
    beside the next tests (then subprocess.TimeoutExpired, its output in .output); the archive a first
    run wrote is kept when the run succeeded. stderr=subprocess.STDOUT merges the streams. A `run`
    renders no HTML report, timeline or DAG unless reports=True (without_reports)."""
    if not reports:
        command = without_reports(command)
    jvm = JvmOptions(command[0])
    with subprocess.Popen(command, cwd=cwd, env=jvm.env(env), stdout=subprocess.PIPE, stderr=stderr, text=True,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as timed_out:
            os.killpg(proc.pid, signal.SIGKILL)
            timed_out.output, _ = proc.communicate()
            jvm.keep(-signal.SIGKILL)
            raise
    jvm.keep(proc.returncode)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)
