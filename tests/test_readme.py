"""The README as written works: every ```bash block of README.md, run verbatim, in order, at the root
of a fresh checkout (its first block is the set-up command, which builds the checkout's own .venv).

Locally the blocks run here, in a scratch copy of the checkout. `.ci/run` runs them as its set-up
step on its fresh clone (`tests/readme_blocks.py`, which also says how blocks are chosen) and points
BIOPLAN_README_RECORD at what ran; the test then checks that record against this README instead of
building a second copy with a second `.venv` on the same machine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from readme_blocks import README, ROOT, bash_blocks, digest, reader_env, record, run_blocks


def test_the_parser_honours_only_the_explicit_tag():
    text = ("```bash\necho one\n```\n<!-- readme-test: skip needs a cluster -->\n```bash\necho two\n```\n"
            "<!-- a comment, not a tag -->\n```bash\necho three\n```\n```\nnot bash\n```\n"
            "<!-- readme-test: skip far away -->\n\nsome text\n```bash\necho four\n```\n")
    assert [(b.code, b.skip) for b in bash_blocks(text)] == [
        ("echo one\n", None), ("echo two\n", "needs a cluster"), ("echo three\n", None), ("echo four\n", None)]


def test_the_readme_starts_with_set_up_and_tests_and_says_how_to_use_the_venv():
    text = README.read_text(encoding="utf-8")
    blocks = bash_blocks(text)
    assert blocks[0].code.startswith("bash scripts/setup.sh") and blocks[0].skip is None
    assert blocks[1].code.startswith(".venv/bin/python -m pytest")
    assert "source .venv/bin/activate" in text
    assert '-m "not e2e and not slurm"' in text  # the fast tier
    run = [b for b in blocks if b.skip is None]
    assert len(run) >= 5, "most command blocks must run"
    for b in blocks:  # every bioplan/snakemake call is reachable without an activated venv, or activates it
        needs_venv = re.search(r"(^|[;&|(]\s*|\n)\s*(bioplan|snakemake)\b", b.code)
        assert not needs_venv or "source .venv/bin/activate" in b.code, f"README.md:{b.line}: {b.code}"


def _scratch_copy(dest: Path) -> Path:
    """The checkout's files as they are now (tracked and new, not ignored: no .venv, data/ or out/)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _check_what_ran(work: Path) -> None:
    """What the blocks promise: the headline workflow exists and the bulk example ran with real tools."""
    assert (work / "out" / "de_enrichment" / "workflow" / "Snakefile").is_file()
    assert (work / "out" / "bulk_de" / "results" / "csv_export" / "merged_pathways.csv").is_file()


def _check_record(text: str, ran: dict[str, object]) -> None:
    """The record of `.ci/run`'s set-up step: this README, every block not tagged skip passed."""
    assert ran["readme_sha256"] == digest(text), "README.md changed after .ci/run ran its blocks"
    assert ran["failed"] is None, ran["failed"]
    assert ran["passed_lines"] == [b.line for b in bash_blocks(text) if b.skip is None], ran


def test_a_record_of_blocks_run_is_checked_against_this_readme():
    text = "```bash\necho one\n```\n<!-- readme-test: skip needs a cluster -->\n```bash\necho two\n```\n"
    _check_record(text, {"readme_sha256": digest(text), "passed_lines": [1], "failed": None})
    with pytest.raises(AssertionError, match="changed after"):
        _check_record(text + "more\n", {"readme_sha256": digest(text), "passed_lines": [1], "failed": None})
    with pytest.raises(AssertionError):  # a block that never ran
        _check_record(text, {"readme_sha256": digest(text), "passed_lines": [], "failed": None})


def test_a_failing_block_stops_the_run_and_says_where(tmp_path):
    text = "```bash\necho one > one.txt\n```\n```bash\nfalse\n```\n```bash\necho three > three.txt\n```\n"
    runs = run_blocks(tmp_path, text, reader_env())
    assert [r.returncode for r in runs] == [0, 1] and (tmp_path / "one.txt").is_file()
    assert not (tmp_path / "three.txt").exists()
    ran = record(text, runs)
    assert ran["passed_lines"] == [1] and "README.md:4 failed (exit 1)" in str(ran["failed"])


@pytest.mark.slow
@pytest.mark.e2e
def test_every_bash_block_of_the_readme_runs(tmp_path):
    text = README.read_text(encoding="utf-8")
    recorded = os.environ.get("BIOPLAN_README_RECORD")
    if recorded:  # .ci/run's set-up step ran them on this fresh clone
        _check_record(text, json.loads(Path(recorded).read_text(encoding="utf-8")))
        _check_what_ran(ROOT)
        return
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to copy")
    work = _scratch_copy(tmp_path / "checkout")
    runs = run_blocks(work, text, reader_env({"BIOPLAN_CACHE_DIR": str(tmp_path / "cache")}))
    failed = [r for r in runs if r.returncode != 0]
    assert not failed, failed[0].failure()
    assert len(runs) >= 5
    _check_what_ran(work)
