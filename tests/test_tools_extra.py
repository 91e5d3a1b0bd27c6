"""A step script whose Python tool is missing says which extra to install, not `ModuleNotFoundError`.

The Python tools (pydeseq2, gseapy, scanpy, ...) are bioplan's `tools` extra. Every step script
that imports one does so after its top-level `bioplan_step.start(snakemake)`, whose handler of
uncaught exceptions turns ModuleNotFoundError into "ERROR [rule]: Python package 'x' is not
installed: pip install 'bioplan[tools]' ..." (or inside `try: ... except ModuleNotFoundError`).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from conftest import parsed_source, source_nodes
from test_step_scripts import step  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "templates" / "scripts"
# top-level modules of the `tools` extra (pyproject.toml) the step scripts import
TOOLS_EXTRA_MODULES = {"pydeseq2", "gseapy", "scanpy", "anndata", "igraph", "leidenalg", "matplotlib", "sklearn",
                       "scipy"}
HINT = "pip install 'bioplan[tools]'"


def _imported(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name.split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom) and node.module:
        return {node.module.split(".")[0]}
    return set()


def _catches_module_not_found(handlers: list[ast.ExceptHandler]) -> bool:
    names = set()
    for h in handlers:
        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        names |= {t.id for t in types if isinstance(t, ast.Name)}
    return bool(names & {"ModuleNotFoundError", "ImportError"})


def _start_line(tree: ast.Module) -> int | None:
    """Line of the script's top-level `bioplan_step.start(snakemake)`: from there on, an uncaught
    ModuleNotFoundError ends as fail(... bioplan[tools] ...) (bioplan_step's excepthook)."""
    for node in tree.body:
        if isinstance(node, ast.Expr) and ast.unparse(node.value) == "bioplan_step.start(snakemake)":
            return node.lineno
    return None


def unguarded_imports(path: Path) -> list[str]:
    """Imports of a tools-extra module that a missing package would turn into a bare traceback."""
    tree = parsed_source(path)
    start = _start_line(tree)

    def guarded_by_start(node: ast.AST) -> bool:
        if path.name == "bioplan_step.py":  # the helpers run only when a script calls them, after start()
            return node.col_offset > 0
        return start is not None and node.lineno > start

    bad: list[str] = []

    def visit(node: ast.AST, in_try: bool) -> None:
        found = _imported(node) & TOOLS_EXTRA_MODULES
        if found and not in_try and not guarded_by_start(node):
            bad.append(f"{path.name}:{node.lineno} imports {', '.join(sorted(found))}")
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.Try) and child in node.body:
                guarded = _catches_module_not_found(node.handlers) and HINT in ast.unparse(node)
                visit(child, in_try or guarded)
            else:
                visit(child, in_try)

    visit(tree, False)
    return bad


def test_every_tools_extra_import_is_guarded():
    scripts = sorted(SCRIPTS.glob("*.py"))
    importing = [p for p in scripts
                 if any(_imported(n) & TOOLS_EXTRA_MODULES for n in source_nodes(p))]
    assert len(importing) >= 10  # the scanpy, gseapy, pydeseq2 and plotting steps
    problems = [b for p in scripts for b in unguarded_imports(p)]
    assert not problems, "unguarded imports of the tools extra:\n  " + "\n  ".join(problems)


def test_the_check_finds_an_unguarded_import(tmp_path):
    script = tmp_path / "step.py"
    script.write_text("import logging\nimport scanpy as sc\n\ndef main():\n    import gseapy\n\n"
                      "bioplan_step.start(snakemake)\nimport anndata\n")
    # before start() a missing package is a bare traceback; after it (anndata) bioplan_step's message
    assert unguarded_imports(script) == ["step.py:2 imports scanpy", "step.py:5 imports gseapy"]


# io names the scripts read; the files need not exist: the tool's import fails first
IO = {name: f"{name}.data" for name in ("genes", "gene_sets", "counts", "samples", "adata", "table")}


@pytest.mark.parametrize("script, missing", [
    ("gseapy_enrich.py", "gseapy"),      # imported in main()
    ("pydeseq2_de.py", "pydeseq2"),      # likewise
    ("scanpy_qc.py", "scanpy"),          # top-level import after bioplan_step.start()
    ("volcano_plot.py", "matplotlib"),   # imported by bioplan_step.pyplot()
])
def test_a_missing_tool_names_the_extra(step, monkeypatch, tmp_path, script, missing):
    """The script run in this process as Snakemake's `script:` runs it (test_step_scripts' `step`: its
    excepthook, exit status and stderr as the script's own process has them), with one package made
    unimportable: None in sys.modules makes `import x` raise ModuleNotFoundError, as a missing package does."""
    # its submodules too: one an earlier test of this worker imported ("pydeseq2.dds") is found in sys.modules
    # without its package, so `from pydeseq2.dds import ...` would succeed and the script run on (CI's order)
    for name in [missing, *(n for n in sys.modules if n.startswith(missing + "."))]:
        monkeypatch.setitem(sys.modules, name, None)
    run = step(script, {k: tmp_path / v for k, v in IO.items()}, {k: tmp_path / v for k, v in IO.items()})
    assert run.code == 1, run.terminal
    assert f"Python package '{missing}' is not installed: {HINT}" in run.terminal
    assert "Traceback" not in run.terminal
