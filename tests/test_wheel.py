"""The knowledge, motifs and templates ship inside the wheel, and the package finds them there."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return next(out.glob("bioplan-*.whl"))


def test_wheel_carries_the_knowledge(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for rel in ("ontology/datatypes.yaml", "ontology/operations.yaml", "ontology/tools/pydeseq2.yaml",
                "motifs/motif.bulk_rnaseq_de_go_kegg_merge.yaml", "templates/snakemake/_macros.smk.j2",
                "templates/skeleton/snakemake/Snakefile.j2", "templates/scripts/check_integer_counts.py"):
        assert f"bioplan/data/{rel}" in names, rel
    assert "bioplan/cli.py" in names


def test_installed_wheel_loads_its_own_knowledge(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("from bioplan.paths import data_root; from bioplan.knowledge.load import load_knowledge; "
            "k = load_knowledge(use_cache=False); print(data_root()); print(len(k.tools))")
    env = {k: v for k, v in os.environ.items() if k not in ("BIOPLAN_DATA_ROOT", "BIOPLAN_KNOWLEDGE")}
    env["PYTHONPATH"] = str(site)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    root, n_tools = proc.stdout.split()
    assert Path(root) == site / "bioplan" / "data"
    assert int(n_tools) > 50
