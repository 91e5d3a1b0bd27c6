"""Where the shipped knowledge lives: inside an installed wheel, or in the checkout."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_DATA_NAMES = ("ontology", "motifs", "templates")


def data_root() -> Path:
    """Directory holding `ontology/`, `motifs/` and `templates/`.

    A wheel carries them in `bioplan/data/`; an editable install or a plain
    checkout has them at the repository root, two levels above `compiler/bioplan/`.
    `BIOPLAN_DATA_ROOT` overrides both (used by tests of the knowledge loader).
    """
    override = os.environ.get("BIOPLAN_DATA_ROOT")
    if override:
        return Path(override)
    packaged = _PACKAGE_DIR / "data"
    if (packaged / "ontology").is_dir():
        return packaged
    return _PACKAGE_DIR.parent.parent


def ontology_dir() -> Path:
    return data_root() / "ontology"


def templates_dir() -> Path:
    return data_root() / "templates"
