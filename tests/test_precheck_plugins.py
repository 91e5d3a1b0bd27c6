"""The `snakemake -n` pre-check and lint run Snakemake without its executor plugins.

Snakemake imports every installed executor plugin at start; the SLURM one (bioplan[slurm]) imports
pandas and asks `scontrol` for the cluster's configuration, which waits ~9 s where SLURM's client
tools exist but no controller answers. A trap plugin on PYTHONPATH shows whether a run loaded it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bioplan.validate.snakemake_checks import dry_run, lint

_TRAP = """\
import os
from pathlib import Path
Path(os.environ["BIOPLAN_TRAP_MARK"]).write_text("imported")
raise ImportError("not a real plugin")
"""


def _workflow(tmp_path: Path) -> Path:
    wf = tmp_path / "wf"
    wf.mkdir()
    (wf / "Snakefile").write_text('rule all:\n    output:\n        "done.txt",\n    log:\n        "logs/all.log",\n'
                                  '    shell:\n        "touch {output} 2> {log}"\n')
    return wf


def _trap(tmp_path: Path, monkeypatch) -> Path:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "snakemake_executor_plugin_bioplantrap").mkdir()  # plugins are packages
    (plugins / "snakemake_executor_plugin_bioplantrap" / "__init__.py").write_text(_TRAP)
    mark = tmp_path / "mark"
    monkeypatch.setenv("PYTHONPATH", str(plugins))
    monkeypatch.setenv("BIOPLAN_TRAP_MARK", str(mark))
    return mark


def test_the_trap_catches_a_plain_snakemake_start(tmp_path, monkeypatch):
    mark = _trap(tmp_path, monkeypatch)
    wf = _workflow(tmp_path)
    subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1"], cwd=wf, capture_output=True,
                   timeout=300)
    assert mark.exists()  # so the test below would notice a loaded plugin


def test_dry_run_and_lint_load_no_executor_plugin(tmp_path, monkeypatch):
    mark = _trap(tmp_path, monkeypatch)
    wf = _workflow(tmp_path)
    check = dry_run(wf)
    assert check.ok, check.output
    assert not mark.exists()
    assert lint(wf).name == "lint"
    assert not mark.exists()


# --------------------------------------------------------------------------- the dry run started ahead


def test_a_dry_run_started_ahead_checks_the_directory_it_is_given(tmp_path, monkeypatch):
    from bioplan.validate import snakemake_checks

    mark = _trap(tmp_path, monkeypatch)
    wf = _workflow(tmp_path)
    snakemake_checks.start_dry_run_ahead()
    worker = snakemake_checks._worker
    assert worker is not None
    check = dry_run(wf)
    assert check.ok, check.output
    assert snakemake_checks._worker is None and worker.proc.returncode == 0  # used once, by this check
    assert not mark.exists()  # no executor plugin there either
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "Snakefile").write_text('rule all:\n    input:\n        "missing.txt",\n')
    snakemake_checks.start_dry_run_ahead()
    failed = dry_run(broken)
    assert not failed.ok and "missing.txt" in failed.output


def test_a_dry_run_started_ahead_and_not_needed_is_stopped(tmp_path):
    from bioplan.validate import snakemake_checks

    snakemake_checks.start_dry_run_ahead()
    worker = snakemake_checks._worker
    snakemake_checks.stop_dry_run_ahead()
    assert worker.proc.poll() is not None and not worker.cache.exists()
    assert snakemake_checks._worker is None
    snakemake_checks.stop_dry_run_ahead()  # idempotent


def test_what_the_dry_run_started_ahead_preloads_is_what_a_dry_run_imports(tmp_path):
    """The child started ahead imports these modules before its job arrives, so that only reading the
    Snakefile and building the DAG are left after bioplan wrote the workflow. Each must be one that
    a plain dry run imports anyway (never extra work), and exist in the pinned Snakemake."""
    from bioplan.validate.snakemake_checks import _DRY_RUN_PRELOAD, _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS

    # what every emitted Snakefile has (min_version, the config checked against its schema) and most
    # have (a `script:` rule: the input checks, the R and Python steps)
    wf = tmp_path / "wf"
    (wf / "scripts").mkdir(parents=True)
    (wf / "scripts" / "step.py").write_text("open(snakemake.output[0], 'w').close()\n")
    (wf / "config.yaml").write_text("x: 1\n")
    (wf / "config.schema.yaml").write_text("$schema: https://json-schema.org/draft/2020-12/schema\ntype: object\n"
                                           "properties:\n  x:\n    type: integer\n")
    (wf / "Snakefile").write_text(
        'from snakemake.utils import min_version, validate\n\nmin_version("8.0")\n\n\n'
        'configfile: "config.yaml"\n\n\nvalidate(config, schema="config.schema.yaml")\n\n\n'
        'rule all:\n    output:\n        "done.txt",\n    script:\n        "scripts/step.py"\n')
    report = tmp_path / "imported.txt"
    code = _SNAKEMAKE_WITHOUT_EXECUTOR_PLUGINS.replace(
        "sys.exit(main())",
        "import atexit\n"
        f"atexit.register(lambda: open({str(report)!r}, 'w').write('\\n'.join(sorted(sys.modules))))\n"
        "sys.exit(main(['-n', '--cores', '1', '--quiet', 'rules']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=wf, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    imported = set(report.read_text().splitlines())
    assert set(_DRY_RUN_PRELOAD) <= imported, set(_DRY_RUN_PRELOAD) - imported
