"""The README as written works: every ```bash block of README.md, run verbatim, in order, in a scratch
copy of the checkout (its first block is the set-up command, which builds the copy's own .venv).

Each block runs in a fresh `bash -e -o pipefail` at the copy's root, as a reader pasting it into a
new terminal there would (so a block that needs the venv says `source .venv/bin/activate` or calls
`.venv/bin/...`). The only way to leave a block out is an explicit tag on the line right before it:

    <!-- readme-test: skip REASON -->

for blocks that need a cluster, a Nextflow runtime, or that are the test suite itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_SKIP = re.compile(r"<!--\s*readme-test:\s*skip\s+(.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None  # the tag's reason


def bash_blocks(text: str) -> list[Block]:
    blocks = []
    for m in _BLOCK.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        tag = _SKIP.search(before)
        blocks.append(Block(text.count("\n", 0, m.start()) + 1, m.group(1), tag.group(1) if tag else None))
    return blocks


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


@pytest.mark.slow
@pytest.mark.e2e
def test_every_bash_block_of_the_readme_runs(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to copy")
    work = _scratch_copy(tmp_path / "checkout")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "BIOPLAN_DATA_ROOT",
                                                             "BIOPLAN_KNOWLEDGE")}
    env["BIOPLAN_CACHE_DIR"] = str(tmp_path / "cache")
    ran = []
    for block in bash_blocks(README.read_text(encoding="utf-8")):
        if block.skip:
            continue
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=work, env=env,
                              capture_output=True, text=True, timeout=1800)
        assert proc.returncode == 0, (f"README.md:{block.line} failed (exit {proc.returncode}):\n{block.code}\n"
                                      f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}")
        ran.append(block.line)
    assert len(ran) >= 5
    # what the blocks promise: the headline workflow exists and the bulk example ran with real tools
    assert (work / "out" / "de_enrichment" / "workflow" / "Snakefile").is_file()
    assert (work / "out" / "bulk_de" / "results" / "csv_export" / "merged_pathways.csv").is_file()
