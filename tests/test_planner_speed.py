"""What makes the planner fast, checked for correctness: the planning index, the region the
search reads, and the LM-cut heuristic.

- The index is cached on disk under the knowledge's content hash (an ontology edit gives a new
  hash, so it invalidates the knowledge cache and the index together) and read back.
- Reading only the inputs' forward region (plus what references alone make) gives exactly the
  Problem that relevance pruning of the whole context-pruned graph gives, on random requests.
- LM-cut never overestimates the optimal cost (exhaustive search) and is never below h_max.
"""

from __future__ import annotations

import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.models import TargetOutput, TaskSpec
from bioplan.planner import index as index_module
from bioplan.planner.graph import (
    CONFIG_COST,
    Action,
    Problem,
    ProblemBuilder,
    _Context,
    _forward_closure,
    closure,
    relevant_only,
)
from bioplan.planner.index import build_index, planning_index
from bioplan.planner.search import _Compiled
from conftest import examples
from test_planner_properties import brute_force_cost, problems


def test_index_is_cached_under_the_content_hash(knowledge, tmp_path, monkeypatch):
    monkeypatch.setenv("BIOPLAN_CACHE_DIR", str(tmp_path))
    index_module._MEMO.pop(knowledge.content_hash, None)
    first = planning_index(knowledge)
    files = list((tmp_path / "bioplan").glob("index-*.pickle"))
    assert len(files) == 1 and files[0].name == f"index-{index_module.cache_key(knowledge.content_hash)[:32]}.pickle"
    index_module._MEMO.pop(knowledge.content_hash, None)
    again = planning_index(knowledge)
    assert again == first and again is not first  # read back from disk
    with files[0].open("rb") as fh:
        assert pickle.load(fh).content_hash == knowledge.content_hash
    # another content (an edited ontology) has another key: the old file is not used
    edited = knowledge.model_copy(update={"content_hash": "f" * 64})
    planning_index(edited)
    assert len(list((tmp_path / "bioplan").glob("index-*.pickle"))) == 2
    index_module._MEMO.pop("f" * 64, None)


def test_index_producers_include_subtypes_and_references(knowledge):
    idx = build_index(knowledge)
    # trimming makes trimmed reads, which are raw reads too
    assert "read_trimming" in idx.producers["raw_reads"]
    assert "provide:reference_genome" in idx.producers["reference_genome"]
    assert "genome_indexing" in idx.base_ops and "genome_index" in idx.base_facts
    for op_id, e in idx.ops.items():
        for f in e.pre:
            assert op_id in idx.consumers[f]


def whole_graph_problem(knowledge, spec) -> Problem:
    """Every operation the context allows (the pre-index build), relevance-pruned."""
    ctx = _Context(knowledge, spec)
    idx = ctx.index
    initial = closure(knowledge, spec.input_types)
    ops = [o for o in idx.ops if ctx.verdict(o)[0] is None]
    derivable = _forward_closure(initial, [(idx.ops[o].pre, idx.ops[o].add) for o in ops])
    actions = {o: Action(o, idx.ops[o].cost, idx.ops[o].pre, idx.ops[o].add, o) for o in sorted(ops)}
    for dt in sorted(idx.config):
        if dt not in initial and dt not in derivable:
            actions[f"provide:{dt}"] = Action(f"provide:{dt}", CONFIG_COST, frozenset(), idx.config[dt], None)
    return relevant_only(Problem(initial, spec.target_output.semantic_type, tuple(spec.required_operations),
                                 actions, spec.max_hops))


ASSAYS = [None, "bulk_rna_seq", "single_cell_rna_seq", "whole_genome_sequencing", "shotgun_metagenomics", "chip_seq"]


def test_region_gives_the_whole_graph_problem(knowledge):
    datatypes = sorted(d for d, v in knowledge.datatypes.items() if not v.config_provided)
    data = sorted(c for c, v in knowledge.constraints.items() if v.kind == "data")

    @settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.sampled_from(datatypes), min_size=1, max_size=3, unique=True),
           st.sampled_from(sorted(knowledge.datatypes)),
           st.lists(st.sampled_from(sorted(knowledge.operations)), max_size=2, unique=True),
           st.sampled_from(ASSAYS), st.dictionaries(st.sampled_from(data), st.booleans(), max_size=2),
           st.sets(st.sampled_from(sorted(knowledge.operations)), max_size=2))
    def check(inputs, target, anchors, assay, facts, forbidden):
        spec = TaskSpec(query="region", input_types=tuple(inputs), target_output=TargetOutput(semantic_type=target),
                        constraints={"assay": assay} if assay else {}, constraint_ids=(assay,) if assay else (),
                        required_operations=tuple(anchors), data_facts=facts)
        builder = ProblemBuilder(knowledge, spec)
        got = builder.problem()
        want = whole_graph_problem(knowledge, spec)
        assert list(got.actions) == list(want.actions)
        assert got.actions == want.actions and got.initial == want.initial
        # what the context pruned is reported with its reason
        assert all(p.reason for p in got.pruned)
        # alternatives (a forbidden operation) reuse the region: the same as a fresh build
        alt = builder.problem(forbidden=frozenset(forbidden))
        fresh = ProblemBuilder(knowledge, spec).problem(forbidden=frozenset(forbidden))
        assert alt.actions == fresh.actions

    check()


@settings(max_examples=examples(300), deadline=None)
@given(problems())
def test_lmcut_is_admissible_and_dominates_hmax(problem):
    if any(a not in problem.actions for a in problem.anchors):
        return
    c = _Compiled(problem)
    best = brute_force_cost(problem)
    lm, hmax = c.lmcut(c.initial, 0), c.h(c.initial, 0)
    if best is None:  # delete-free: no plan means the goals are not even relaxed-reachable
        assert hmax == lm == float("inf")
        return
    assert hmax <= lm + 1e-9
    assert lm <= best + 1e-9
