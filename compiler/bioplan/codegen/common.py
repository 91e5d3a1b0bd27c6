"""Helpers every generator uses: nothing here knows a target's syntax."""

from __future__ import annotations

from typing import Any

from bioplan.codegen.ir import LANE, PATIENT, STATUS, Reference, Workflow
from bioplan.errors import TargetUnsupportedError


def fetch_arguments(reference: Reference) -> list[str]:
    """scripts/fetch_reference.py's arguments for one reference (pinned URLs and checksum kinds)."""
    args = ["--unpack", reference.unpack, "--derive", reference.derive]
    for d in reference.downloads:
        args += ["--source", d.url, d.checksum, d.checksum_url or "-"]
    return args


def json_schema_type(value: Any) -> dict[str, Any]:
    """The JSON Schema type of a parameter's default value (None: any type)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if value is None:
        return {}
    return {"type": "string"}


def user_names(workflow: Workflow) -> tuple[list[str], list[str]]:
    """(sample ids and patient ids, input file paths) the user gave: what each target checks it can carry."""
    samples = [row["sample"] for row in workflow.samples]
    samples += list(dict.fromkeys(row[PATIENT] for row in workflow.samples if row.get(PATIENT)))
    paths = [c.path for c in workflow.config_inputs if c.path]
    paths += [v for row in workflow.samples for k, v in row.items()
              if k != "sample" and k not in workflow.meta_columns and v]
    return samples, paths


def sheet_columns(workflow: Workflow) -> list[str]:
    """The sample sheet's columns: sample, the values group steps read (patient, status), the file paths."""
    return [*workflow.sample_columns[:1], *workflow.meta_columns, *workflow.sample_columns[1:]]


def meta_column_schemas(columns: tuple[str, ...], name_pattern: str) -> dict[str, Any]:
    """JSON Schemas of the sample sheet's value columns: a patient id is a folder name as a sample id is
    (results/<step>/<patient>/), a status is tumour or normal (nf-core/sarek's 1 and 0, as words)."""
    known: dict[str, dict[str, Any]] = {
        PATIENT: {"type": "string", "minLength": 1, "pattern": name_pattern,
                  "description": "the individual the sample comes from: its tumour(s) and normal are called together"},
        STATUS: {"type": "string", "enum": ["tumour", "normal"],
                 "description": "tumour, or normal for the patient's matched normal (at most one per patient)"},
        LANE: {"type": "string", "minLength": 1, "pattern": name_pattern,
               "description": "the lane (or run) of the sample this row's FASTQ files hold: a sample's rows are "
                              "concatenated per mate, in row order, before its first step, or, where variants are "
                              "called, aligned row by row, each row its own read group (ID <sample>.<lane>)"},
    }
    return {c: known[c] for c in columns}


def refuse_names(target: str, bad_samples: list[str], bad_paths: list[str], why: str, hints: list[str]) -> None:
    """A TargetUnsupportedError naming the samples and files `target` cannot carry (at most six), if any."""
    if not bad_samples and not bad_paths:
        return
    named = [f"sample {s!r}" for s in bad_samples] + [f"file {p!r}" for p in bad_paths]
    raise TargetUnsupportedError(
        f"the {target} target cannot use these names safely: {', '.join(named[:6])}"
        + (" ..." if len(named) > 6 else "") + f" ({why})", hints, {"samples": bad_samples, "paths": bad_paths})
