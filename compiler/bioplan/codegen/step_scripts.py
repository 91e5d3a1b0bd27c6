"""The step scripts a workflow ships, with the helper module of each language they are written in.

The scripts share their logging, error reporting and table readers through one helper module per
language (`templates/scripts/bioplan_step.py`, `bioplan_step.R`), copied beside them: Snakemake's
`script:` puts a script's folder on the import path (Python) and gives R scripts
`snakemake@scriptdir`; Nextflow's `bin/bioplan_run.py`/`.R` do the same for the pipeline's bin/.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bioplan.paths import templates_dir

# file suffix of a step script -> the helper module its scripts import (or source)
HELPERS = {".py": "bioplan_step.py", ".R": "bioplan_step.R"}


def with_helpers(scripts: tuple[str, ...] | list[str]) -> list[str]:
    """The scripts, then the helper module of each language among them (sorted, no repeats)."""
    helpers = {HELPERS[suffix] for s in scripts if (suffix := PurePosixPath(s).suffix) in HELPERS}
    return sorted(set(scripts) | helpers)


def step_script_files(scripts: tuple[str, ...] | list[str], folder: str) -> dict[str, str]:
    """{folder/name: text} of the step scripts and their helper modules."""
    source = templates_dir() / "scripts"
    return {f"{folder}/{name}": (source / name).read_text(encoding="utf-8") for name in with_helpers(scripts)}
