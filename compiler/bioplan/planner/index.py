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

The subtype closures, producers and consumers are the knowledge's own queries
(`knowledge/queries.py`); the index adds what planning needs on top of them.

It is memoised in-process by `Knowledge.content_hash` and pickled by `bioplan.cache`
under a key of that hash and this module's code (`INDEX_CODE`), so an ontology edit
or a change of the index layout invalidates it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bioplan import cache as disk_cache
from bioplan.knowledge import queries
from bioplan.knowledge.models import Knowledge

# The modules whose code decides what the index of a knowledge is: part of its cache key.
INDEX_CODE = ("bioplan.planner.index", "bioplan.knowledge.queries")


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


def build_index(knowledge: Knowledge) -> PlanningIndex:
    closures = {d: queries.is_a_closure(knowledge, d) for d in knowledge.datatypes}
    tools_by_op: dict[str, list[str]] = {}
    for t in knowledge.tools.values():
        tools_by_op.setdefault(t.implements, []).append(t.id)
    ops: dict[str, OpEntry] = {}
    for op_id, op in knowledge.operations.items():
        pre = frozenset(p.datatype for p in op.inputs.values() if not p.optional)
        add = frozenset().union(*(closures.get(p.datatype) or frozenset((p.datatype,)) for p in op.outputs.values()))
        ops[op_id] = OpEntry(pre, add, op.cost, tuple(op.assays), tuple(op.requires),
                             tuple(sorted(tools_by_op.get(op_id, ()))))
    # what operations make, then the config actions: a reference from config makes its closure
    producers = {f: list(v) for f, v in queries.build_producers(knowledge).items()}
    config: dict[str, frozenset[str]] = {}
    for dt in knowledge.datatypes.values():
        if dt.config_provided:
            config[dt.id] = closures[dt.id]
            for f in closures[dt.id]:
                producers.setdefault(f, []).append(f"provide:{dt.id}")
    consumers = queries.build_consumers(knowledge)
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
        consumers=consumers,
        config_facts=config_facts,
        base_ops=frozenset(base_ops),
        base_facts=frozenset(base_facts),
        tool_kinds=tool_kinds,
        motifs={m.id: tuple(m.operations) for m in knowledge.motifs.values()},
    )


def _reachable(ops: dict[str, OpEntry], consumers: dict[str, tuple[str, ...]],
               facts: frozenset[str]) -> tuple[set[str], set[str]]:
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


def cache_key(content_hash: str) -> str:
    """The index's cache key: the knowledge's content hash and the code that builds the index."""
    return disk_cache.content_key([content_hash.encode(), disk_cache.source_fingerprint(INDEX_CODE).encode()])


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
    disk_key = cache_key(key) if persist else None
    if disk_key is not None:
        cached = disk_cache.read("index", disk_key, PlanningIndex)
        if cached is not None and cached.content_hash == key:
            _MEMO[key] = cached
            return cached
    index = build_index(knowledge)
    _MEMO[key] = index
    if disk_key is not None:
        disk_cache.write("index", disk_key, index)
    return index
