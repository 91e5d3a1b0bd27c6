"""The README's ```bash blocks, and running them verbatim, in order, at a checkout's root.

Used two ways: `tests/test_readme.py` runs them in a scratch copy of the checkout, and `.ci/run`
runs them on its fresh clone as its set-up step (the first block is the set-up command, so the
clone is set up exactly as a reader following the README would set it up), writing a record of
what ran that the test then checks instead of building a second copy with a second `.venv`:

    python3 tests/readme_blocks.py run --record FILE    # at the checkout's root; exit 1 on a failing block

Each block runs in a fresh `bash -e -o pipefail` at the root, as a reader pasting it into a new
terminal there would (so a block that needs the venv says `source .venv/bin/activate` or calls
`.venv/bin/...`). The only way to leave a block out is an explicit tag on the line right before it:

    <!-- readme-test: skip REASON -->

for blocks that need a cluster, a Nextflow runtime, or that are the test suite itself.
Standard library only: `.ci/run` calls it before any venv exists.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_SKIP = re.compile(r"<!--\s*readme-test:\s*skip\s+(.+?)\s*-->\s*$")
# what a reader's fresh terminal does not have: the test runner's venv and bioplan's overrides
_NOT_INHERITED = ("VIRTUAL_ENV", "PYTHONPATH", "BIOPLAN_DATA_ROOT", "BIOPLAN_KNOWLEDGE")
TIMEOUT_SECONDS = 3600  # a block, the set-up command included: a cold machine installs every tool (apt, pip)


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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def reader_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class BlockRun:
    block: Block
    returncode: int
    stdout: str
    stderr: str

    def failure(self) -> str:
        return (f"README.md:{self.block.line} failed (exit {self.returncode}):\n{self.block.code}\n"
                f"--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}")


def run_block(root: Path, block: Block, env: dict[str, str]) -> BlockRun:
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=root, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    return BlockRun(block, proc.returncode, proc.stdout, proc.stderr)


def _quiet(line: str) -> None:
    pass


def run_blocks(root: Path, text: str, env: dict[str, str], say: Callable[[str], None] = _quiet) -> list[BlockRun]:
    """Every block not tagged skip, in order, until one fails (its run is the last of the list)."""
    runs = []
    for block in bash_blocks(text):
        if block.skip:
            say(f"README.md:{block.line} skipped ({block.skip})")
            continue
        start = time.monotonic()
        runs.append(run_block(root, block, env))
        say(f"README.md:{block.line} exit {runs[-1].returncode} ({time.monotonic() - start:.0f}s)")
        if runs[-1].returncode != 0:
            break
    return runs


def record(text: str, runs: list[BlockRun]) -> dict[str, object]:
    """What `.ci/run` leaves for tests/test_readme.py: which README (by digest) and which blocks passed."""
    return {"readme_sha256": digest(text), "passed_lines": [r.block.line for r in runs if r.returncode == 0],
            "failed": next((r.failure() for r in runs if r.returncode != 0), None)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the README's bash blocks verbatim at this checkout's root.")
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--record", type=Path, required=True,
                        help="JSON file to write: the README's digest and the blocks that passed")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    runs = run_blocks(ROOT, text, reader_env(), say=lambda line: print(f"readme: {line}", flush=True))
    args.record.write_text(json.dumps(record(text, runs), indent=1) + "\n", encoding="utf-8")
    failed = [r for r in runs if r.returncode != 0]
    if failed:
        print(failed[0].failure(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
