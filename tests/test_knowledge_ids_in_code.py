"""Every knowledge id the code still names exists in the knowledge.

Knowledge is data, but some code still names ids of it (a sniffer reports `raw_reads` in
`fastq.gz`; codegen special-cases `gene_id_conversion`). A rename in YAML must fail here, not
break sniffing or planning silently. The scan reads the source of `compiler/bioplan` (AST, no
import) and takes a string literal as a knowledge id where the code uses it as one:

- passed as `datatype=`, `format=`, `operation=`, `constraint=`, `tool=`, ... (`ID_NAMES`), by
  keyword or in the position of such a parameter of a function or dataclass of the same module;
- compared with (`==`, `!=`, `in`) or assigned to such a name or attribute (`f.datatype in (...)`,
  `fmt = "fasta.gz" if ... else "fasta"`, `s.operation == "gene_id_conversion"`), or to a name
  saying its kind (`_LIST_DATATYPES = {...}`, `_QUANT_FORMATS`, `FMT_KRAKEN2_DB`);
- a key of the knowledge's tables (`knowledge.constraints["requires_replicates"]`, `.get(...)`,
  `"x" in knowledge.datatypes`);
- a constraint id by its prefix (`requires_...`, `organism_...`) anywhere;
- a format or datatype a sniffer declares (`request/sniffers`: `FileSniffer`/`FolderSniffer`).

Each must resolve in the namespace the name says (any namespace for ids of unclear kind).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bioplan.knowledge.load import load_knowledge
from bioplan.request.sniffers.registry import FILE_SNIFFERS, FOLDER_SNIFFERS, declared_ids
from conftest import source_nodes

PACKAGE = Path(__file__).resolve().parents[1] / "compiler" / "bioplan"

# names (of keywords, variables, attributes) whose string values are knowledge ids, by namespace
ID_NAMES = {
    "datatype": "datatypes", "datatypes": "datatypes", "dt": "datatypes", "semantic_type": "datatypes",
    "input_types": "datatypes", "applies_to": "datatypes",
    "format": "formats", "fmt": "formats",
    "operation": "operations", "operations": "operations", "implements": "operations", "anchors": "operations",
    "constraint": "constraints", "constraint_ids": "constraints", "preconditions": "constraints",
    "requires": "constraints", "assay": "constraints", "assays": "constraints",
    "tool": "tools", "tool_id": "tools",
    "motif": "motifs",
}
# attributes of Knowledge that are tables keyed by id
TABLES = ("datatypes", "formats", "operations", "constraints", "tools", "motifs")
# names a Knowledge goes by in the package
KNOWLEDGE_NAMES = ("knowledge", "k", "kb")
# constraint ids by prefix (constraints.yaml: organism_human, requires_replicates, ...)
CONSTRAINT_PREFIXES = ("requires_", "organism_")


def _terminal_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _namespace_of(name: str | None) -> str | None:
    """The namespace of a name: `datatype` (ID_NAMES), `_LIST_DATATYPES`, `_QUANT_FORMATS`,
    `FMT_KRAKEN2_DB`, `peak_fmt`."""
    if name is None:
        return None
    low = name.lower().strip("_")
    if low in ID_NAMES:
        return ID_NAMES[low]
    if low.startswith("fmt_") or low.endswith("_fmt"):
        return "formats"
    return next((t for t in ("datatypes", "formats") if low.endswith("_" + t)), None)


def _strings(node: ast.AST | None) -> Iterator[ast.Constant]:
    """String constants a value may be: the value itself, either branch, tuple/list/set items,
    a dict's values, a starred tuple's items."""
    if node is None:
        return
    if isinstance(node, ast.Dict):
        for v in node.values:
            yield from _strings(v)
    if isinstance(node, ast.Starred):
        yield from _strings(node.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            yield from _strings(v)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for e in node.elts:
            yield from _strings(e)


def _table_of(node: ast.AST) -> str | None:
    """'datatypes' for `knowledge.datatypes`, `k.datatypes`, `self.knowledge.datatypes` (not `spec.constraints`,
    a TaskSpec's kind -> value map)."""
    if not (isinstance(node, ast.Attribute) and node.attr in TABLES):
        return None
    return node.attr if _terminal_name(node.value) in KNOWLEDGE_NAMES else None


def _compared(left: ast.AST, op: ast.cmpop, right: ast.AST) -> Iterator[tuple[str, str | None, int]]:
    """`dt == "x"`, `"x" != s.operation`, `f.datatype in ("a", "b")`, `"x" in knowledge.constraints`;
    not `".gz" in fmt` (a substring test)."""
    if isinstance(op, (ast.Eq, ast.NotEq)):
        for a, b in ((left, right), (right, left)):
            if _terminal_name(a) in ID_NAMES:
                yield from ((c.value, ID_NAMES[_terminal_name(a) or ""], c.lineno) for c in _strings(b))
    elif isinstance(op, (ast.In, ast.NotIn)):
        if _terminal_name(left) in ID_NAMES and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            yield from ((c.value, ID_NAMES[_terminal_name(left) or ""], c.lineno) for c in _strings(right))
        if table := _table_of(right):
            yield from ((c.value, table, c.lineno) for c in _strings(left))


def _returns(function: str) -> str | None:
    """The namespace of what a function returns, by its name (`_table_format`, `_list_datatype`)."""
    low = function.lower().strip("_")
    return next((ns for end, ns in (("format", "formats"), ("datatype", "datatypes")) if low.endswith(end)), None)


def _parameters(nodes: Sequence[ast.AST]) -> dict[str, list[str]]:
    """Positional parameter names of the module's functions and dataclass-like classes (fields in order)."""
    out: dict[str, list[str]] = {}
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        elif isinstance(node, ast.ClassDef):
            out[node.name] = [f.target.id for f in node.body
                              if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)]
    return out


def _positional(node: ast.Call, params: dict[str, list[str]]) -> Iterator[tuple[str, str | None, int]]:
    """`done("reference_genome", why)`, `_alignment_result(src, "bam", ...)`: by the parameter's name."""
    names = params.get(_terminal_name(node.func) or "", [])
    if names[:1] == ["self"]:
        names = names[1:]
    for name, arg in zip(names, node.args):
        if space := _namespace_of(name):
            yield from ((c.value, space, c.lineno) for c in _strings(arg))


def ids_in(nodes: Sequence[ast.AST]) -> Iterator[tuple[str, str | None, int]]:
    """(literal, namespace or None for any, line) for every id-like literal of a module (`nodes`: every
    node of its tree, as `ast.walk` gives them)."""
    params = _parameters(nodes)
    for node in nodes:
        if isinstance(node, ast.Call):
            yield from _positional(node, params)
        if isinstance(node, ast.FunctionDef) and (space := _returns(node.name)):
            # def _table_format(...) -> str: return "csv"
            for ret in ast.walk(node):
                if isinstance(ret, ast.Return):
                    yield from ((c.value, space, c.lineno) for c in _strings(ret.value))
        if isinstance(node, ast.keyword) and node.arg in ID_NAMES:
            for c in _strings(node.value):
                yield c.value, ID_NAMES[node.arg], c.lineno
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if space := _namespace_of(_terminal_name(t)):
                    for c in _strings(node.value):
                        yield c.value, space, c.lineno
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
            yield from _compared(node.left, node.ops[0], node.comparators[0])
        elif isinstance(node, ast.Subscript) and (table := _table_of(node.value)):
            for c in _strings(node.slice):
                yield c.value, table, c.lineno
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and (table := _table_of(node.func.value)) and node.args):
            for c in _strings(node.args[0]):
                yield c.value, table, c.lineno
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value.startswith(CONSTRAINT_PREFIXES) and not node.value.endswith("_")
              and node.value.replace("_", "").isalnum() and node.value.islower()):
            yield node.value, "constraints", node.lineno


@functools.cache
def scan() -> list[tuple[str, str | None, str]]:
    """(literal, namespace, where) over the package (read once per test session)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for value, space, line in ids_in(source_nodes(path)):
            if value:  # "" is a default, not an id
                found.append((value, space, f"{path.relative_to(PACKAGE.parent)}:{line}"))
    return found


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def _namespaces(knowledge) -> dict[str, set[str]]:
    return {t: set(getattr(knowledge, t)) for t in TABLES}


def test_every_id_literal_in_the_code_resolves(knowledge) -> None:
    spaces = _namespaces(knowledge)
    every = set().union(*spaces.values())
    missing = sorted({f"{where}: {value!r} is not a {space or 'knowledge'} id"
                      for value, space, where in scan()
                      if value not in (spaces[space] if space else every)})
    assert not missing, "ids the code names that the knowledge lacks (renamed in YAML?):\n" + "\n".join(missing)


def test_the_sniffers_declare_only_knowledge_ids(knowledge) -> None:
    formats, datatypes = declared_ids()
    assert formats - set(knowledge.formats) == set()
    assert datatypes - set(knowledge.datatypes) == set()
    # every reader but the refusals and the declarative signatures says what it reports
    silent = [s.name for s in (*FILE_SNIFFERS, *FOLDER_SNIFFERS) if not s.datatypes]
    assert all("refused" in n or "signatures" in n for n in silent), silent


def test_the_sniffers_declare_every_id_they_report() -> None:
    """A format or datatype a reader names is in its module's declarations (FileSniffer/FolderSniffer)."""
    formats, datatypes = declared_ids()
    named = {(v, s) for v, s, where in scan() if where.startswith("bioplan/request/sniffers/")}
    undeclared = sorted(v for v, s in named if (s == "formats" and v not in formats)
                        or (s == "datatypes" and v not in datatypes))
    assert not undeclared


def test_the_scan_sees_ids_where_the_code_uses_them() -> None:
    """The scan is not vacuous: ids used in each kind of position are found."""
    found = {(v, s) for v, s, _ in scan()}
    assert ("fastq.gz", "formats") in found  # fmt = "fastq.gz" if ... (sniffers/sequences.py)
    assert ("raw_reads", "datatypes") in found  # datatype="raw_reads"
    assert ("gene_id_conversion", "operations") in found  # s.operation == "gene_id_conversion"
    assert ("csv", "formats") in found  # def _table_format(...): return "csv"
    assert ("bam", "formats") in found  # _alignment_result(src, "bam", ...): the parameter is `fmt`
    assert ("ensembl_gene_list", "datatypes") in found  # _LIST_DATATYPES = {"ensembl": "ensembl_gene_list", ...}


def test_a_renamed_id_is_caught() -> None:
    tree = ast.parse('f = SniffedFile(datatype="raw_read", format="fastq")\n'
                     'if step.operation == "read_trimmin": pass\n'
                     'k.constraints["requires_replicate"]\n'
                     'facts["organism_mous"] = True\n'
                     'if ".gz" in fmt or spec.constraints.get("layout") == "paired": pass\n')
    assert {(v, s) for v, s, _ in ids_in(list(ast.walk(tree)))} == {("raw_read", "datatypes"), ("fastq", "formats"),
                                                    ("read_trimmin", "operations"),
                                                    ("requires_replicate", "constraints"),
                                                    ("organism_mous", "constraints")}
