"""temp() for intermediates (issue 15): files only later steps read are deleted once they have.

What is intermediate is decided from the IR (ir.intermediate_outputs: a tool step's file output
that no workflow target names and a later step reads; not check sentinels, what reference-scope
steps build (indexes, databases, converted annotations), directories, files indexed beside them,
or tables), never per tool. The Snakemake target wraps exactly those
outputs in `intermediate()` (rules/common.smk: temp() unless config `keep_intermediates: true`,
schema default false); the workflows still pass `snakemake -n`, `--lint` and snakefmt, and
Snakemake itself reports which files it would delete, with and without the switch. The Nextflow
target keeps Nextflow's work-directory semantics and says so in its README.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bioplan.codegen.ir import intermediate_outputs
from bioplan.validate.snakemake_checks import validate_workflow

# per example class: the outputs that are intermediate (what the IR says, written out by hand)
EXPECTED = {
    "rnaseq_fastq": {"results/read_trimming/{sample}/trimmed_1.fastq.gz",
                     "results/read_trimming/{sample}/trimmed_2.fastq.gz"},
    "single_cell": {"results/sc_quality_filtering/filtered.h5ad", "results/sc_normalization/normalized.h5ad",
                    "results/cell_clustering/clustered.h5ad"},
    "metagenomics": {"results/host_read_removal/{sample}/depleted_1.fastq.gz",
                     "results/host_read_removal/{sample}/depleted_2.fastq.gz"},
    "bulk_de": set(),  # tables only: the DE table, gene lists and enrichment tables are kept
    # the annotated VCF is a record the user keeps as its bgzipped, indexed copy: the plain VCF only
    # the compression step reads is temporary; the GTF gffread converts is a reference-scope output,
    # built once and kept like an index
    "variants": {"results/variant_annotation/annotated.vcf"},
}
WRAPPED = re.compile(r'(\w+)=intermediate\(\s*"([^"]+)"\s*,?\s*\)')


@pytest.fixture(scope="module")
def compiled(compiled_classes):
    """(class, target) -> the session's shared compile (read-only: the checks below work on copies)."""
    return {(name, target): compiled_classes[name, target] for name in EXPECTED for target in ("snakemake", "nextflow")}


def wrapped_outputs(workdir: Path) -> set[str]:
    rules = (workdir / "workflow" / "rules").glob("*.smk")
    return {m.group(2) for rule in rules for m in WRAPPED.finditer(rule.read_text())}


@pytest.mark.parametrize("name", EXPECTED)
def test_intermediates_come_from_the_ir(compiled, knowledge, name):
    workflow = compiled[name, "snakemake"].workflow
    found = intermediate_outputs(knowledge, workflow)
    assert found == EXPECTED[name]
    targets = {t.path for t in workflow.targets}
    checks = {p.ref.path for s in workflow.steps if s.kind == "check" for p in s.outputs}
    assert not found & targets and not found & checks


@pytest.mark.parametrize("name", EXPECTED)
def test_rules_mark_exactly_the_intermediates(compiled, name):
    workdir = compiled[name, "snakemake"].output_dir
    assert wrapped_outputs(workdir) == EXPECTED[name]
    rules = "\n".join(p.read_text() for p in (workdir / "workflow" / "rules").glob("*.smk") if p.name != "common.smk")
    assert "temp(" not in rules  # only through intermediate(), which the config switch controls
    common = (workdir / "workflow" / "rules" / "common.smk").read_text()
    assert 'return path if config.get("keep_intermediates", False) else temp(path)' in common


def test_config_switch_with_schema(compiled):
    workdir = compiled["rnaseq_fastq", "snakemake"].output_dir
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    assert config["keep_intermediates"] is False
    schema = yaml.safe_load((workdir / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert schema["properties"]["keep_intermediates"]["type"] == "boolean"
    assert schema["properties"]["keep_intermediates"]["default"] is False
    readme = (workdir / "README.md").read_text()
    assert "results/read\\_trimming/{sample}/trimmed\\_1.fastq.gz (read\\_trimming)" in readme
    assert "keep_intermediates: true" in readme


@pytest.mark.parametrize("name", ["rnaseq_fastq", "single_cell"])
def test_marked_workflows_pass_dry_run_lint_and_snakefmt(compiled_classes, name):
    workdir = compiled_classes.copy((name, "snakemake"), "intermediates_checked")  # the checks write .snakemake/
    for check in validate_workflow(workdir):
        assert check.ok, f"{check.name} failed for {name}:\n{check.output[-3000:]}"


def _would_delete(workdir: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--delete-temp-output", "-n", "--cores", "1"],
                          cwd=workdir, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def test_snakemake_deletes_intermediates_unless_kept(compiled_classes):
    workdir = compiled_classes.copy(("single_cell", "snakemake"), "intermediates_deleted")  # the run writes
    for path in ("results/sc_normalization/normalized.h5ad", "results/embedding_visualization/umap.png"):
        (workdir / path).parent.mkdir(parents=True, exist_ok=True)
        (workdir / path).write_bytes(b"")
    out = _would_delete(workdir)
    assert "Would delete results/sc_normalization/normalized.h5ad" in out
    assert "umap.png" not in out  # a target is never temporary
    config = workdir / "config" / "config.yaml"
    text = config.read_text()
    assert text.count("keep_intermediates: false") == 1
    config.write_text(text.replace("keep_intermediates: false", "keep_intermediates: true"))
    assert "Would delete" not in _would_delete(workdir)


def test_nextflow_readme_says_what_stays_in_work(compiled):
    readme = (compiled["single_cell", "nextflow"].output_dir / "README.md").read_text()
    section = readme.split("## Intermediate files", 1)[1]
    assert "`work/`" in section and "-resume" in section and "nextflow clean -f" in section
    for name in ("filtered.h5ad of sc\\_quality\\_filtering", "normalized.h5ad of sc\\_normalization",
                 "clustered.h5ad of cell\\_clustering"):
        assert name in section
    bulk = (compiled["bulk_de", "nextflow"].output_dir / "README.md").read_text()
    assert "only later steps read" not in bulk
