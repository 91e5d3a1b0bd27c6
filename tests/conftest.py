"""Shared fixtures: the shipped knowledge, generated example data, compiled reference workflows."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
SLURM_LOCAL = ROOT / "scripts" / "slurm-local.sh"  # the local SLURM cluster of the `slurm` tests
NF_LINT = ROOT / "scripts" / "nf-lint.sh"  # Nextflow's strict parser (nf-lang) on Java

# The five reference task classes, with the example each compiles from.
REFERENCE_CLASSES = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")


def _load_generator():
    spec = importlib.util.spec_from_file_location("bioplan_examples_generate", ROOT / "examples" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def skip_or_fail_in_ci(reason: str) -> None:
    """Skip a test whose tool is missing here; under CI (CI=true), where .ci/run installs every
    tool, the same gap fails the test instead of hiding it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run should have provided it)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def nf_lint():
    """Runs scripts/nf-lint.sh on pipeline directories or files; skipped without Java 17+
    (`bash scripts/nf-lint.sh --install` installs it and the parser)."""
    if shutil.which("java") is None:
        skip_or_fail_in_ci("no java on PATH for Nextflow's strict parser (bash scripts/nf-lint.sh --install)")
    ready = subprocess.run(["bash", str(NF_LINT), "--check"], capture_output=True, text=True, timeout=600)
    if ready.returncode != 0:
        skip_or_fail_in_ci(f"scripts/nf-lint.sh cannot run here: {ready.stderr.strip()}")

    def run(*paths: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(NF_LINT), *map(str, paths)], capture_output=True, text=True, timeout=600)

    return run


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    # tests never read a knowledge cache left by another checkout
    os.environ["BIOPLAN_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def knowledge():
    from bioplan.knowledge.load import load_knowledge

    return load_knowledge()


@pytest.fixture(scope="session")
def workspace(tmp_path_factory) -> Path:
    """A directory with data/<class>/ (generated examples) beside out/ (compiled workflows)."""
    base = tmp_path_factory.mktemp("ws")
    _load_generator().generate(base / "data")
    return base


def example_request(name: str, lang: str = "en") -> str:
    fname = "request.txt" if lang == "en" else "request.zh.txt"
    return (ROOT / "examples" / name / fname).read_text(encoding="utf-8").strip()


def example_inputs(workspace: Path, name: str) -> list[str]:
    lines = (ROOT / "examples" / name / "inputs.txt").read_text(encoding="utf-8").splitlines()
    return [str(workspace / "data" / name / line) for line in lines if line.strip()]
