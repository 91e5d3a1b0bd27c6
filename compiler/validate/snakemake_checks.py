"""Validate stage for the Snakemake target: `snakemake -n`, `snakemake --lint`, `snakefmt --check`.

Each check has one name, shared by this module, the tests and the docs:
`dry_run`, `lint`, `format`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bioplan.signals import deferred_signals


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    output: str


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
# release finds them another way, the checks stay correct, only slower.
_SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS = """\
import pkgutil, sys
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


def _run(argv: list[str], cwd: Path, timeout: int = 600) -> tuple[int, str]:
    env = dict(os.environ)
    # the pinned snakemake/snakefmt/shfmt live beside this Python even without an activated venv
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("XDG_CACHE_HOME", str(cwd / ".snakemake" / "cache"))
    # These checks are local and never talk to SLURM: should an executor plugin still be loaded (see
    # _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS), an empty SLURM_CONF makes its `scontrol` fail at once.
    env["SLURM_CONF"] = os.devnull
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
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc.pid, signal.SIGKILL)  # the leader after the grace, or grandchildren that outlived it
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):  # the group is gone
        pass


def dry_run(workdir: Path) -> CheckResult:
    code, out = _run(_snakemake() + ["-n", "--cores", "1", "--quiet", "rules"], workdir)
    return CheckResult("dry_run", code == 0, out)


def lint(workdir: Path) -> CheckResult:
    code, out = _run(_snakemake() + ["--lint", "--cores", "1"], workdir)
    clean = code == 0 and "Lints for" not in out
    return CheckResult("lint", clean, out)


def format_check(workdir: Path) -> CheckResult:
    targets = ["Snakefile"] + sorted(str(p.relative_to(workdir)) for p in (workdir / "rules").glob("*.smk"))
    code, out = _run(_tool("snakefmt") + ["--check", "--diff"] + targets, workdir)
    return CheckResult("format", code == 0, out)


def validate_workflow(workdir: Path, checks: tuple[str, ...] = ("dry_run", "lint", "format")) -> list[CheckResult]:
    table = {"dry_run": dry_run, "lint": lint, "format": format_check}
    return [table[name](workdir) for name in checks]
