"""Helpers every generator uses: nothing here knows a target's syntax."""

from __future__ import annotations

from typing import Any

from bioplan.codegen.ir import Reference


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
