"""The knowledge, motifs, templates and eval data generator ship inside the wheel, the package finds them
there, and a plain install of the wheel runs `bioplan eval` and `bioplan compile` from another folder."""

from __future__ import annotations

import json
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
    # `bioplan eval` from any install: the cases, the baseline and the example data generator
    for rel in ("evaluate/dev_set.yaml", "evaluate/baseline.json", "evaluate/example_data.py", "doctor.py"):
        assert f"bioplan/{rel}" in names, rel
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


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


# --------------------------------------------------------------------------- a plain install, used elsewhere


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv holding bioplan only from the wheel. Its dependencies (the same pins) come
    from this test's environment through a .pth line, which keeps the test at seconds instead of a
    download of snakemake, pandas and friends; bioplan's own code and data come from the wheel alone
    (a .pth path entry does not run the editable install's finder)."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (site / "dependencies-of-the-test-environment.pth").write_text(deps + "\n")
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return venv


def _elsewhere_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("BIOPLAN_DATA_ROOT", "BIOPLAN_KNOWLEDGE", "PYTHONPATH", "VIRTUAL_ENV")}
    env["BIOPLAN_CACHE_DIR"] = str(tmp_path / "cache")
    return env


@pytest.mark.slow
def test_eval_runs_from_a_wheel_install_in_another_folder(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = _elsewhere_env(tmp_path)
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import bioplan, bioplan.paths; print(bioplan.__file__); print(bioplan.paths.data_root())"],
                           capture_output=True, text=True, cwd=elsewhere, env=env, check=True).stdout.split()
    assert all(Path(p).is_relative_to(installed) for p in where), where  # nothing from the checkout
    proc = subprocess.run([str(installed / "bin" / "bioplan"), "eval", "--json", "-k", "bulk.de_kegg_go_merge",
                           "-k", "sc.full", "-k", "meta.full.en", "-k", "refuse.no_replicates"],
                          capture_output=True, text=True, cwd=elsewhere, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    metrics = report["metrics"]
    assert metrics["cases"] >= 5 and metrics["crashes"] == 0 and metrics["fixture_problems"] == 0, metrics
    assert metrics["passed"] == metrics["cases"], [c["id"] for c in report["cases"] if not c.get("passed")]
    assert not any(elsewhere.iterdir())  # the generated data went to a temporary directory


@pytest.mark.slow
def test_compile_and_version_from_a_wheel_install(installed, tmp_path):
    env = _elsewhere_env(tmp_path)
    bioplan = str(installed / "bin" / "bioplan")
    version = subprocess.run([bioplan, "--version"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("bioplan 0.1.0"), version.stderr
    subprocess.run([str(installed / "bin" / "python"), "-m", "bioplan.evaluate.example_data", "data", "--only",
                    "bulk_de"], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    request = (ROOT / "examples" / "bulk_de" / "request.txt").read_text(encoding="utf-8").strip()
    files = [f"data/bulk_de/{line}" for line in
             (ROOT / "examples" / "bulk_de" / "inputs.txt").read_text(encoding="utf-8").split() if line]
    proc = subprocess.run([bioplan, "compile", request, *sum((["-i", f] for f in files), []), "-o", "out/Snakefile"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "pre-check dry_run: ok" in proc.stdout
    assert (tmp_path / "out" / "workflow" / "Snakefile").is_file()
    assert (tmp_path / "out" / "config" / "config.yaml").is_file()
