"""Validate stage for the Snakemake target: `snakemake -n`, `snakemake --lint`, `snakefmt --check`.

Each check has one name, shared by this module, the tests and the docs:
`dry_run`, `lint`, `format`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bioplan.signals import deferred_signals
from bioplan.validate.check_result import CheckResult


def _tool(name: str) -> list[str]:
    """Run the console script installed beside this Python (the pinned one), else from PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    return [found] if found else [sys.executable, "-m", name]


# `snakemake` without its executor plugins. Snakemake imports every installed executor plugin at
# start, while these checks use only its built-in dry run and linter. The SLURM plugin
# (bioplan[slurm]) costs ~0.4 s of pandas import on every start, and where SLURM's client tools exist
# but no controller answers, ~9 s more waiting for `scontrol show config`. The plugin registry finds
# plugins by module name (pkgutil.iter_modules), so hiding those names skips them; if a Snakemake
# release finds them another way, the checks stay correct, only slower. Like `bioplan compile`
# itself (cli.py, _ONE_SHOT_GC_THRESHOLDS), this one-shot Snakemake collects garbage rarely: with
# the default thresholds ~290 collections took ~160 ms of a dry run's ~1.1 s of CPU; and it skips
# the interpreter's collections at exit (cli.py, _no_final_collections): the freeze is registered
# first, so it runs after Snakemake's own exit handlers (logging's flush).
_SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS = """\
import atexit, gc, pkgutil, sys
atexit.register(gc.freeze)
gc.set_threshold(100_000, 50, 100)
_iter_modules = pkgutil.iter_modules
pkgutil.iter_modules = lambda *a, **k: (m for m in _iter_modules(*a, **k)
                                        if not m.name.startswith("snakemake_executor_plugin_"))
sys.argv[0] = "snakemake"
from snakemake.cli import main
sys.exit(main())
"""


def _snakemake() -> list[str]:
    """The pinned snakemake (a dependency of bioplan, importable by this Python), without executor plugins."""
    if importlib.util.find_spec("snakemake") is not None:
        return [sys.executable, "-c", _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS]
    return _tool("snakemake")


def _check_env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    # the pinned snakemake/snakefmt/shfmt live beside this Python even without an activated venv
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("XDG_CACHE_HOME", str(cache))
    # These checks are local and never talk to SLURM: should an executor plugin still be loaded (see
    # _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS), an empty SLURM_CONF makes its `scontrol` fail at once.
    env["SLURM_CONF"] = os.devnull
    # the user's default profile (SNAKEMAKE_PROFILE: an executor, jobs, resources of their own runs) would be
    # read by the check's snakemake too: 'executor: slurm' failed it as if the workflow were broken. The
    # workflow's own profiles/default is still read, as at run time.
    env.pop("SNAKEMAKE_PROFILE", None)
    return env


def _run(argv: list[str], cwd: Path, timeout: int = 600) -> tuple[int, str]:
    env = _check_env(cwd / ".snakemake" / "cache")
    # its own process group: on timeout or when bioplan is interrupted, the tool and anything it
    # started are stopped together, and a Ctrl-C at the terminal reaches bioplan only
    proc = None
    try:
        # a signal while the child starts is acted on once `proc` exists, so that it can be stopped
        with deferred_signals():
            proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=env, start_new_session=True)
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        assert proc is not None  # only communicate() times out, after the child started
        stop_process_group(proc)
        return 124, f"timed out after {timeout}s: {' '.join(argv)}"
    except BaseException:  # Interrupted (a signal), KeyboardInterrupt: no orphaned child
        if proc is not None:
            stop_process_group(proc)
        raise
    return proc.returncode, (out + err).strip()


def stop_process_group(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """SIGTERM the child's process group, SIGKILL what is left after `grace` seconds, reap the child."""
    _signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    _signal_group(proc.pid, signal.SIGKILL)  # the leader after the grace, or grandchildren that outlived it
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, sig)


_DRY_RUN_ARGS = ["-n", "--cores", "1", "--quiet", "rules"]


def dry_run(workdir: Path) -> CheckResult:
    worker = _take_worker()
    if worker is not None:
        code, out = worker.run(workdir)
    else:
        code, out = _run(_snakemake() + _DRY_RUN_ARGS, workdir)
    return CheckResult("dry_run", code == 0, out)


# --------------------------------------------------------------------------- a dry run started ahead

# Importing Snakemake is most of a `snakemake -n` (about 1 s of the bulk example's 1.3 s). `bioplan
# compile` starts this child before it plans, so the import runs on another core while bioplan
# plans and writes; the pre-check then sends it the directory to check, as one JSON line on stdin.
# Used once. It exits without a job when its stdin closes, e.g. when bioplan ends or dies first.
# Before it waits, it also imports what Snakemake's `main()` imports lazily on every dry run (its
# report and profile modules, smart_open with requests, jsonschema, nbformat: ~0.4 s of the ~0.55 s
# a dry run of the bulk example took after the job arrived), so only reading the Snakefile and
# building the DAG are left for after bioplan has written the workflow. A module a Snakemake
# release no longer has is skipped: the dry run then imports what it needs itself, as before.
_DRY_RUN_PRELOAD = ("snakemake.profiles", "platformdirs", "snakemake.report", "snakemake.report.html_reporter",
                    "argparse_dataclass", "snakemake.storage", "smart_open", "packaging.version", "jsonschema",
                    "graphlib", "nbformat", "snakemake.notebook")
_DRY_RUN_WORKER = _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS.replace("""sys.exit(main())
""", """import importlib, json, os
for name in """ + repr(_DRY_RUN_PRELOAD) + """:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
job = sys.stdin.readline()
if not job.strip():
    sys.exit(0)
job = json.loads(job)
os.chdir(job["cwd"])
main(job["args"])
""")


class _DryRunWorker:
    def __init__(self) -> None:
        self.cache = Path(tempfile.mkdtemp(prefix="bioplan-snakemake-"))
        with deferred_signals():  # as in _run: a signal during the start is acted on once `proc` exists
            self.proc = subprocess.Popen([sys.executable, "-c", _DRY_RUN_WORKER], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                         env=_check_env(self.cache), start_new_session=True)

    def run(self, workdir: Path, timeout: int = 600) -> tuple[int, str]:
        try:
            if self.proc.poll() is not None:  # it failed before the job (e.g. a broken install): run afresh
                self.proc.communicate()
                return _run(_snakemake() + _DRY_RUN_ARGS, workdir, timeout)
            job = json.dumps({"cwd": str(Path(workdir).resolve()), "args": _DRY_RUN_ARGS}) + "\n"
            out, err = self.proc.communicate(job, timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_process_group(self.proc)
            return 124, f"timed out after {timeout}s: snakemake {' '.join(_DRY_RUN_ARGS)}"
        except BaseException:  # Interrupted (a signal), KeyboardInterrupt: no orphaned child
            stop_process_group(self.proc)
            raise
        finally:
            shutil.rmtree(self.cache, ignore_errors=True)
        return self.proc.returncode, (out + err).strip()

    def close(self) -> None:
        stop_process_group(self.proc, grace=1.0)
        shutil.rmtree(self.cache, ignore_errors=True)


_worker: _DryRunWorker | None = None
_worker_lock = threading.Lock()


def start_dry_run_ahead() -> None:
    """Start importing Snakemake for the next `dry_run()` now, in a child process (a CLI compile
    calls this before it plans; `stop_dry_run_ahead()` when it ends)."""
    global _worker
    with _worker_lock:
        if _worker is None and importlib.util.find_spec("snakemake") is not None:
            _worker = _DryRunWorker()


def stop_dry_run_ahead() -> None:
    """Stop a started dry run that no `dry_run()` used (the compile failed before its pre-check)."""
    worker = _take_worker()
    if worker is not None:
        worker.close()


def _take_worker() -> _DryRunWorker | None:
    global _worker
    with _worker_lock:
        worker, _worker = _worker, None
    return worker


def lint(workdir: Path) -> CheckResult:
    code, out = _run(_snakemake() + ["--lint", "--cores", "1"], workdir)
    clean = code == 0 and "Lints for" not in out
    return CheckResult("lint", clean, out)


def format_check(workdir: Path) -> CheckResult:
    # the snakemake-workflows layout: workflow/Snakefile and workflow/rules/*.smk
    code_dir = workdir / "workflow"
    targets = ["workflow/Snakefile"] + sorted(str(p.relative_to(workdir)) for p in (code_dir / "rules").glob("*.smk"))
    code, out = _run(_tool("snakefmt") + ["--check", "--diff"] + targets, workdir)
    return CheckResult("format", code == 0, out)


def validate_workflow(workdir: Path, checks: tuple[str, ...] = ("dry_run", "lint", "format")) -> list[CheckResult]:
    table = {"dry_run": dry_run, "lint": lint, "format": format_check}
    return [table[name](workdir) for name in checks]
