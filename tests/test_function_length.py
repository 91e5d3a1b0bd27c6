"""No function of the package is longer than about a screen (issue 11): a long function is where
changes pile up. A function that must be longer goes through review and gets listed here."""

from __future__ import annotations

import ast
from pathlib import Path

import bioplan
from conftest import source_nodes

MAX_LINES = 60
PACKAGE = Path(bioplan.__file__).resolve().parent


def _long_functions() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in source_nodes(path):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_LINES:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_is_longer_than_a_screen():
    assert not _long_functions(), "split these into named steps:\n" + "\n".join(_long_functions())


def test_the_scan_sees_every_module():
    # the check would pass vacuously if the package folder were wrong
    assert len(list(PACKAGE.rglob("*.py"))) > 50 and (PACKAGE / "compile.py").is_file()
