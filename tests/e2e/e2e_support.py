"""Helpers of the end-to-end tests: generate example data, compile, run Snakemake with real tools.

The tools come from PATH (Debian packages from scripts/install-tools.sh) and from the Python
environment running pytest (the pinned `tools` extra). When one is missing the tests skip with
the install command, except under CI (CI=true), where a missing tool is a failure.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the environment's scripts: snakemake, bioplan, python

# What each example's workflow runs: binaries on PATH, Python modules, R packages.
TOOLS = {
    "bulk_de": {"bin": ["Rscript"], "py": ["gseapy", "pandas"], "r": ["DESeq2"]},
    "rnaseq_fastq": {"bin": ["fastqc", "fastp", "STAR", "featureCounts", "samtools", "multiqc"], "py": [], "r": []},
    "variants": {"bin": ["bcftools", "snpEff", "gffread", "bgzip", "tabix", "multiqc"], "py": ["pysam"], "r": []},
    "single_cell": {"bin": [], "py": ["scanpy", "anndata", "igraph", "leidenalg", "gseapy", "sklearn"], "r": []},
    "metagenomics": {"bin": ["bowtie2", "bowtie2-build", "kraken2", "kraken2-build", "multiqc"], "py": ["scipy"],
                     "r": []},
}
INSTALL_HINT = "install them with `bash scripts/install-tools.sh .venv/bin/python` (see README)"
SNAKEMAKE_TIMEOUT = 900


def env() -> dict[str, str]:
    """The tests' environment: the running Python's scripts first on PATH (snakemake, python)."""
    e = dict(os.environ)
    e["PATH"] = str(BIN) + os.pathsep + e.get("PATH", "")
    e.setdefault("MPLBACKEND", "Agg")
    return e


@functools.cache  # an Rscript start per question: asked once per test process (require_tools asks per test)
def _r_package_installed(name: str) -> bool:
    rscript = shutil.which("Rscript", path=env()["PATH"])
    if not rscript:
        return False
    probe = subprocess.run([rscript, "-e", f'quit(status = !nzchar(system.file(package = "{name}")))'],
                           capture_output=True, timeout=120)
    return probe.returncode == 0


def require_binaries(*binaries: str) -> None:
    """Skip (locally) or fail (CI=true) when a program a test runs is not on the tests' PATH."""
    missing = [b for b in binaries if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


def require_modules(*modules: str) -> None:
    """Skip (locally) or fail (CI=true) when a Python module a workflow's steps import is not installed: found
    by its spec, not imported (scanpy's import alone is ~5 CPU-s of the test process, the steps import it
    themselves)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


def require_tools(*classes: str) -> None:
    """Skip (locally) or fail (CI=true) when a tool the given examples run is missing."""
    path = env()["PATH"]
    missing = []
    for cls in classes:
        need = TOOLS[cls]
        missing += [b for b in need["bin"] if shutil.which(b, path=path) is None]
        missing += [f"python:{m}" for m in need["py"] if importlib.util.find_spec(m) is None]
        missing += [f"R:{p}" for p in need["r"] if not _r_package_installed(p)]
    if shutil.which("snakemake", path=path) is None:
        missing.append("snakemake")
    if missing:
        message = f"tools missing for {', '.join(classes)}: {', '.join(sorted(set(missing)))}; {INSTALL_HINT}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


def generate(base: Path, *classes: str) -> Path:
    """Example data of the given classes in base/data/<class>/; returns base/data."""
    spec = importlib.util.spec_from_file_location("bioplan_examples_generate_e2e", ROOT / "examples" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(base / "data", only=list(classes))
    return base / "data"


def request(name: str) -> str:
    return (ROOT / "examples" / name / "request.txt").read_text(encoding="utf-8").strip()


def inputs(data: Path, name: str) -> list[str]:
    lines = (ROOT / "examples" / name / "inputs.txt").read_text(encoding="utf-8").splitlines()
    return [str(data / name / line) for line in lines if line.strip()]


def truth(data: Path, name: str) -> dict:
    return json.loads((data / name / "truth.json").read_text(encoding="utf-8"))


def compile_workflow(query: str, files: list[str], workdir: Path) -> Path:
    """The request's workflow in workdir, without compile's pre-check (`snakemake -n` on a scratch copy: a Snakemake
    start, ~2 CPU-s): every caller runs the workflow's default target next, whose start builds the same DAG and then
    runs it (a plan that fails to wire up fails that run; tests/test_compile.py and the dev-set dry runs of
    tests/test_references.py test the pre-check itself)."""
    from bioplan.compile import compile_request

    compile_request(query, files, str(workdir / "Snakefile"), force=True, validate=False)
    return workdir


# A JVM for short runs on small data (Picard, FastQC, snpEff on a few thousand reads): the C1 compiler only
# and the serial collector spend about half the CPU of the default (C2 compiler threads, G1) on a run of
# seconds (Picard MarkDuplicates 4.6 -> 2.5 CPU-s, FastQC 2.9 -> 1.7); the results are the same. Every
# Snakemake run of the tests gets it unless the environment sets JAVA_TOOL_OPTIONS; the JVM notes the
# options on stderr ("Picked up JAVA_TOOL_OPTIONS", no version-like number), in the step's log.
QUICK_JVM = {"JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}


def snakemake(workdir: Path, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`snakemake --cores 2` in the workflow directory, tools from PATH (and extra_env), JVMs started with
    QUICK_JVM; output in .stdout."""
    return subprocess.run([str(BIN / "snakemake"), "--cores", "2", *args], cwd=workdir,
                          env={**QUICK_JVM, **env(), **(extra_env or {})}, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=SNAKEMAKE_TIMEOUT)


# glibc malloc keeping freed memory in the process (no mmap per large array, no trim): tools that
# allocate and free big arrays over and over stop paying page faults for them each time (deepTools
# plotFingerprint's quality metrics: ~30 of its ~44 CPU-seconds here); results are the same bytes.
KEEP_FREED_MEMORY = {"MALLOC_MMAP_THRESHOLD_": str(2**32), "MALLOC_TRIM_THRESHOLD_": str(2**32),
                     "MALLOC_TOP_PAD_": str(2**29)}


def run_ok(workdir: Path, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    proc = snakemake(workdir, *args, extra_env=extra_env)
    assert proc.returncode == 0, f"snakemake failed in {workdir}:\n{proc.stdout[-6000:]}"
    return proc


def set_param(workdir: Path, tool: str, name: str, value) -> None:
    """Set params.<tool>.<name> in the workflow's config/config.yaml (what a user edits)."""
    import yaml

    path = workdir / "config" / "config.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["params"][tool][name] = value
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")


def few_fastqc_contaminants(workdir: Path, folder: Path) -> None:
    """Give FastQC a one-entry contaminant list (folder/fastqc_contaminants.txt, through params.fastqc.extra as a
    user would pass --contaminants). In the tests' small read files (a few hundred to a few thousand reads) many
    distinct reads pass FastQC's 0.1 % overrepresented threshold, and FastQC aligns each to every entry of its
    list: ~2 of its ~4.4 CPU-s a file of 250 reads. Every module and report stays; the synthetic reads match no
    contaminant either way ("No Hit")."""
    import shlex

    contaminants = folder / "fastqc_contaminants.txt"
    contaminants.write_text("Illumina Single End Adapter 1\tGATCGGAAGAGCTCGTATGCCGTCTTCTGCTTG\n", encoding="utf-8")
    set_param(workdir, "fastqc", "extra", f"--contaminants {shlex.quote(str(contaminants))}")


def keep_intermediates(workdir: Path) -> None:
    """Set keep_intermediates: true in config/config.yaml, for tests that read an intermediate
    (a temp() file Snakemake deletes once later steps have read it)."""
    path = workdir / "config" / "config.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("\nkeep_intermediates: false\n") == 1, "config/config.yaml has no keep_intermediates key"
    path.write_text(text.replace("\nkeep_intermediates: false\n", "\nkeep_intermediates: true\n"), encoding="utf-8")


def injected(*roots: Path) -> list[Path]:
    """Canary files (INJECTED*) under the given directories."""
    found = []
    for root in roots:
        if root.exists():
            found += [p for p in root.rglob("INJECTED*") if ".git" not in p.parts]
    return found
