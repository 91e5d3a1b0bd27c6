"""The planning index: the capability graph precomputed once per knowledge content hash.

`build_problem` must not walk the whole knowledge base for every request: at the
scale of a large tool catalogue (hundreds of thousands of operations) one pass
over every operation and tool already costs more than a plan. The index holds,
per operation, its preconditions (required input datatypes), its effects
(output datatypes with their `is_a` ancestors), cost, assays, data requirements
and tools; per datatype, its `is_a` closure and the actions that produce it
(operations and `provide:<datatype>` config actions); per tool, the context
constraints it supports grouped by kind (the Tool Binding Index); per motif,
its operations (the Path/Motif Index). A request then reads only the part of
the graph around its target and anchors (see `graph.build_problem`).

It is memoised in-process by `Knowledge.content_hash` and pickled beside the
knowledge cache under the same key, so an ontology edit invalidates both.
"""

from __future__ import annotations

import os
import pickle
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bioplan.knowledge.models import Knowledge

INDEX_FORMAT = 3  # bump when the index layout changes (old cache files are then ignored)


@dataclass(frozen=True)
class OpEntry:
    pre: frozenset[str]  # required input datatypes
    add: frozenset[str]  # output datatypes and their is_a ancestors
    cost: float
    assays: tuple[str, ...]
    requires: tuple[str, ...]
    tools: tuple[str, ...]  # tool ids, sorted


@dataclass(frozen=True)
class PlanningIndex:
    content_hash: str
    ops: dict[str, OpEntry]
    closure: dict[str, frozenset[str]]  # datatype -> itself and its is_a ancestors
    config: dict[str, frozenset[str]]  # config-provided datatype -> its closure
    producers: dict[str, tuple[str, ...]]  # fact -> operations and provide:<dt> actions adding it
    consumers: dict[str, tuple[str, ...]]  # fact -> operations that require it
    config_facts: frozenset[str]  # facts some config-provided datatype supplies
    # what the references alone can make, whatever the inputs (genome -> genome index): the
    # operations forward-reachable from the config facts, and the facts they add
    base_ops: frozenset[str]
    base_facts: frozenset[str]
    tool_kinds: dict[str, dict[str, frozenset[str]]]  # tool -> constraint kind -> supported ids
    motifs: dict[str, tuple[str, ...]]  # motif -> its operations


def _closure_of(knowledge: Knowledge, datatype: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    if datatype in memo:
        return memo[datatype]
    chain = [datatype]
    dt = knowledge.datatypes.get(datatype)
    seen = {datatype}
    while dt is not None and dt.is_a and dt.is_a not in seen:
        chain.append(dt.is_a)
        seen.add(dt.is_a)
        dt = knowledge.datatypes.get(dt.is_a)
    memo[datatype] = frozenset(chain)
    return memo[datatype]


def build_index(knowledge: Knowledge) -> PlanningIndex:
    closures: dict[str, frozenset[str]] = {}
    for d in knowledge.datatypes:
        _closure_of(knowledge, d, closures)
    tools_by_op: dict[str, list[str]] = {}
    for t in knowledge.tools.values():
        tools_by_op.setdefault(t.implements, []).append(t.id)
    ops: dict[str, OpEntry] = {}
    producers: dict[str, list[str]] = {}
    for op_id, op in knowledge.operations.items():
        pre = frozenset(p.datatype for p in op.inputs.values() if not p.optional)
        add: set[str] = set()
        for p in op.outputs.values():
            add |= _closure_of(knowledge, p.datatype, closures)
        ops[op_id] = OpEntry(pre, frozenset(add), op.cost, tuple(op.assays), tuple(op.requires),
                             tuple(sorted(tools_by_op.get(op_id, ()))))
        for f in add:
            producers.setdefault(f, []).append(op_id)
    config: dict[str, frozenset[str]] = {}
    for dt in knowledge.datatypes.values():
        if dt.config_provided:
            config[dt.id] = closures[dt.id]
            for f in closures[dt.id]:
                producers.setdefault(f, []).append(f"provide:{dt.id}")
    consumers: dict[str, list[str]] = {}
    for op_id, e in ops.items():
        for f in e.pre:
            consumers.setdefault(f, []).append(op_id)
    config_facts = frozenset().union(*config.values()) if config else frozenset()
    base_ops, base_facts = _reachable(ops, consumers, config_facts)
    kind_of = {c.id: c.kind for c in knowledge.constraints.values()}
    tool_kinds: dict[str, dict[str, frozenset[str]]] = {}
    for t in knowledge.tools.values():
        if t.supports:
            by_kind: dict[str, set[str]] = {}
            for c in t.supports:
                by_kind.setdefault(kind_of[c], set()).add(c)
            tool_kinds[t.id] = {k: frozenset(v) for k, v in by_kind.items()}
    return PlanningIndex(
        content_hash=knowledge.content_hash,
        ops=ops,
        closure=closures,
        config=config,
        producers={f: tuple(v) for f, v in producers.items()},
        consumers={f: tuple(v) for f, v in consumers.items()},
        config_facts=config_facts,
        base_ops=frozenset(base_ops),
        base_facts=frozenset(base_facts),
        tool_kinds=tool_kinds,
        motifs={m.id: tuple(m.operations) for m in knowledge.motifs.values()},
    )


def _reachable(ops: dict[str, OpEntry], consumers: dict[str, list[str]], facts: frozenset[str]):
    """Operations forward-reachable from `facts` (queue-based), and the facts they add."""
    reached: set[str] = set(facts)
    fired: set[str] = set()
    waiting = {o: len(e.pre) for o, e in ops.items()}
    queue = list(facts)
    for o, e in ops.items():
        if not e.pre:
            fired.add(o)
            queue.extend(f for f in e.add if f not in reached)
            reached |= e.add
    while queue:
        f = queue.pop()
        for o in consumers.get(f, ()):
            waiting[o] -= 1
            if waiting[o] == 0:
                fired.add(o)
                for g in ops[o].add:
                    if g not in reached:
                        reached.add(g)
                        queue.append(g)
    return fired, reached


_MEMO: dict[str, PlanningIndex] = {}
_HEX = re.compile(r"[0-9a-f]{64}")


def _cache_file(content_hash: str) -> Path:
    from bioplan.knowledge.load import _cache_dir

    return _cache_dir() / f"index{INDEX_FORMAT}-{content_hash[:32]}.pickle"


def planning_index(knowledge: Knowledge, persist: bool | None = None) -> PlanningIndex:
    """The index of `knowledge`: memoised, and cached on disk for knowledge loaded from files.

    `persist` defaults to True for a content hash that is a sha256 (knowledge built from
    files by `load_knowledge`); generated knowledge bases are only memoised.
    """
    key = knowledge.content_hash
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    if persist is None:
        persist = bool(_HEX.fullmatch(key))
    path = _cache_file(key) if persist else None
    if path is not None and path.is_file():
        try:
            with path.open("rb") as fh:
                index = pickle.load(fh)
            if isinstance(index, PlanningIndex) and index.content_hash == key:
                _MEMO[key] = index
                return index
        except Exception:  # a stale or truncated cache file is simply rebuilt
            pass
    index = build_index(knowledge)
    _MEMO[key] = index
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".index-")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(index, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:  # a read-only cache directory must not stop a plan
            pass
    return index
