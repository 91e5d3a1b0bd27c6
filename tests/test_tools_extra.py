"""A step script whose Python tool is missing says which extra to install, not `ModuleNotFoundError`.

The Python tools (pydeseq2, gseapy, scanpy, ...) are bioplan's `tools` extra. Every step script
that imports one does so either inside `try: ... except ModuleNotFoundError` (top-level imports)
or inside `main()` run by `run()`, whose handler catches ModuleNotFoundError; both end in
`fail("Python package 'x' is not installed: pip install 'bioplan[tools]' ...")`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


def _run_guards_module_not_found(tree: ast.Module) -> bool:
    """The script's run(main) wrapper turns ModuleNotFoundError into fail(... bioplan[tools] ...)."""
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "run":
            for node in ast.walk(fn):
                if isinstance(node, ast.Try) and _catches_module_not_found(node.handlers):
                    return HINT in ast.unparse(node)
    return False


def unguarded_imports(path: Path) -> list[str]:
    """Imports of a tools-extra module that a missing package would turn into a bare traceback."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded_by_run = _run_guards_module_not_found(tree)
    bad: list[str] = []

    def visit(node: ast.AST, in_try: bool, in_function: bool) -> None:
        found = _imported(node) & TOOLS_EXTRA_MODULES
        if found and not in_try and not (in_function and guarded_by_run):
            bad.append(f"{path.name}:{node.lineno} imports {', '.join(sorted(found))}")
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.Try) and child in node.body:
                guarded = _catches_module_not_found(node.handlers) and HINT in ast.unparse(node)
                visit(child, in_try or guarded, in_function)
            else:
                visit(child, in_try, in_function or isinstance(node, ast.FunctionDef))

    visit(tree, False, False)
    return bad


def test_every_tools_extra_import_is_guarded():
    scripts = sorted(SCRIPTS.glob("*.py"))
    importing = [p for p in scripts
                 if any(_imported(n) & TOOLS_EXTRA_MODULES for n in ast.walk(ast.parse(p.read_text())))]
    assert len(importing) >= 10  # the scanpy, gseapy, pydeseq2 and plotting steps
    problems = [b for p in scripts for b in unguarded_imports(p)]
    assert not problems, "unguarded imports of the tools extra:\n  " + "\n  ".join(problems)


def test_the_check_finds_an_unguarded_import(tmp_path):
    script = tmp_path / "step.py"
    script.write_text("import logging\nimport scanpy as sc\n\ndef main():\n    import gseapy\n")
    assert unguarded_imports(script) == ["step.py:2 imports scanpy", "step.py:5 imports gseapy"]


# Run a step script as Snakemake's `script:` would (a `snakemake` object in its globals), with one
# package made unimportable: None in sys.modules makes `import x` raise ModuleNotFoundError.
_RUNNER = """
import runpy, sys, types
missing, script, log = sys.argv[1:4]
sys.modules[missing] = None
io = types.SimpleNamespace(genes="genes.txt", gene_sets="sets.gmt", counts="counts.csv", samples="samples.tsv",
                           adata="in.h5ad", table="out.tsv")
snakemake = types.SimpleNamespace(log=[log], rule="step", threads=1, input=io, output=io,
                                  params=types.SimpleNamespace(), wildcards=types.SimpleNamespace())
runpy.run_path(script, init_globals={"snakemake": snakemake}, run_name="__main__")
"""


@pytest.mark.parametrize("script, missing", [
    ("gseapy_enrich.py", "gseapy"),      # imported in main(), through run()
    ("pydeseq2_de.py", "pydeseq2"),      # likewise
    ("scanpy_qc.py", "scanpy"),          # top-level import
    ("volcano_plot.py", "matplotlib"),   # top-level import after the shared helpers
])
def test_a_missing_tool_names_the_extra(tmp_path, script, missing):
    proc = subprocess.run([sys.executable, "-c", _RUNNER, missing, str(SCRIPTS / script), str(tmp_path / "step.log")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert f"Python package '{missing}' is not installed: {HINT}" in proc.stderr
    assert "Traceback" not in proc.stderr
