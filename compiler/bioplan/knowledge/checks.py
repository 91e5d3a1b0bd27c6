"""Semantic checks of the knowledge graph (after JSON Schema).

Each check is a small function returning problems as "file: key/path: what; to
resolve, ..." strings; `semantic_problems` runs them all and collects every
problem (cwltool-style) instead of stopping at the first.

Edge kinds and their domain/range:
    tool      --implements--> operation
    operation --accepts-----> datatype      (input ports)
    operation --produces----> datatype      (output ports)
    operation --requires----> constraint    (kind data or layout)
    operation --applies_in--> constraint    (kind assay)
    tool      --supports----> constraint    (organism, assay or layout)
    tool      --requires----> constraint    (kind data)
    motif     --contains----> operation
    datatype  --is_a--------> datatype      (acyclic)
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from rapidfuzz import process as fuzz_process

from bioplan.knowledge.models import Datatype, Knowledge, Operation, Tool

_EDAM_BRANCH = {"datatype": "data_", "operation": "operation_", "format": "format_"}


@lru_cache(maxsize=1)
def edam_terms() -> dict[str, bool]:
    """EDAM short id -> obsolete? from the edam-ontology package (no network)."""
    from edam_ontology.streams import tabular_stream

    terms: dict[str, bool] = {}
    with tabular_stream() as fh:
        header = fh.readline().rstrip("\n").split("\t")
        id_col, obsolete_col = header.index("Class ID"), header.index("Obsolete")
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) <= obsolete_col:
                continue
            short = cols[id_col].rsplit("/", 1)[-1]
            terms[short] = cols[obsolete_col].strip().upper() == "TRUE"
    return terms


def _suggest(word: str, choices) -> str:
    best = fuzz_process.extractOne(word, list(choices))
    return f"; did you mean {best[0]!r}?" if best and best[1] >= 70 else ""


def _where(sources: dict[str, Path], key: str) -> str:
    return str(sources.get(key, key.split("/")[0]))


def check_edam(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    terms = edam_terms()
    out = []
    entries = (
        [("datatype", f"datatypes/{i}", d.edam) for i, d in k.datatypes.items()]
        + [("operation", f"operations/{i}", o.edam) for i, o in k.operations.items()]
        + [("format", f"formats/{i}", f.edam) for i, f in k.formats.items()]
    )
    for branch, key, edam in entries:
        if not edam:
            continue
        where = f"{_where(sources, key)}: {key}/edam"
        if not edam.startswith(_EDAM_BRANCH[branch]):
            out.append(f"{where}: {edam!r} is not an EDAM {branch} id (expected {_EDAM_BRANCH[branch]}NNNN)")
        elif edam not in terms:
            out.append(f"{where}: {edam!r} does not exist in EDAM; to resolve, look the term up in EDAM.tsv")
        elif terms[edam]:
            out.append(f"{where}: {edam!r} is obsolete in EDAM; to resolve, use its replacement")
    return out


def check_datatypes(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    out = []
    for dt in k.datatypes.values():
        key = f"datatypes/{dt.id}"
        if dt.is_a is not None and dt.is_a not in k.datatypes:
            out.append(f"{_where(sources, key)}: {key}/is_a: unknown datatype {dt.is_a!r}"
                       f"{_suggest(dt.is_a, k.datatypes)}")
        seen = {dt.id}
        parent = dt.is_a
        while parent in k.datatypes:
            if parent in seen:
                out.append(f"{_where(sources, key)}: {key}/is_a: cycle through {parent!r}")
                break
            seen.add(parent)
            parent = k.datatypes[parent].is_a
        if dt.mates and dt.scope != "sample":
            out.append(f"{_where(sources, key)}: {key}/mates: only sample-scope read datatypes have mates")
        for field, ref in [("grouped_as", dt.grouped_as), *(("contradicts", d) for d in dt.contradicts)]:
            if ref is not None and ref not in k.datatypes:
                out.append(f"{_where(sources, key)}: {key}/{field}: unknown datatype {ref!r}"
                           f"{_suggest(ref, k.datatypes)}")
        out += _parts_problems(k, dt, _where(sources, key))
    return out


def _params_when_problems(k: Knowledge, tool: Tool, where: str) -> list[str]:
    """`params_when` names known constraints and the tool's own params."""
    out = []
    for c, values in tool.params_when.items():
        if c not in k.constraints:
            out.append(f"{where}: params_when: unknown constraint {c!r}{_suggest(c, k.constraints)}")
        out += [f"{where}: params_when/{c}: {p!r} is not one of the tool's params" for p in values
                if p not in tool.params]
    return out


def _parts_problems(k: Knowledge, dt: Datatype, where: str) -> list[str]:
    """A cohort datatype's parts are known sample-scope datatypes (one file each)."""
    if dt.parts is None:
        return []
    if dt.scope != "cohort":
        return [f"{where}: {dt.id}/parts: only a cohort datatype comes in parts"]
    out = []
    for field, ref in (("distinct_samples", dt.parts.distinct_samples), ("same_samples", dt.parts.same_samples)):
        part = k.datatypes.get(ref)
        if part is None:
            out.append(f"{where}: {dt.id}/parts/{field}: unknown datatype {ref!r}{_suggest(ref, k.datatypes)}")
        elif part.scope != "sample":
            out.append(f"{where}: {dt.id}/parts/{field}: {ref!r} must be a sample-scope datatype (one file each)")
    return out


def check_operations(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    out = []
    for op in k.operations.values():
        key = f"operations/{op.id}"
        where = _where(sources, key)
        for direction, ports in (("inputs", op.inputs), ("outputs", op.outputs)):
            for port, spec in ports.items():
                if spec.datatype not in k.datatypes:
                    out.append(f"{where}: {key}/{direction}/{port}: unknown datatype {spec.datatype!r}"
                               f"{_suggest(spec.datatype, k.datatypes)}")
        if not op.outputs:
            out.append(f"{where}: {key}/outputs: an operation must produce at least one datatype")
        for c in op.requires:
            con = k.constraints.get(c)
            if con is None:
                out.append(f"{where}: {key}/requires: unknown constraint {c!r}{_suggest(c, k.constraints)}")
            elif con.kind not in ("data", "layout"):
                out.append(f"{where}: {key}/requires: {c!r} is a {con.kind} constraint; "
                           "operations require data constraints")
        for a in op.assays:
            con = k.constraints.get(a)
            if con is None or con.kind != "assay":
                out.append(f"{where}: {key}/assays: {a!r} is not an assay constraint")
        if not k.tools_for(op.id):
            out.append(f"{where}: {key}: no tool implements this operation; to resolve, add "
                       f"ontology/tools/<tool>.yaml with implements: {op.id}")
    return out


def check_constraints(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    out = []
    for con in k.constraints.values():
        key = f"constraints/{con.id}"
        for other in con.conflicts:
            if other not in k.constraints:
                out.append(f"{_where(sources, key)}: {key}/conflicts: unknown constraint {other!r}")
        for dt in con.applies_to:
            if dt not in k.datatypes:
                out.append(f"{_where(sources, key)}: {key}/applies_to: unknown datatype {dt!r}"
                           f"{_suggest(dt, k.datatypes)}")
        for dt in con.decided_by.datatypes if con.decided_by else ():
            if dt not in k.datatypes:
                out.append(f"{_where(sources, key)}: {key}/decided_by: unknown datatype {dt!r}"
                           f"{_suggest(dt, k.datatypes)}")
        for dt in con.checked_on_read:
            if dt not in k.datatypes:
                out.append(f"{_where(sources, key)}: {key}/checked_on_read: unknown datatype {dt!r}"
                           f"{_suggest(dt, k.datatypes)}")
        if con.checked_on_read and not con.check:
            out.append(f"{_where(sources, key)}: {key}/checked_on_read: the constraint has no check script to run")
    return out


def check_formats(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    """A declared signature (`sniff`) names a datatype, says what to look for, and can match a name."""
    out = []
    for fmt in k.formats.values():
        if fmt.sniff is None:
            continue
        key = f"formats/{fmt.id}/sniff"
        where = _where(sources, f"formats/{fmt.id}")
        if fmt.sniff.datatype not in k.datatypes:
            out.append(f"{where}: {key}/datatype: unknown datatype {fmt.sniff.datatype!r}"
                       f"{_suggest(fmt.sniff.datatype, k.datatypes)}")
        if fmt.sniff.magic is None and fmt.sniff.header is None:
            out.append(f"{where}: {key}: give `magic` or `header` (a signature of the name alone is a guess)")
        if not fmt.extensions:
            out.append(f"{where}: {key}: the format lists no `extensions` for the signature to match")
        if fmt.sniff.header is not None:
            try:
                re.compile(fmt.sniff.header)
            except re.error as exc:
                out.append(f"{where}: {key}/header: not a regular expression ({exc})")
        if fmt.sniff.magic is not None:
            try:
                fmt.sniff.magic.encode("latin-1")
            except UnicodeEncodeError:
                out.append(f"{where}: {key}/magic: bytes are written as characters \\x00-\\xff")
    for tool in k.tools.values():  # a tool writing a folder format says so on its port
        for name, port in tool.outputs.items():
            made = k.formats.get(port.format)
            if made is not None and made.directory and not port.directory:
                out.append(f"{_where(sources, f'tools/{tool.id}')}: outputs/{name}: format {port.format!r} is a folder "
                           "(formats.yaml directory: true): give the port directory: true")
    return out


def _resources_problems(tool: Tool, where: str) -> list[str]:
    """Time limits scale with the data as memory does (a job given more memory for a bigger input and
    the same time limit is killed at the limit), and a local step is trivial (it runs on the submit node)."""
    r, out = tool.resources, []
    for memory, time in (("mem_mb_per_gb_input", "runtime_per_gb_input"),
                         ("mem_mb_per_gb_genome", "runtime_per_gb_genome")):
        if getattr(r, memory) and not getattr(r, time):
            out.append(f"{where}: resources: {memory} grows the memory with the data but the time does not grow with "
                       f"it: set {time} (minutes per GB)")
    if r.local and (r.threads > 1 or r.mem_mb > 2000 or r.runtime > 15):
        out.append(f"{where}: resources: local: a step run on the submit node must be trivial "
                   "(1 thread, at most 2000 MB and 15 min)")
    return out


def check_tools(k: Knowledge, sources: dict[str, Path], templates: Path) -> list[str]:
    out = []
    for tool in k.tools.values():
        key = f"tools/{tool.id}"
        where = _where(sources, key)
        op = k.operations.get(tool.implements)
        if op is None:
            out.append(f"{where}: implements: unknown operation {tool.implements!r}"
                       f"{_suggest(tool.implements, k.operations)}")
            continue
        for port in tool.inputs:
            if port not in op.inputs:
                out.append(f"{where}: inputs/{port}: operation {op.id!r} has no input port {port!r} "
                           f"(ports: {', '.join(op.inputs)})")
        for port, spec in op.inputs.items():
            if not spec.optional and port not in tool.inputs:
                out.append(f"{where}: inputs: missing port {port!r} of operation {op.id!r}")
        for port in op.outputs:
            if port not in tool.outputs:
                out.append(f"{where}: outputs: missing port {port!r} of operation {op.id!r}")
        for direction, ports in (("inputs", tool.inputs), ("outputs", tool.outputs)):
            for port, tp in ports.items():
                for fmt in tp.format.split("|"):
                    if fmt not in k.formats:
                        out.append(f"{where}: {direction}/{port}/format: unknown format {fmt!r}"
                                   f"{_suggest(fmt, k.formats)}")
        for c in tool.supports:
            con = k.constraints.get(c)
            if con is None or con.kind == "data":
                out.append(f"{where}: supports: {c!r} is not an organism, assay or layout constraint")
        for c in tool.requires:
            con = k.constraints.get(c)
            if con is None or con.kind not in ("data", "layout"):
                out.append(f"{where}: requires: {c!r} is not a data constraint")
        out += _params_when_problems(k, tool, where) + _resources_problems(tool, where)
        for target, rel in tool.templates.items():
            if not (templates / rel).is_file():
                out.append(f"{where}: templates/{target}: {rel!r} not found under templates/")
        if "snakemake" not in tool.templates:
            out.append(f"{where}: templates: a snakemake template is required")
        for script in tool.scripts:
            if not (templates / "scripts" / script).is_file():
                out.append(f"{where}: scripts: {script!r} not found under templates/scripts/")
        if not 0.0 <= tool.quality <= 1.0:
            out.append(f"{where}: quality: must be within [0, 1]")
    return out


def check_checks(k: Knowledge, sources: dict[str, Path], templates: Path) -> list[str]:
    out = []
    for con in k.constraints.values():
        if con.check and not (templates / "scripts" / f"{con.check}.py").is_file():
            key = f"constraints/{con.id}"
            out.append(f"{_where(sources, key)}: {key}/check: templates/scripts/{con.check}.py not found")
    return out


def check_motifs(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    out = []
    for motif in k.motifs.values():
        where = _where(sources, f"motifs/{motif.id}")
        for op in motif.operations:
            if op not in k.operations:
                out.append(f"{where}: operations: unknown operation {op!r}{_suggest(op, k.operations)}")
        for op in motif.essential:
            if op not in motif.operations:
                out.append(f"{where}: essential: {op!r} is not one of the motif's operations")
        if not 0.0 <= motif.prior <= 1.0:
            out.append(f"{where}: prior: must be within [0, 1]")
        for op, tool in motif.tools.items():
            if op not in motif.operations:
                out.append(f"{where}: tools: {op!r} is not one of the motif's operations")
            elif tool not in k.tools or k.tools[tool].implements != op:
                out.append(f"{where}: tools: {tool!r} is not a tool of the knowledge implementing {op!r}")
    return out


# The lexicon's patterns `re.compile` accepted in this process: ~780 patterns cost ~0.5 s to compile,
# and `re` keeps only 512; a process that builds the knowledge again (from an edited copy, as the tests
# do) compiles only the patterns it has not seen. Whether a pattern compiles depends on its text alone.
_VALID_PATTERNS: set[str] = set()


def _pattern_error(pattern: str) -> re.error | None:
    if pattern not in _VALID_PATTERNS:
        try:
            re.compile(pattern)
        except re.error as exc:
            return exc
        _VALID_PATTERNS.add(pattern)
    return None


def check_lexicon(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    out = []
    for i, rule in enumerate(k.lexicon.phrases):
        where = f"lexicon.yaml: phrases/{i}"
        if (exc := _pattern_error(rule.pattern)) is not None:
            out.append(f"{where}/pattern: not a valid regular expression: {exc}")
        for op in rule.operations:
            if op not in k.operations:
                out.append(f"{where}/operations: unknown operation {op!r}")
        if rule.target and rule.target not in k.datatypes:
            out.append(f"{where}/target: unknown datatype {rule.target!r}")
        for c in rule.constraints:
            if c not in k.constraints:
                out.append(f"{where}/constraints: unknown constraint {c!r}")
    families = {a.id for a in k.lexicon.unsupported_analyses}
    for i, family in enumerate(k.lexicon.unsupported_analyses):
        for j, pattern in enumerate(family.patterns):
            if (exc := _pattern_error(pattern)) is not None:
                out.append(f"lexicon.yaml: unsupported_analyses/{i} ({family.id})/patterns/{j}: not a valid "
                           f"regular expression: {exc}")
    out += _setting_problems(k)
    for i, tool in enumerate(k.lexicon.absent_tools):
        where = f"lexicon.yaml: absent_tools/{i} ({tool.id})"
        if not tool.operations and not tool.analyses:
            out.append(f"{where}: names neither operations nor analyses; say what the tool does")
        out += [f"{where}/operations: unknown operation {op!r}" for op in tool.operations if op not in k.operations]
        out += [f"{where}/analyses: unknown analysis family {a!r}" for a in tool.analyses if a not in families]
        if tool.successor and tool.successor not in k.tools:
            out.append(f"{where}/successor: unknown tool {tool.successor!r}")
    return out


def check_tool_aliases(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    """A tool alias that is also a word for an operation or datatype must be the tool's own name.

    A request naming a tool states a preference; generic words ("peak calling", "GO富集")
    on a tool would turn every mention of the operation into a silent tool choice.
    """
    from bioplan.knowledge.words import normalize

    generic: set[str] = set()
    entries: list[Operation | Datatype] = [*k.operations.values(), *k.datatypes.values()]
    for entry in entries:
        generic.update(normalize(a) for a in (*entry.aliases.en, *entry.aliases.zh, entry.label, entry.id))
    out = []
    for tool in k.tools.values():
        own = normalize(tool.name) + " " + normalize(tool.id)
        for alias in (*tool.aliases.en, *tool.aliases.zh):
            norm = normalize(alias)
            if norm in generic and norm not in own:
                out.append(f"{_where(sources, f'tools/{tool.id}')}: aliases: {alias!r} also names an operation or "
                           "datatype; a tool alias must name the tool (remove it, the operation keeps the word)")
    return out


def check_orphans(k: Knowledge, sources: dict[str, Path]) -> list[str]:
    used: set[str] = set()
    for op in k.operations.values():
        used.update(p.datatype for p in op.inputs.values())
        used.update(p.datatype for p in op.outputs.values())
    parents = {d.is_a for d in k.datatypes.values() if d.is_a}

    def lineage(d: str) -> list[str]:
        out = [d]
        parent = k.datatypes[d].is_a if d in k.datatypes else None
        while parent:
            out.append(parent)
            parent = k.datatypes[parent].is_a if parent in k.datatypes else None
        return out

    # a subtype is used wherever a port accepts its parent (trimmed_reads feeds raw_reads ports)
    return [
        f"{_where(sources, f'datatypes/{d}')}: datatypes/{d}: orphan datatype (no operation accepts or produces it "
        "or a parent of it); to resolve, use it in an operation port or remove it"
        for d in k.datatypes
        if d not in parents and not any(x in used for x in lineage(d))
    ]


def semantic_problems(k: Knowledge, sources: dict[str, Path], templates: Path) -> list[str]:
    problems: list[str] = []
    problems += check_datatypes(k, sources)
    problems += check_operations(k, sources)
    problems += check_constraints(k, sources)
    problems += check_formats(k, sources)
    problems += check_tools(k, sources, templates)
    problems += check_checks(k, sources, templates)
    problems += check_motifs(k, sources)
    problems += check_lexicon(k, sources)
    problems += check_tool_aliases(k, sources)
    problems += check_orphans(k, sources)
    problems += check_edam(k, sources)
    return problems


def _setting_problems(k: Knowledge) -> list[str]:
    """lexicon.yaml settings: valid patterns, and every tool param a setting sets exists."""
    out = []
    for i, setting in enumerate(k.lexicon.settings):
        where = f"lexicon.yaml: settings/{i} ({setting.id})"
        for j, pattern in enumerate(setting.patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                out.append(f"{where}/patterns/{j}: not a valid regular expression: {exc}")
        for j, sp in enumerate(setting.sets):
            out += [f"{where}/sets/{j}/tools: unknown tool {t!r}" for t in sp.tools if t not in k.tools]
            out += [f"{where}/sets/{j}/param: {k.tools[t].id} has no param {sp.param!r}" for t in sp.tools
                    if t in k.tools and sp.param not in k.tools[t].params]
        out += [f"{where}/honoured_by: unknown tool {t!r}" for t in setting.honoured_by if t not in k.tools]
        if setting.levels is not None:  # the contrast reader reads the levels from groups a and b
            out += [f"{where}/patterns/{j}: a contrast's pattern needs groups 'a' and 'b'"
                    for j, pattern in enumerate(setting.patterns) if "(?P<a>" not in pattern or "(?P<b>" not in pattern]
            if {sp.level for sp in setting.sets} != {"reference", "test"}:
                out.append(f"{where}/sets: a contrast sets a 'reference' and a 'test' level param")
    return out
