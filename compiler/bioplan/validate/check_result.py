"""The outcome of one check a target's tool runs on an emitted workflow (a generator's pre-check,
`snakemake --lint`, ...): its name, whether it passed, and the tool's output to show when not."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    output: str
