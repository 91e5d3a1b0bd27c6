"""Emitted pipelines follow what a snakemake-workflows or nf-core maintainer expects (issue 15):
the STAR index carries the GTF, VCFs are bgzipped and indexed, single-cell QC thresholds adapt to
the data, checks scale, env and container pins agree, intermediates are temporary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bioplan.compile import compile_request
from conftest import example_inputs, example_request


def _compile(workspace: Path, knowledge, name: str, target: str, query: str | None = None, tag: str = "") -> Path:
    main = "main.nf" if target == "nextflow" else "Snakefile"
    out = workspace / "out_practice" / f"{name}{tag}_{target}" / main
    # the tests read the emitted rules: no `snakemake -n` pre-check (a Snakemake process, ~2 CPU-s)
    compile_request(query or example_request(name), example_inputs(workspace, name), str(out),
                    target=target, force=True, validate=False, knowledge=knowledge)
    return out.parent


@pytest.fixture(scope="module")
def emitted(compiled_classes):
    """(class, target) -> compiled workflow directory: the session's shared compile (read-only)."""

    def get(name: str, target: str) -> Path:
        return compiled_classes[name, target].output_dir

    return get


def _rule(snakefile_text: str, name: str) -> str:
    """The text of one rule of a rules/*.smk file."""
    match = re.search(rf"^rule {name}:\n(?:(?!^rule ).*\n?)*", snakefile_text, re.M)
    assert match, f"no rule {name}"
    return match.group(0)


# --------------------------------------------------------------------------- 1. STAR index + GTF
def test_star_index_carries_the_gtf_snakemake(emitted):
    rules = emitted("rnaseq_fastq", "snakemake") / "workflow" / "rules"
    rule = _rule((rules / "genome_indexing.smk").read_text(), "genome_indexing")
    assert 'annotation=config["inputs"]["gene_annotation"]' in rule
    assert '--sjdbGTFfile "$gtf"' in rule and "--sjdbOverhang {params.sjdb_overhang:q}" in rule
    assert 'sjdb_overhang=config["params"]["star_genome_generate"]["sjdb_overhang"]' in rule


def test_star_index_carries_the_gtf_nextflow(emitted):
    module = (emitted("rnaseq_fastq", "nextflow") / "modules/local/star/genomegenerate/main.nf").read_text()
    assert "path(annotation)" in module
    assert '--sjdbGTFfile "\\$gtf"' in module and "--sjdbOverhang '${sjdb_overhang}'" in module
    workflow = (emitted("rnaseq_fastq", "nextflow") / "workflows/bioplan.nf").read_text()
    call = workflow[workflow.index("    GENOME_INDEXING ("):]
    assert "ch_gene_annotation" in call[:call.index("\n    )\n")]  # the GTF channel reaches the index


def test_an_index_without_annotation_support_gets_no_gtf(workspace, knowledge):
    # HISAT2's index reads no GTF: the annotation adds neither an input nor a check to it
    query = "Mouse paired-end RNA-seq FASTQ: trim, align with hisat2 and count reads per gene"
    workdir = _compile(workspace, knowledge, "rnaseq_fastq", "snakemake", query, tag="_hisat2")
    text = (workdir / "workflow/rules/genome_indexing.smk").read_text()
    assert "hisat2-build" in text and "annotation" not in text


# --------------------------------------------------------------------------- 3. single-cell QC
ROOT = Path(__file__).resolve().parents[1]


def _run_scanpy_qc(workspace: Path, tmp_path: Path, **overrides):
    """templates/scripts/scanpy_qc.py on the shipped example, through the Nextflow runner."""
    import json
    import subprocess
    import sys

    import yaml

    params = dict(yaml.safe_load((ROOT / "ontology/tools/scanpy_qc.yaml").read_text())["params"], **overrides)
    (tmp_path / "params.json").write_text(json.dumps(params))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "templates/nextflow/bin/bioplan_run.py"),
         str(ROOT / "templates/scripts/scanpy_qc.py"),
         "--input", f"adata={workspace / 'data/single_cell/pbmc_tiny.h5ad'}",
         "--output", f"adata={tmp_path / 'qc.h5ad'}",
         "--params", str(tmp_path / "params.json"), "--threads", "1", "--log", str(tmp_path / "qc.log"),
         "--rule", "qc"],
        capture_output=True, text=True, timeout=600)
    return proc, (tmp_path / "qc.log").read_text()


def test_single_cell_qc_defaults_adapt_to_the_example(workspace, tmp_path):
    pytest.importorskip("scanpy")
    import json

    import anndata

    proc, log = _run_scanpy_qc(workspace, tmp_path)
    assert proc.returncode == 0, proc.stderr + log
    truth = json.loads((workspace / "data/single_cell/truth.json").read_text())
    kept = anndata.read_h5ad(tmp_path / "qc.h5ad")
    assert not set(kept.obs_names) & set(truth["high_mt_cells"])  # the high-MT cells are MAD outliers
    healthy = truth["shape"]["n_obs"] - len(truth["high_mt_cells"])
    assert kept.n_obs >= healthy - healthy // 100  # ... the others are kept (a fixed min_genes=200 kept 10)
    qc = kept.uns["qc_filtering"]
    assert qc["nmads"] == 5 and set(qc["thresholds"]) == {"log1p_total_counts", "log1p_n_genes_by_counts",
                                                          "pct_counts_mt"}
    assert "(5 MADs)" in log


def test_single_cell_qc_stops_when_too_few_cells_survive(workspace, tmp_path):
    pytest.importorskip("scanpy")
    proc, log = _run_scanpy_qc(workspace, tmp_path, min_genes=200)
    assert proc.returncode == 1
    assert "min_cells_kept=50" in proc.stderr and "fewer than min_genes=200 genes" in proc.stderr
    assert "params.scanpy_qc" in proc.stderr  # says what to change
    assert not (tmp_path / "qc.h5ad").exists()


# --------------------------------------------------------------------------- 5. pins that agree
_BIOCONTAINER = re.compile(r"^(?:docker://)?quay\.io/biocontainers/(?P<name>[a-z0-9_.-]+):(?P<version>[^-]+)(?:--\S+)?$")


def _pin_disagreements(name: str, conda: tuple[str, ...], container: str) -> list[str]:
    """What a single-package biocontainer and the conda env disagree on (mulled and Wave images
    bundle several packages whose versions their names do not carry: they are checked by hand)."""
    match = _BIOCONTAINER.match(container)
    if not match or match["name"].startswith("mulled-v2-"):
        return []
    pins = dict(spec.split("::")[-1].split("=", 1) for spec in conda if "=" in spec)
    package, version = match["name"], match["version"]
    if package not in pins:
        return [f"{name}: container {container} is {package}, which the conda env {list(conda)} does not pin"]
    if pins[package] != version:
        return [f"{name}: conda pins {package}={pins[package]}, the container has {version}"]
    return []


def test_every_env_and_container_carry_the_same_version(knowledge):
    from bioplan.codegen.ir import CHECK_ENV

    problems = _pin_disagreements("bioplan checks", CHECK_ENV.conda, CHECK_ENV.container)
    for tool in knowledge.tools.values():
        problems += _pin_disagreements(tool.id, tool.software.conda, tool.software.container)
        assert tool.software.container.split("/")[-1].count(":") == 1, f"{tool.id}: untagged container"
    assert not problems, "\n".join(problems)


def test_pin_check_sees_a_disagreement():
    assert _pin_disagreements("x", ("conda-forge::pandas=2.2.3",), "docker://quay.io/biocontainers/pandas:2.2.1")
    assert not _pin_disagreements("x", ("bioconda::fastp=0.23.4",), "quay.io/biocontainers/fastp:0.23.4--h5f740d0_0")
