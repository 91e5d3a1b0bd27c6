"""Shared fixtures: the shipped knowledge, generated example data, compiled reference workflows."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN = Path(__file__).resolve().parent / "golden"

# The five reference task classes, with the example each compiles from.
REFERENCE_CLASSES = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")


def _load_generator():
    spec = importlib.util.spec_from_file_location("bioplan_examples_generate", ROOT / "examples" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
