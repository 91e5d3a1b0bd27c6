"""The software versions table (issue 15, provenance): every package of a workflow's tool steps
reports the version its own env installs. Snakemake runs each tool's version command in that tool's
env and container (codegen/versions_table.py, rules/software_versions.smk) and gathers them into
results/pipeline_info/software_versions.yml; Nextflow collects its versions topic. MultiQC shows the
table in both targets, reading it without waiting on its own version."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bioplan.codegen.provenance import package_name
from bioplan.codegen.versions_table import MULTIQC_TABLE, TABLE, version_sources

CLASSES = ("rnaseq_fastq", "bulk_de")  # with MultiQC, without (counts in, tables out)
# the packages of the rnaseq example's tool steps, written out by hand (STAR's index and alignment
# steps are one package; featureCounts is subread's)
RNASEQ_PACKAGES = ["fastp", "fastqc", "multiqc", "star", "subread"]
# what each tool prints, the way it prints it (stderr for fastp and featureCounts)
FAKE_TOOLS = {
    "STAR": "echo 2.7.10a",
    "fastp": "echo 'fastp 0.23.4' >&2",
    "fastqc": "echo 'FastQC v0.12.1'",
    "featureCounts": "printf '\\n  featureCounts v2.0.6\\n\\n' >&2",
    "multiqc": "echo 'multiqc, version 1.25.1'",
    # a Python without MultiQC's metadata (MultiQC from the system's packages): its version command falls
    # back to the executable, so the table's multiqc entry comes from the fake `multiqc` above
    "python": "echo 'PackageNotFoundError: No package metadata was found for multiqc 9.9' >&2; exit 1",
}


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """(class, target) -> the session's shared compile (read-only: the runs below work on copies)."""
    return {(name, target): compiled_classes[name, target] for name in CLASSES for target in ("snakemake", "nextflow")}


def _rule(source: str, name: str) -> str:
    """The text of one rule of a rules file."""
    match = re.search(rf"^rule {name}:\n(?:(?:    .*)?\n)*", source, re.M)
    assert match, f"no rule {name}"
    return match.group(0)


def test_one_source_per_package_in_the_env_of_a_step_that_uses_it(compiled, knowledge):
    workflow = compiled["rnaseq_fastq", "snakemake"].workflow
    sources = version_sources(knowledge, workflow)
    assert [s.package for s in sources] == RNASEQ_PACKAGES
    for source in sources:
        first = next(s for s in workflow.steps
                     if s.tool and package_name(knowledge.tools[s.tool].software) == source.package)
        assert (source.env, source.container) == (first.env, first.container)
        assert source.command == knowledge.tools[first.tool].software.version_command
    # the precondition checks are bioplan's own scripts, not a tool's package
    assert all(s.kind == "tool" for s in workflow.steps if s.env in {x.env for x in sources})


@pytest.mark.parametrize("name", CLASSES)
def test_snakemake_runs_each_version_command_in_its_tools_env(compiled, knowledge, name):
    result = compiled[name, "snakemake"]
    root = result.snakefile.parent
    rules = (root / "rules" / "software_versions.smk").read_text()
    sources = version_sources(knowledge, result.workflow)
    assert sources
    for source in sources:
        rule = _rule(rules, f"versions_{source.slug}")
        assert f'"../envs/{source.env}"' in rule and f'"docker://{source.container}"' in rule, rule
        assert f'"{source.output}"' in rule and f"package={source.package!r}".replace("'", '"') in rule
        assert (root / "envs" / source.env).is_file()
    gather = _rule(rules, "software_versions")
    assert [f'"{s.output}"' in gather for s in sources] == [True] * len(sources)
    assert f'"{TABLE}"' in gather and f'"{MULTIQC_TABLE}"' in gather
    assert f'"{TABLE}"' in (root / "rules" / "common.smk").read_text()  # built by the default target
    multiqc = root / "rules" / "qc_report_aggregation.smk"
    assert multiqc.exists() == (name == "rnaseq_fastq")
    if multiqc.exists():  # MultiQC's Software Versions section reads the `*_mqc_versions.yml` copy
        assert f'software_versions="{MULTIQC_TABLE}"' in multiqc.read_text()


def _fake_tools(bin_dir: Path) -> None:
    bin_dir.mkdir()
    for name, body in FAKE_TOOLS.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)


def _run_snakemake(root: Path, bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake in the emitted workflow with the fake tools first on PATH (no conda env here)."""
    env = {"PATH": f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(bin_dir.parent)}
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--directory", str(root),
                           "--snakefile", str(root / "workflow" / "Snakefile"), *args],
                          capture_output=True, text=True, env=env, cwd=root)


def test_snakemake_version_rules_write_the_table(compiled_classes, tmp_path):
    """The rules themselves: each tool's own output (stdout or stderr, among other text) becomes
    `package: 'version'`, gathered in package order, and the MultiQC copy is the same table."""
    root = compiled_classes.copy(("rnaseq_fastq", "snakemake"), "versions_table_run")
    _fake_tools(tmp_path / "bin")
    run = _run_snakemake(root, tmp_path / "bin", TABLE, MULTIQC_TABLE)
    assert run.returncode == 0, run.stderr[-3000:]
    table = (root / TABLE).read_text()
    assert yaml.safe_load(table) == {"fastp": "0.23.4", "fastqc": "0.12.1", "multiqc": "1.25.1", "star": "2.7.10a",
                                     "subread": "2.0.6"}
    assert list(yaml.safe_load(table)) == RNASEQ_PACKAGES
    assert (root / MULTIQC_TABLE).read_text() == table


def test_snakemake_version_rule_fails_when_the_tool_prints_no_version(compiled_classes, tmp_path):
    root = compiled_classes.copy(("rnaseq_fastq", "snakemake"), "versions_table_fail")
    _fake_tools(tmp_path / "bin")
    (tmp_path / "bin" / "STAR").write_text("#!/bin/sh\necho 'command not found' >&2\nexit 127\n")
    run = _run_snakemake(root, tmp_path / "bin", "--force", "results/pipeline_info/versions/star.yml")
    assert run.returncode != 0, run.stderr[-3000:]
    assert "Error in rule versions_star" in run.stderr
    assert not (root / "results/pipeline_info/versions/star.yml").exists()


def test_nextflow_multiqc_reads_the_versions_of_every_other_process(compiled):
    root = Path(compiled["rnaseq_fastq", "nextflow"].snakefile).parent
    module = (root / "modules/local/multiqc/main.nf").read_text()
    # its own version off the topic it reads (a process waiting on a topic it writes never starts)
    (own,) = [line for line in module.splitlines() if "emit: versions_multiqc" in line]
    assert "topic:" not in own
    assert re.search(r"\n    path\(software_versions\)\n\n    output:", module)
    others = [p for p in (root / "modules").rglob("main.nf") if p.parent.name != "multiqc"]
    assert others and all("topic: versions" in p.read_text() for p in others)
    main = (root / "main.nf").read_text()
    assert re.search(r"ch_software_versions = channel\.topic\('versions'\)\n.*\n.*softwareVersionsYaml.*\n"
                     r".*collectFile\(name: 'software_versions_mqc_versions\.yml'\)", main)
    assert re.search(r"channel\.topic\('versions'\)\n\s+\.mix\(BIOPLAN\.out\.versions_multiqc\)", main)
    workflow = (root / "workflows/bioplan.nf").read_text()
    assert re.search(r"QC_REPORT_AGGREGATION \((?:\n.*)*?,\n        ch_software_versions\n    \)", workflow)
    assert "versions_multiqc = QC_REPORT_AGGREGATION.out.versions_multiqc" in workflow


def test_nextflow_without_multiqc_keeps_only_the_topic(compiled):
    root = Path(compiled["bulk_de", "nextflow"].snakefile).parent
    assert "ch_software_versions" not in (root / "main.nf").read_text()
    assert ".mix(" not in (root / "main.nf").read_text()
