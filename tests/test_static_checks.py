"""The static checks .ci/run and the pre-commit hooks run, from the pinned tools of the `test` extra:
ruff over every Python file of the repo (the code, the tests, the benchmarks, the examples; fast, so it
is part of the fast tier too). mypy runs in .ci/run only (tens of seconds without its cache)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT, skip_or_fail_in_ci

RUFF = Path(sys.executable).parent / "ruff"


def test_ruff_finds_nothing_in_the_repo():
    if not RUFF.exists():
        skip_or_fail_in_ci(f"{RUFF} is missing: pip install -e '.[test]'")
    proc = subprocess.run([str(RUFF), "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ci_runs_ruff_and_mypy_before_the_tests():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    tests = ci.index(".venv/bin/python -m pytest")
    assert -1 < ci.find(".venv/bin/ruff check .\n") < tests
    assert -1 < ci.find(".venv/bin/mypy\n") < tests
