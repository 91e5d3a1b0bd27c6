"""The Snakemake target's pre-check: `snakemake -n` on a scratch copy of the staged workflow.

The staged workflow reads references the user must still supply and inputs that may live inside
-o; the scratch copy gets empty placeholders for the first and links to the second, so the dry
run proves the rules wire up without touching the user's files.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from bioplan.validate.snakemake_checks import CheckResult, validate_workflow

if TYPE_CHECKING:
    from bioplan.codegen.ir import Workflow


def workflow_paths(scratch: Path) -> tuple[dict[str, str], list[str]]:
    """(references key -> path, input file paths) that the staged workflow reads, as written in its config."""
    config = yaml.safe_load((scratch / "config" / "config.yaml").read_text(encoding="utf-8")) or {}
    inputs = [str(v) for v in (config.get("inputs") or {}).values() if v]
    sheet = scratch / "config" / "samples.tsv"
    if sheet.is_file():
        with sheet.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                inputs += [v for k, v in row.items() if k != "sample" and v]
    references = {str(k): str(v) for k, v in (config.get("references") or {}).items() if v}
    return references, inputs


def link_inputs_inside_output(scratch: Path, out_real: Path, inputs: list[str]) -> None:
    """Inputs that live inside -o (proj/data/x + -o proj/Snakefile) are relative paths into -o;
    the scratch copy is a sibling of -o, so it gets a symlink to each of them."""
    for rel in inputs:
        if os.path.isabs(rel) or rel.split("/", 1)[0] == "..":
            continue  # absolute, or beside -o: the same path from the sibling scratch copy
        source = out_real / rel
        link = scratch / rel
        if os.path.lexists(link) or not os.path.lexists(source):
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(source)


def _place_missing_references(scratch: Path, workflow: Workflow, references: dict[str, str]) -> bool:
    """Empty files (folders for directory references) where the user must still put a reference;
    True when a reference lies in a shared cache that does not have it yet (never touched here)."""
    folders = {r.key for r in workflow.references if r.directory}
    elsewhere = False
    for key, path in references.items():
        if os.path.isabs(path):  # in a shared --reference-cache: never touched by the pre-check
            elsewhere = elsewhere or not os.path.lexists(path)
            continue
        p = scratch / path
        if not os.path.lexists(p):
            p.parent.mkdir(parents=True, exist_ok=True)
            p.mkdir(exist_ok=True) if key in folders else p.touch()
    return elsewhere


def precheck(stage: Path, workflow: Workflow, out_real: Path) -> CheckResult:
    """`snakemake -n` on a scratch copy where references the user must still supply exist as empty files."""
    scratch = Path(tempfile.mkdtemp(prefix=".bioplan-check-", dir=stage.parent))
    try:
        shutil.copytree(stage, scratch, dirs_exist_ok=True)
        references, inputs = workflow_paths(scratch)
        link_inputs_inside_output(scratch, out_real, inputs + list(references.values()))
        if _place_missing_references(scratch, workflow, references):
            # references still to download into the cache: dry-run the download rules for them
            config = scratch / "config" / "config.yaml"
            config.write_text(config.read_text(encoding="utf-8").replace("\nfetch: false\n", "\nfetch: true\n"),
                              encoding="utf-8")
        return validate_workflow(scratch, ("dry_run",))[0]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
