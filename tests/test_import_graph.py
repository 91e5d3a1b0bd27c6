"""Stages import forward only (ARCHITECTURE.md): the knowledge comes first, then the request, the
planner, the checks of emitted workflows, code generation (each generator runs its own checks),
and the application that drives them.

A module may import modules of its own stage and of any earlier one, plus the shared bottom
modules; never a later stage (a backward import ties a stage to the internals of the ones built on
it, and is how import cycles start). Imports inside functions count too: the same dependency, only
deferred. Imports under `if TYPE_CHECKING:` never run and only name a type for an annotation (the
validate stage's signatures name the IR's `Workflow`), so they are exempt from the stage order.
No module imports another stage's private names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT, source_nodes

PACKAGE = ROOT / "compiler" / "bioplan"

# Shared bottom modules: the data models passed between stages, errors, paths, caching, progress
# and signal handling. Every stage may import them; they import no stage.
SHARED = ("bioplan", "bioplan.errors", "bioplan.models", "bioplan.paths", "bioplan.progress", "bioplan.signals",
          "bioplan.cache",
          # the CLI process's compiled regular expressions and dataclass methods served from the disk cache
          "bioplan.patterns", "bioplan.dataclass_code")
# The stages in pipeline order (ARCHITECTURE.md's table): each may import only itself and earlier.
STAGES = (
    ("knowledge", ("bioplan.knowledge",)),  # load: YAML -> Knowledge, and the queries on it
    ("request", ("bioplan.request",)),  # normalise, parse, sniff, spec
    ("planner", ("bioplan.planner",)),  # search, rank, bind
    ("validate", ("bioplan.validate",)),  # checks of emitted workflows (snakemake -n, lint, Nextflow)
    ("codegen", ("bioplan.codegen",)),  # synthesize (the IR), emit (generators, each with its checks)
    ("report", ("bioplan.report", "bioplan.doctor")),  # what the CLI prints about a result / the install
    ("compile", ("bioplan.compile",)),  # the library API: the stages in their fixed order, install
    ("evaluate", ("bioplan.evaluate",)),  # `bioplan eval`: runs the library API over a case set
    ("cli", ("bioplan.cli",)),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def stage_of(module: str) -> int | None:
    """Index of the module's stage in STAGES; None for a shared bottom module."""
    if module in SHARED:
        return None
    for i, (_, prefixes) in enumerate(STAGES):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{module} belongs to no stage: add it to SHARED or STAGES in {__file__}")


def _type_checking_only(nodes: tuple[ast.AST, ...]) -> set[int]:
    """ids of the import nodes inside `if TYPE_CHECKING:` blocks (`nodes`: every node of a module)."""
    out: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.If) and (
                (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Import | ast.ImportFrom)}
    return out


def imports_of(module: str, with_type_checking: bool = False) -> list[tuple[str, str, int]]:
    """(imported module, imported name or "", line) of every bioplan import in `module` that runs
    (and, with `with_type_checking`, those under `if TYPE_CHECKING:` too)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    nodes = source_nodes(path)
    skipped = set() if with_type_checking else _type_checking_only(nodes)
    out = []
    for node in nodes:
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] == "bioplan"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x / from .y import z
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "bioplan":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                # `from bioplan.codegen import escape` imports the module bioplan.codegen.escape
                out.append((submodule, "", node.lineno) if submodule in MODULES else (target, alias.name, node.lineno))
    return out


def test_every_module_has_a_stage():
    for module in MODULES:
        stage_of(module)


def test_shared_modules_import_no_stage():
    bad = [f"{m}:{line} imports {target}" for m in SHARED for target, _, line in imports_of(m)
           if stage_of(target) is not None]
    assert not bad, "\n".join(bad)


def test_stages_import_forward_only():
    bad = []
    for module in MODULES:
        own = stage_of(module)
        if own is None:
            continue
        for target, _, line in imports_of(module):
            other = stage_of(target)
            if other is not None and other > own:
                bad.append(f"{module}:{line} ({STAGES[own][0]}) imports {target} ({STAGES[other][0]}), a later stage")
    assert not bad, "\n".join(bad)


def test_no_module_imports_another_stages_private_names():
    bad = []
    for module in MODULES:
        for target, name, line in imports_of(module, with_type_checking=True):
            private = name.startswith("_") and not name.startswith("__")  # __version__ is public
            if private and stage_of(target) != stage_of(module):
                bad.append(f"{module}:{line} imports {target}.{name}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("module, target", [
    ("bioplan.knowledge.checks", "bioplan.request.lexicon"),
    ("bioplan.planner.index", "bioplan.knowledge.load"),
])
def test_the_backward_imports_issue_11_names_are_gone(module, target):
    assert target not in {t for t, _, _ in imports_of(module, with_type_checking=True)}


def test_the_checker_sees_a_backward_import(tmp_path, monkeypatch):
    """The import walk reads absolute, relative, `from package import module` and deferred imports."""
    fake = tmp_path / "bioplan" / "knowledge"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from typing import TYPE_CHECKING\n"
                                 "def f():\n    from ..codegen import ir\n    from bioplan.planner.graph import _x\n"
                                 "if TYPE_CHECKING:\n    from bioplan.compile import compile_request\n")
    monkeypatch.setitem(MODULES, "bioplan.knowledge.bad", fake / "bad.py")
    found = imports_of("bioplan.knowledge.bad")
    assert ("bioplan.codegen.ir", "", 3) in found
    assert ("bioplan.planner.graph", "_x", 4) in found
    assert ("bioplan.compile", "compile_request", 6) not in found
    assert ("bioplan.compile", "compile_request", 6) in imports_of("bioplan.knowledge.bad", with_type_checking=True)
