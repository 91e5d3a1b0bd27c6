"""Synthetic capability graphs with the structure of bioplan's real knowledge base.

The generator measures the shipped knowledge base (`real_stats`) and draws a
graph of any size from those measurements (`generate`):

- operations: required-input arity, optional inputs, output arity, cost, the
  share that applies to one assay (the rest are generic: alignment, QC,
  enrichment), data requirements, and tools per operation;
- datatypes: the share with no producer (inputs and references), the share
  supplied through config (references: genome, annotation, gene set library),
  producers per datatype, `is_a` subtypes, and the pipeline depth ("level":
  the fewest operations from the sources) of every produced datatype;
- wiring: an operation producing a level-L datatype reads a level-(L-1)
  datatype as its main input, of its own assay or a generic one; its other
  inputs are references/metadata or earlier results in the real proportions;
  how many operations read a datatype follows the real (heavy-tailed) consumer
  counts;
- tools: `supports` lists of assays in the real proportions (so context pruning
  blocks operations as it does on the real graph); motifs are backward walks.

Sizes: 1x is the smallest graph with the real structure that has at least the
replaced system's 3,451 tools, 4,398 nodes and 25,437 edges (nodes: datatypes,
operations, tools, constraints, motifs; edges: consumes, produces, is_a,
implements, a tool's per-port consumes/produces, supports, requires, applies-to
assay, motif contains). 10x and 100x multiply the number of operations.

`sample_instance` plants a pipeline of a given depth (2-8 operations on its
longest chain) under a random context and returns the TaskSpec that asks for
its end product, with some of its operations as must-pass anchors.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass, field

from bioplan.knowledge.models import (
    Constraint,
    Datatype,
    Knowledge,
    Lexicon,
    Motif,
    Operation,
    Port,
    Resources,
    Software,
    Tool,
    ToolPort,
)
from bioplan.models import TargetOutput, TaskSpec

TARGET_TOOLS, TARGET_NODES, TARGET_EDGES = 3_451, 4_398, 25_437
GENERATOR_VERSION = 1


# --------------------------------------------------------------------------- measuring the real graph


def min_levels(knowledge: Knowledge) -> dict[str, int]:
    """Fewest operations on the longest input chain that makes each datatype from the datatypes
    nothing produces (h_max in hops; generalised Dijkstra). Well defined on any graph."""
    import heapq

    from bioplan.planner.index import planning_index

    index = planning_index(knowledge)
    direct = {p.datatype for op in knowledge.operations.values() for p in op.outputs.values()}
    level: dict[str, int] = {}
    waiting = {op_id: len(e.pre) for op_id, e in index.ops.items()}
    by_pre: dict[str, list[str]] = {}
    for op_id, e in index.ops.items():
        for p in e.pre:
            by_pre.setdefault(p, []).append(op_id)
    heap = [(0, d) for d in knowledge.datatypes if d not in direct]
    heapq.heapify(heap)
    while heap:
        v, d = heapq.heappop(heap)
        if d in level:
            continue
        level[d] = v
        for op_id in by_pre.get(d, ()):
            waiting[op_id] -= 1
            if waiting[op_id] == 0:
                cost = 1 + max(level[p] for p in index.ops[op_id].pre)
                for f in index.ops[op_id].add:
                    if f not in level:
                        heapq.heappush(heap, (cost, f))
    return level


@dataclass
class RealStats:
    n_datatypes: int
    n_operations: int
    n_tools: int
    n_constraints: dict[str, int]
    n_motifs: int
    req_arity: list[int]
    opt_arity: list[int]
    out_arity: list[int]
    costs: list[float]
    assays_per_op: list[int]
    requires_per_op: list[int]
    tools_per_op: list[int]
    supports_per_tool: list[int]
    consumers_per_datatype: list[int]
    producers_per_datatype: list[int]
    frac_source: float
    frac_config_of_sources: float
    frac_config_of_produced: float
    frac_is_a_produced: float
    frac_is_a_refines: float  # of those: the parent is an input of the producer (trimmed of raw reads)
    frac_is_a_source: float
    levels: list[int]  # fewest-hops level of produced datatypes (drawn for generated ones)
    min_levels: list[int]  # fewest-hops level of produced datatypes
    frac_extra_input_source: float  # non-main required inputs that are sources
    frac_reference_only: float  # operations whose required inputs are all references (indexers)
    frac_same_domain: float  # inputs of an assay operation that belong to its assay
    motif_lengths: list[int]
    nodes: int = 0
    edges: int = 0
    edge_kinds: dict[str, int] = field(default_factory=dict)

    def table(self) -> dict[str, float]:
        return summary_of(self)


def real_stats(knowledge: Knowledge) -> RealStats:
    ops = list(knowledge.operations.values())
    consumers: Counter = Counter()
    producers: Counter = Counter()
    for o in ops:
        for p in o.inputs.values():
            consumers[p.datatype] += 1
        for p in o.outputs.values():
            producers[p.datatype] += 1
    sources = [d for d in knowledge.datatypes.values() if producers[d.id] == 0]
    produced = [d for d in knowledge.datatypes.values() if producers[d.id] > 0]
    fewest = min_levels(knowledge)
    # the assay a datatype belongs to: the one assay of all operations touching it, else generic
    touching: dict[str, set] = {}
    for o in ops:
        for p in list(o.inputs.values()) + list(o.outputs.values()):
            touching.setdefault(p.datatype, set()).add(o.assays[0] if len(o.assays) == 1 else None)
    domain = {d: (next(iter(s)) if len(s) == 1 else None) for d, s in touching.items()}
    same = total = extra_src = extra = 0
    for o in ops:
        req = [p.datatype for p in o.inputs.values() if not p.optional]
        for i, d in enumerate(req):
            if o.assays:
                total += 1
                same += domain.get(d) is not None
            if i > 0:
                extra += 1
                extra_src += producers[d] == 0
    kinds = Counter(c.kind for c in knowledge.constraints.values())
    n_tools = Counter(t.implements for t in knowledge.tools.values())
    stats = RealStats(
        n_datatypes=len(knowledge.datatypes),
        n_operations=len(ops),
        n_tools=len(knowledge.tools),
        n_constraints=dict(kinds),
        n_motifs=len(knowledge.motifs),
        req_arity=[sum(not p.optional for p in o.inputs.values()) for o in ops],
        opt_arity=[sum(p.optional for p in o.inputs.values()) for o in ops],
        out_arity=[len(o.outputs) for o in ops],
        costs=[o.cost for o in ops],
        assays_per_op=[len(o.assays) for o in ops],
        requires_per_op=[len(o.requires) for o in ops],
        tools_per_op=[n_tools[o.id] for o in ops],
        supports_per_tool=[len(t.supports) for t in knowledge.tools.values()],
        consumers_per_datatype=[consumers[d] for d in knowledge.datatypes],
        producers_per_datatype=[producers[d] for d in knowledge.datatypes],
        frac_source=len(sources) / len(knowledge.datatypes),
        frac_config_of_sources=sum(d.config_provided for d in sources) / max(len(sources), 1),
        frac_config_of_produced=sum(d.config_provided for d in produced) / max(len(produced), 1),
        frac_is_a_produced=sum(1 for d in produced if d.is_a) / max(len(produced), 1),
        frac_is_a_refines=sum(1 for d in produced if d.is_a and any(
            d.is_a in {p.datatype for p in o.inputs.values()} for o in ops
            if d.id in {p.datatype for p in o.outputs.values()})) / max(1, sum(1 for d in produced if d.is_a)),
        frac_is_a_source=sum(1 for d in sources if d.is_a) / max(len(sources), 1),
        levels=[fewest[d.id] for d in produced if d.id in fewest and fewest[d.id] > 0],
        min_levels=[fewest[d.id] for d in produced if d.id in fewest and fewest[d.id] > 0],
        frac_extra_input_source=extra_src / max(extra, 1),
        frac_reference_only=sum(1 for o in ops if all(
            knowledge.datatypes[p.datatype].config_provided for p in o.inputs.values() if not p.optional)) / len(ops),
        frac_same_domain=same / max(total, 1),
        motif_lengths=[len(m.operations) for m in knowledge.motifs.values()],
    )
    stats.nodes, stats.edges, stats.edge_kinds = graph_size(knowledge)
    return stats


def graph_size(knowledge: Knowledge) -> tuple[int, int, dict[str, int]]:
    """Nodes and typed edges of the capability graph, counted as the replaced system counted them."""
    edges: Counter = Counter()
    for o in knowledge.operations.values():
        edges["consumes"] += len(o.inputs)
        edges["produces"] += len(o.outputs)
        edges["requires"] += len(o.requires)
        edges["applies_to_assay"] += len(o.assays)
    edges["is_a"] = sum(1 for d in knowledge.datatypes.values() if d.is_a)
    for t in knowledge.tools.values():
        edges["implements"] += 1
        edges["tool_port"] += len(t.inputs) + len(t.outputs)
        edges["supports"] += len(t.supports) + len(t.requires)
    edges["motif_contains"] = sum(len(m.operations) for m in knowledge.motifs.values())
    nodes = (len(knowledge.datatypes) + len(knowledge.operations) + len(knowledge.tools)
             + len(knowledge.constraints) + len(knowledge.motifs))
    return nodes, sum(edges.values()), dict(edges)


def _mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def summary_of(s: RealStats) -> dict[str, float]:
    """The structural measurements compared between the real and the synthetic graphs."""
    def p(xs, v):
        return sum(1 for x in xs if x >= v) / max(len(xs), 1)

    return {
        "datatypes per operation": s.n_datatypes / s.n_operations,
        "tools per operation": _mean(s.tools_per_op),
        "required inputs per operation": _mean(s.req_arity),
        "outputs per operation": _mean(s.out_arity),
        "operations with one assay or more": p(s.assays_per_op, 1),
        "consumers per datatype (mean)": _mean(s.consumers_per_datatype),
        "datatypes read by >=3 operations": p(s.consumers_per_datatype, 3),
        "producers per datatype (mean)": _mean(s.producers_per_datatype),
        "datatypes with no producer": s.frac_source,
        "config-provided datatypes": (s.frac_config_of_sources * s.frac_source
                                      + s.frac_config_of_produced * (1 - s.frac_source)),
        "datatypes with an is_a parent": (s.frac_is_a_produced * (1 - s.frac_source)
                                          + s.frac_is_a_source * s.frac_source),
        "mean level of produced datatypes (fewest hops)": _mean(s.min_levels),
        "max level (fewest hops)": max(s.min_levels, default=0),
        "operations reading only references": s.frac_reference_only,
        "tools with a supports list": p(s.supports_per_tool, 1),
        "edges per node": s.edges / max(s.nodes, 1),
    }


# --------------------------------------------------------------------------- generating


class _Pools:
    """Datatypes grouped by (domain, level), each with cumulative popularity weights."""

    def __init__(self):
        self.items: dict[tuple, list[int]] = {}
        self.cum: dict[tuple, list[float]] = {}

    def add(self, key, item: int, weight: float) -> None:
        self.items.setdefault(key, []).append(item)
        cum = self.cum.setdefault(key, [])
        cum.append((cum[-1] if cum else 0.0) + weight)

    def pick(self, rng: random.Random, key) -> int | None:
        items = self.items.get(key)
        if not items:
            return None
        cum = self.cum[key]
        return items[bisect.bisect_right(cum, rng.random() * cum[-1])]


def ops_for_scale(stats: RealStats, scale: float, seed: int = 0) -> int:
    """Operations of the `scale`x graph. 1x is the smallest generated graph with at least the
    replaced system's tools, nodes and edges: sized from the real ratios, then corrected by
    the ratios measured on one generated graph (the structure is linear in the size)."""
    def needed(tools_per_op: float, nodes_per_op: float, edges_per_op: float) -> float:
        return max(TARGET_TOOLS / tools_per_op, TARGET_NODES / nodes_per_op, TARGET_EDGES / edges_per_op)

    estimate = int(math.ceil(needed(stats.n_tools / stats.n_operations, stats.nodes / stats.n_operations,
                                    stats.edges / stats.n_operations)))
    probe = generate(stats, estimate, seed=seed)
    nodes, edges, _ = graph_size(probe)
    n1 = int(math.ceil(needed(len(probe.tools) / estimate, nodes / estimate, edges / estimate)))
    while True:  # the generated graph itself must reach the sizes (it varies with the seed)
        g = generate(stats, n1, seed=seed)
        nodes, edges, _ = graph_size(g)
        if len(g.tools) >= TARGET_TOOLS and nodes >= TARGET_NODES and edges >= TARGET_EDGES:
            return int(math.ceil(n1 * scale))
        n1 = int(math.ceil(n1 * 1.005))


def generate(stats: RealStats, n_ops: int, seed: int = 0, name: str = "synthetic") -> Knowledge:
    rng = random.Random(seed)
    u = n_ops / stats.n_operations  # units of the real knowledge base
    n_dt = max(4, round(stats.n_datatypes * u))
    n_dom = max(1, round(stats.n_constraints.get("assay", 1) * u))
    frac_generic_ops = sum(1 for a in stats.assays_per_op if a == 0) / len(stats.assays_per_op)

    # constraints: organisms, assays (one per domain), two layouts, data constraints
    organisms = [f"organism_{i}" for i in range(max(1, round(stats.n_constraints.get("organism", 1) * u)))]
    assays = [f"assay_{i}" for i in range(n_dom)]
    layouts = ["single_end_reads", "paired_end_reads"]
    data_cons = [f"requires_fact_{i}" for i in range(max(1, round(stats.n_constraints.get("data", 1) * u)))]
    constraints = {}
    for kind, ids in (("organism", organisms), ("assay", assays), ("layout", layouts), ("data", data_cons)):
        for c in ids:
            constraints[c] = Constraint.model_construct(id=c, kind=kind, label=c, description=c)

    # datatypes: sources (level 0; some config-provided references) and produced ones with a level
    is_source = [rng.random() < stats.frac_source for _ in range(n_dt)]
    domain = [None if rng.random() < frac_generic_ops else rng.randrange(n_dom) for _ in range(n_dt)]
    level = [0 if s else rng.choice(stats.levels) for s in is_source]
    config = [rng.random() < (stats.frac_config_of_sources if s else stats.frac_config_of_produced) for s in is_source]
    popularity = [1.0 + rng.choice(stats.consumers_per_datatype) for _ in range(n_dt)]
    pools = _Pools()
    for j in range(n_dt):
        pools.add((domain[j], level[j], config[j]), j, popularity[j])
    produced = [j for j in range(n_dt) if not is_source[j]]
    by_level_produced: dict[tuple, list[int]] = {}
    for j in produced:
        by_level_produced.setdefault((domain[j], level[j]), []).append(j)

    def pick_input(dom, lvl: int, want_config: bool | None = None) -> int | None:
        """A datatype of level `lvl` of this domain (or a generic one)."""
        doms = [dom, None] if rng.random() < stats.frac_same_domain else [None, dom]
        for d in doms:
            for cfg in ([want_config] if want_config is not None else [False, True]):
                j = pools.pick(rng, (d, lvl, cfg))
                if j is not None:
                    return j
        return None

    def pick_earlier(dom, below: int) -> int | None:
        for _ in range(4):
            j = pick_input(dom, rng.randrange(0, max(below, 1)))
            if j is not None:
                return j
        return None

    # operations: one producer per produced datatype, the rest second producers
    outputs_of: list[list[int]] = [[j] for j in produced]
    while len(outputs_of) < n_ops:
        outputs_of.append([rng.choice(produced)])
    outputs_of = outputs_of[:n_ops]
    rng.shuffle(outputs_of)
    dt_ids = [f"dt_{j}" for j in range(n_dt)]
    parent: list[int | None] = [None] * n_dt
    ops: dict[str, Operation] = {}
    tools: dict[str, Tool] = {}
    port_cache: dict[str, Port] = {}
    tport = ToolPort.model_construct(format="tsv", path=None, directory=False, description="")
    software = Software.model_construct(conda=("bioconda::synthetic=1.0",), container="synthetic:1.0", version="1.0",
                                        version_command="true")
    resources = Resources()

    def port(d: int, optional: bool = False) -> Port:
        key = f"{d}:{optional}"
        if key not in port_cache:
            port_cache[key] = Port.model_construct(datatype=dt_ids[d], description="", optional=optional)
        return port_cache[key]

    op_main: dict[str, int] = {}
    level_one = sum(1 for outs in outputs_of if level[outs[0]] == 1) / max(len(outputs_of), 1)
    for n, outs in enumerate(outputs_of):
        out = outs[0]
        lvl, dom = level[out], domain[out]
        if rng.random() < (sum(1 for a in stats.out_arity if a > 1) / len(stats.out_arity)):
            sibling = by_level_produced.get((dom, lvl), [])
            if len(sibling) > 1:
                extra = rng.choice(sibling)
                if extra != out:
                    outs = [out, extra]
        op_id = f"op_{n}"
        k = rng.choice(stats.req_arity)
        # an indexer reads references only (genome -> genome index)
        indexer = lvl == 1 and rng.random() < stats.frac_reference_only / max(level_one, 1e-9)
        main = pick_input(dom, lvl - 1, indexer if lvl - 1 == 0 else None)
        if main is None:
            main = pick_earlier(dom, lvl)
        inputs: list[int] = [main] if main is not None else []
        for _ in range(k - 1):
            if indexer or rng.random() < stats.frac_extra_input_source:
                j = pick_input(dom, 0, True if indexer else None)
            else:
                j = pick_earlier(dom, lvl)
            if j is not None and j not in inputs and j not in outs:
                inputs.append(j)
        if not inputs:
            inputs = [pick_input(None, 0) or 0]
        optional = []
        for _ in range(rng.choice(stats.opt_arity)):
            j = pick_input(dom, 0, True)
            if j is not None and j not in inputs:
                optional.append(j)
        n_assays = rng.choice([a for a in stats.assays_per_op if a] or [1]) if dom is not None else 0
        op_assays = () if dom is None or n_assays == 0 else tuple(
            dict.fromkeys([assays[dom]] + [rng.choice(assays) for _ in range(n_assays - 1)]))
        requires = tuple(dict.fromkeys(rng.choice(data_cons) for _ in range(rng.choice(stats.requires_per_op))))
        ins = {f"in{i}": port(d) for i, d in enumerate(inputs)}
        ins.update({f"opt{i}": port(d, True) for i, d in enumerate(optional)})
        op = Operation.model_construct(
            id=op_id, label=op_id, description=op_id, edam=None, inputs=ins,
            outputs={f"out{i}": port(d) for i, d in enumerate(outs)}, requires=requires, assays=op_assays,
            cost=rng.choice(stats.costs), refine_inputs=True, aliases=_NO_ALIASES)
        ops[op_id] = op
        op_main[op_id] = inputs[0]
        # a refinement (trimmed reads of raw reads) is a subtype of what it refines; a member of
        # a family (significant genes of a DE table) is a subtype of a generic source (gene list)
        if parent[out] is None and not config[out] and rng.random() < stats.frac_is_a_produced * 1.2:
            if rng.random() < stats.frac_is_a_refines:
                up = inputs[0]
            else:
                up = pools.pick(rng, (dom, 0, False)) or pools.pick(rng, (None, 0, False))
            if up is not None and up != out and _depth(parent, up) < 2 and not _is_ancestor(parent, out, up):
                parent[out] = up
        for t in range(max(1, rng.choice(stats.tools_per_op))):
            tool_id = f"tool_{n}_{t}"
            s = rng.choice(stats.supports_per_tool)
            supports = ()
            if s:
                supports = tuple(dict.fromkeys(list(op_assays) + [rng.choice(assays) for _ in range(s)]))[:max(s, 1)]
            tools[tool_id] = Tool.model_construct(
                id=tool_id, name=tool_id, implements=op_id, description=tool_id, homepage="https://example.org",
                biotools=None, doi=None, citation="synthetic", software=software,
                inputs={p: tport for p in ins}, outputs={f"out{i}": tport for i in range(len(outs))},
                supports=supports, requires=(), resources=resources, params={}, quality=round(rng.random(), 2),
                templates={"snakemake": "snakemake/synthetic.smk.j2"}, scripts=(), runnable_offline=True,
                aliases=_NO_ALIASES)
    # sources may be subtypes of sources too (an Entrez gene list is a gene list)
    for j in range(n_dt):
        if is_source[j] and not config[j] and parent[j] is None and rng.random() < stats.frac_is_a_source:
            other = pools.pick(rng, (domain[j], 0, False))
            if other is not None and other != j and _depth(parent, other) < 2 and not _is_ancestor(parent, j, other):
                parent[j] = other
    scopes = ("sample", "cohort")
    datatypes = {
        dt_ids[j]: Datatype.model_construct(
            id=dt_ids[j], label=dt_ids[j], description=dt_ids[j], edam=None,
            scope="reference" if config[j] else scopes[j % 2], formats=("tsv",), config_provided=config[j],
            is_a=dt_ids[parent[j]] if parent[j] is not None else None, mates=False, sources=(), aliases=_NO_ALIASES)
        for j in range(n_dt)
    }
    # motifs: backward walks along main inputs
    producer_of: dict[int, list[str]] = {}
    for op_id, op in ops.items():
        for p in op.outputs.values():
            producer_of.setdefault(int(p.datatype[3:]), []).append(op_id)
    motifs = {}
    op_ids = list(ops)
    for m in range(max(1, round(stats.n_motifs * u))):
        walk = [rng.choice(op_ids)]
        for _ in range(rng.choice(stats.motif_lengths) - 1):
            prev = producer_of.get(op_main[walk[-1]])
            if not prev:
                break
            walk.append(rng.choice(prev))
        mid = f"motif.synthetic_{m}"
        motifs[mid] = Motif.model_construct(id=mid, label=mid, description=mid, operations=tuple(reversed(walk)),
                                            prior=round(0.3 + 0.6 * rng.random(), 2), assays=(), aliases=_NO_ALIASES)
    return Knowledge.model_construct(
        datatypes=datatypes, formats={}, operations=ops, constraints=constraints, tools=tools, motifs=motifs,
        lexicon=Lexicon(), content_hash=f"{name}-v{GENERATOR_VERSION}-ops{n_ops}-seed{seed}")


_NO_ALIASES = Operation.model_fields["aliases"].default


def _depth(parent: list, j: int) -> int:
    d = 0
    while parent[j] is not None and d < 10:
        j = parent[j]
        d += 1
    return d


def _is_ancestor(parent: list, a: int, b: int) -> bool:
    """True if `a` is `b` or an ancestor of `b` (so b is_a ... a would make a cycle when a is_a b)."""
    j: int | None = b
    for _ in range(12):
        if j is None:
            return False
        if j == a:
            return True
        j = parent[j]
    return False


# --------------------------------------------------------------------------- instances


@dataclass
class Instance:
    spec: TaskSpec
    hops: int  # operations on the longest chain of the planted pipeline
    anchors: int
    planted: tuple[str, ...]


def sample_instance(knowledge: Knowledge, rng: random.Random, hops: int, n_anchors: int,
                    tries: int = 400) -> Instance | None:
    """A request whose planted pipeline has `hops` operations on its longest chain."""
    from bioplan.planner.graph import _Context
    from bioplan.planner.index import planning_index

    index = planning_index(knowledge)
    cache = _instance_cache(knowledge)
    by_level = cache["by_level"]
    candidates = by_level.get(hops, []) + [d for lvl, ds in by_level.items() if lvl > hops for d in ds]
    if not candidates:
        return None
    assays = cache["assays"]
    organisms = cache["organisms"]
    data_cons = cache["data"]
    for _ in range(tries):
        target = rng.choice(candidates)
        prods = [p for p in index.producers.get(target, ()) if not p.startswith("provide:")]
        if not prods:
            continue
        first = knowledge.operations[rng.choice(prods)]
        assay = first.assays[0] if first.assays else (rng.choice(assays) if rng.random() < 0.5 else None)
        organism = rng.choice(organisms)
        layout = rng.choice(["single_end_reads", "paired_end_reads"])
        ids = tuple(c for c in (assay, organism, layout) if c)
        base = TaskSpec(query="synthetic", input_types=("dt_0",), target_output=TargetOutput(semantic_type=target),
                        constraints={k: v for k, v in (("assay", assay), ("organism", organism), ("layout", layout))
                                     if v},
                        constraint_ids=ids, max_hops=8)
        ctx = _Context(knowledge, base, index)
        ops: list[str] = []
        inputs: list[str] = []
        ok = _plant(knowledge, index, ctx, rng, target, hops, ops, inputs, set(), main=True)
        if not ok or not ops:
            continue
        needed = {c for o in ops for c in knowledge.operations[o].requires}
        facts = {c: (c in needed or rng.random() > 0.2) for c in rng.sample(data_cons, min(3, len(data_cons)))}
        anchors = tuple(rng.sample(ops, min(n_anchors, len(ops))))
        spec = base.model_copy(update={"input_types": tuple(dict.fromkeys(inputs)), "required_operations": anchors,
                                       "data_facts": facts})
        return Instance(spec, hops, len(anchors), tuple(ops))
    return None


def _instance_cache(knowledge: Knowledge) -> dict:
    key = knowledge.content_hash
    if key not in _CACHE:
        level = _main_depth(knowledge)
        by_level: dict[int, list[str]] = {}
        for d, lvl in level.items():
            if lvl > 0:
                by_level.setdefault(lvl, []).append(d)
        for v in by_level.values():
            v.sort()
        _CACHE[key] = {
            "by_level": by_level,
            "assays": sorted(c for c, v in knowledge.constraints.items() if v.kind == "assay"),
            "organisms": sorted(c for c, v in knowledge.constraints.items() if v.kind == "organism"),
            "data": sorted(c for c, v in knowledge.constraints.items() if v.kind == "data"),
        }
    return _CACHE[key]


_CACHE: dict[str, dict] = {}


def _main_depth(knowledge: Knowledge) -> dict[str, int]:
    """Longest chain of producers along main (first required) inputs: the depth a planted
    pipeline can reach from each datatype (generated graphs are DAGs along main inputs)."""
    import sys

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    from bioplan.planner.index import planning_index

    index = planning_index(knowledge)
    producers = {f: [p for p in ps if not p.startswith("provide:")] for f, ps in index.producers.items()}
    main_input: dict[str, str] = {}
    for op_id, op in knowledge.operations.items():
        req = [p.datatype for p in op.inputs.values() if not p.optional]
        main_input[op_id] = req[0] if req else ""
    memo: dict[str, int] = {}
    active: set[str] = set()

    def depth(d: str) -> int:
        if d in memo:
            return memo[d]
        if d in active or not d:
            return 0
        active.add(d)
        best = max((1 + depth(main_input[o]) for o in producers.get(d, ())), default=0)
        active.discard(d)
        memo[d] = best
        return best

    return {d: depth(d) for d in knowledge.datatypes}


def _plant(knowledge, index, ctx, rng, dt: str, budget: int, ops: list, inputs: list, seen: set, main: bool) -> bool:
    """Realise `dt` with a chain of exactly `budget` operations along main inputs."""
    info = knowledge.datatypes[dt]
    producers = [p for p in index.producers.get(dt, ()) if not p.startswith("provide:")]
    if budget == 0 or not producers:
        if main and budget > 0:
            return False
        if not info.config_provided:
            inputs.append(dt)
        return True
    if dt in seen:
        return False
    seen.add(dt)
    rng.shuffle(producers)
    for op_id in producers[:4]:
        if ctx.verdict(op_id)[0] is not None or op_id in ops:
            continue
        op = knowledge.operations[op_id]
        req = [p.datatype for p in op.inputs.values() if not p.optional]
        mark_ops, mark_inputs = len(ops), len(inputs)
        ops.append(op_id)
        ok = _plant(knowledge, index, ctx, rng, req[0], budget - 1, ops, inputs, seen, main)
        for other in req[1:]:
            if not ok:
                break
            sub = rng.randrange(0, budget) if rng.random() < 0.5 else 0
            ok = _plant(knowledge, index, ctx, rng, other, sub, ops, inputs, seen, False)
        if ok:
            return True
        del ops[mark_ops:]
        del inputs[mark_inputs:]
    seen.discard(dt)
    return False


def chain_depth(problem, actions: tuple[str, ...]) -> int:
    """Operations on the longest dependency chain of a raw plan (config actions do not count)."""
    depth_of: dict[str, int] = {f: 0 for f in problem.initial}
    longest = 0
    for a in actions:
        act = problem.actions[a]
        d = (0 if act.operation is None else 1) + max((depth_of.get(p, 0) for p in act.pre), default=0)
        for f in act.add:
            if f not in depth_of:
                depth_of[f] = d
        longest = max(longest, d)
    return longest


def instances(knowledge: Knowledge, seed: int, hops_range=range(2, 9), anchors_range=range(0, 4),
              per_cell: int = 1) -> list[Instance]:
    rng = random.Random(seed)
    out = []
    for hops, n_anchors, _ in itertools.product(hops_range, anchors_range, range(per_cell)):
        inst = sample_instance(knowledge, rng, hops, n_anchors)
        if inst is not None:
            out.append(inst)
    return out
