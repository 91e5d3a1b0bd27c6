"""Helpers shared by several test files (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SNAKEMAKE = Path(sys.executable).parent / "snakemake"  # the test environment's snakemake


def step_of(rule: str, steps: set[str]) -> str:
    """The plan step a Snakemake rule belongs to: itself, or the step whose auxiliary rule it is
    (variant_annotation_build_db runs inside the variant_annotation process; the IR says which
    rules are steps: check_gene_annotation_read_counting is one, beside check_gene_annotation)."""
    if rule in steps:
        return rule
    owners = [s for s in steps if rule.startswith(s + "_")]
    return max(owners, key=len) if owners else rule


def snakemake_rule_graph_edges(workdir: Path, steps: set[str]) -> set[tuple[str, str]]:
    """Step -> step edges of `snakemake --rulegraph` in workdir (auxiliary rules folded into their
    step, the `all` target and self-edges left out)."""
    env = dict(os.environ)
    env["PATH"] = str(SNAKEMAKE.parent) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run([str(SNAKEMAKE), "--rulegraph", "--cores", "1", "--quiet"], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    labels = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)"', proc.stdout, re.M))
    edges = {(step_of(labels[a], steps), step_of(labels[b], steps))
             for a, b in re.findall(r"^\s*(\d+) -> (\d+)", proc.stdout, re.M)}
    return {(a, b) for a, b in edges if "all" not in (a, b) and a != b}
