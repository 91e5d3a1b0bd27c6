"""`bioplan --version`, `bioplan doctor` (what is installed, what each missing part blocks) and the
progress line of slow steps."""

from __future__ import annotations

import io
import json
import time
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from bioplan import __version__
from bioplan.cli import main
from bioplan.doctor import bound_tool_checks, diagnose, dist_version, extra_requirements, text_report, tool_requirement
from bioplan.progress import quiet, slow_step


@pytest.mark.parametrize("command, need", [
    ("STAR --version", ("exe", "STAR")),
    ("bcftools --version | head -n 1", ("exe", "bcftools")),
    ("featureCounts -v 2>&1 | grep featureCounts", ("exe", "featureCounts")),
    ('python -c "import gseapy; print(gseapy.__version__)"', ("python", "gseapy")),
    ('''python -c "import importlib.metadata as m; print(m.version('scanpy'))"''', ("python", "scanpy")),
    ('''python -c "import importlib.metadata as m; print(m.version('scvi-tools'))"''', ("python", "scvi_tools")),
    # a Python tool run as its executable: the metadata answers fast, the executable is what the step needs
    ('''python -c "import importlib.metadata as m; print(m.version('multiqc'))" 2>/dev/null '''
     "|| multiqc --version | sed -n 's/.* version //p'", ("exe", "multiqc")),
    ('''python -c "import importlib.metadata as m; print(m.version('quast'))" 2>/dev/null '''
     "|| quast.py --version 2>&1 | grep QUAST", ("exe", "quast.py")),
    ("python --version", ("python", "sys")),
    # Picard's launcher: bioconda's `picard` or Debian's `PicardCommandLine`, either will do
    ("$(command -v picard || command -v PicardCommandLine) MarkDuplicates --version 2>&1 | tail -n 1",
     ("exe", "picard|PicardCommandLine")),
    ('''Rscript -e 'cat(as.character(packageVersion("DESeq2")), "\\n")\'''', ("r", "DESeq2")),
])
def test_what_a_tool_needs_comes_from_its_version_command(command, need):
    assert tool_requirement(command) == need


def test_a_python_distribution_is_found_by_its_metadata_where_its_module_has_another_name():
    """scikit-learn imports as sklearn: the doctor looks the distribution up, not a module `scikit_learn`."""
    command = '''python -c "import importlib.metadata as m; print(m.version('scikit-learn'))"'''
    tool = SimpleNamespace(id="sk_tool", implements="some_operation", software=SimpleNamespace(version_command=command))
    (check,) = bound_tool_checks(SimpleNamespace(tools={"sk_tool": tool}))
    assert check.ok and check.name == "python: scikit_learn" and check.version == dist_version("scikit-learn")
    assert check.blocks == "sk_tool (some_operation)"


def test_every_bound_tool_needs_something_doctor_can_check(knowledge):
    kinds = {tool_requirement(t.software.version_command)[0] for t in knowledge.tools.values()}
    assert kinds == {"exe", "python", "r"}


def test_extras_come_from_the_installed_metadata():
    tools = dict(extra_requirements("tools"))
    assert {"pydeseq2", "gseapy", "scanpy"} <= set(tools) and all(tools.values())
    assert {name for name, _ in extra_requirements("slurm")} == {"snakemake-executor-plugin-slurm",
                                                                 "snakemake-executor-plugin-slurm-jobstep"}


def test_doctor_says_what_each_missing_executable_blocks(knowledge, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH: every executable is missing
    doc = diagnose(knowledge)
    by_name = {c.name: c for c in doc.checks}
    star = by_name["STAR"]
    assert not star.ok and "star (read_alignment)" in star.blocks and star.install
    assert not by_name["nextflow"].ok and "--target nextflow" in by_name["nextflow"].blocks
    slurm = next(c for c in doc.checks if c.name.startswith("SLURM client"))
    assert not slurm.ok and "sbatch" in slurm.blocks
    assert by_name["snakemake"].ok and by_name["snakemake"].version
    # R packages are not looked up without Rscript: missing, with how to get R
    r_checks = [c for c in doc.checks if c.name.startswith("R: ")]
    assert r_checks and not any(c.ok for c in r_checks)
    report = text_report(doc)
    assert "MISSING  STAR" in report and "blocks: star (read_alignment)" in report
    assert f"{len(doc.missing)} missing" in report


def test_a_launcher_is_found_under_any_of_its_names(knowledge, tmp_path, monkeypatch):
    """Debian ships Picard as `PicardCommandLine`, bioconda as `picard`: either one is Picard."""
    launcher = tmp_path / "PicardCommandLine"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    picard = {c.name: c for c in diagnose(knowledge).checks}["picard or PicardCommandLine"]
    assert picard.ok and picard.where == str(launcher) and "picard_markduplicates" in picard.blocks


def test_doctor_and_version_commands():
    runner = CliRunner()
    version = runner.invoke(main, ["--version"])
    assert version.exit_code == 0
    assert version.output.startswith(f"bioplan {__version__} ")
    assert "snakemake 9." in version.output and "bioplan doctor" in version.output
    doctor = runner.invoke(main, ["doctor", "--json"])
    assert doctor.exit_code == 0, doctor.output
    data = json.loads(doctor.output)
    assert data["bioplan"] == __version__
    groups = {c["group"] for c in data["checks"]}
    assert groups == {"core", "targets", "tools extra", "bound tools"}
    assert all(c["ok"] or c["blocks"] for c in data["checks"])


def test_a_slow_step_says_what_it_does_and_a_fast_one_is_silent(monkeypatch):
    monkeypatch.delenv("BIOPLAN_QUIET", raising=False)
    out = io.StringIO()
    with slow_step("checking", after=0.05, stream=out):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "bioplan: checking ..." and lines[1].startswith("bioplan: checking: done in ")
    quiet = io.StringIO()
    with slow_step("checking", after=5, stream=quiet):
        pass
    assert quiet.getvalue() == ""
    stopped = io.StringIO()
    with pytest.raises(RuntimeError), slow_step("checking", after=0.01, stream=stopped):
        time.sleep(0.1)
        raise RuntimeError("boom")
    assert "stopped after" in stopped.getvalue()


def test_json_mode_is_quiet(monkeypatch):
    monkeypatch.delenv("BIOPLAN_QUIET", raising=False)
    out = io.StringIO()
    with quiet(), slow_step("checking", after=0.01, stream=out):
        time.sleep(0.1)
    assert out.getvalue() == ""
    with slow_step("checking", after=0.01, stream=out):  # quiet() ended
        time.sleep(0.1)
    assert out.getvalue().startswith("bioplan: checking ...")
