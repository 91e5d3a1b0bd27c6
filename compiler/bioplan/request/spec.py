"""Spec stage: Request + InputProfile -> TaskSpec.

Decides input datatypes, the target, constraints in force, required operations (anchors) and the
workflow type, as a chain of small passes over a `SpecDraft` (`request/passes/`), run in the one
order `SPEC_PASSES` lists. Where the request and the files disagree (organism, assay, layout) a
pass raises an error that names both sides; it never picks one silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from bioplan.knowledge.models import Knowledge
from bioplan.models import (
    DEFAULT_MAX_HOPS,
    InputProfile,
    Match,
    Request,
    SniffedFile,
    SpecInput,
    TargetOutput,
    TaskSpec,
)
from bioplan.request.passes import anchors, context, honesty, individuals, parts, readings, target, tools, unknown_names
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import workflow_type

SpecPass = Callable[[SpecDraft], SpecDraft]

# The order is part of the behaviour: readings first (what the words mean here), then what bioplan
# lacks (honesty: analyses, tools, instructions), the study's context, the named tools, the anchors
# settled against the inputs, the inputs and the target, and the checks that need all of them.
SPEC_PASSES: tuple[SpecPass, ...] = (
    parts.read_repeated_parts,
    readings.reparse_in_input_context,
    readings.resolve_readings,
    readings.drop_descriptions,
    honesty.note_offered_alternatives,
    honesty.refuse_unsupported_analyses,
    honesty.refuse_absent_tools,
    unknown_names.refuse_unknown_names,
    honesty.refuse_not_understood,
    honesty.read_settings,
    context.settle_organism,
    context.settle_genome_build,
    tools.bind_named_tools,
    anchors.drop_done,
    anchors.drop_superseded,
    anchors.drop_conversion_of_planned_alignments,
    anchors.add_optional_input_readers,
    context.settle_assay,
    tools.refuse_tools_outside_the_assay,
    context.settle_layout,
    context.settle_library,
    context.read_data_facts,
    target.use_existing_clustering,
    target.choose_target,
    target.add_output_conversion,
    target.inputs_without_files,
    target.require_target,
    anchors.convert_gene_namespaces,
    anchors.add_implied_constraints,
    target.refuse_repeated_cohort_inputs,
    individuals.pair_tumours_with_normals,
)


def run_passes(draft: SpecDraft, passes: tuple[SpecPass, ...] = SPEC_PASSES) -> SpecDraft:
    for spec_pass in passes:
        draft = spec_pass(draft)
    return draft


def _lanes(files: Sequence[SniffedFile]) -> list[str | None]:
    """Each file's lane when it is one of a sample's several lanes (cohort._number_lanes), else None. The
    files per (datatype, sample, mate) are counted once (counting them again per file was quadratic: a
    folder of 3,000 quantifier runs spent 20 s here)."""
    per_read = Counter((g.datatype, g.sample, g.mate) for g in files)
    return [str(f.fact("lane")) if f.sample is not None and per_read[(f.datatype, f.sample, f.mate)] > 1
            and f.fact("lane") else None for f in files]


def task_spec(draft: SpecDraft) -> TaskSpec:
    """The stage's boundary model from the last draft (`require_target` has made sure of a target)."""
    assert draft.target is not None, "require_target runs before the TaskSpec is built"
    files = draft.files
    return TaskSpec(
        query=draft.request.query,
        input_types=draft.input_types,
        inputs=tuple(SpecInput(path=f.path, datatype=f.datatype, format=f.format, evidence=f.evidence,
                               sample=f.sample, mate=f.mate, lane=lane) for f, lane in zip(files, _lanes(files))),
        target_output=TargetOutput(semantic_type=draft.target, format=draft.request.output_format),
        constraints=dict(draft.constraints),
        constraint_ids=draft.constraint_ids,
        required_operations=draft.anchors,
        preferred_tools=draft.preferred,
        excluded_tools=draft.request.excluded_tools,
        excluded_operations=refused_operations(draft.request, draft.anchors),
        workflow_type=workflow_type(draft.knowledge, draft.anchors) if draft.anchors else "linear",
        data_facts=dict(draft.data_facts),
        gene_namespace=draft.gene_namespace,
        gene_set_namespace=draft.gene_set_namespace,
        # only a sample sheet carries the fact
        condition_column=next((f.fact("condition_column") for f in files if f.fact("condition_column")), None),
        cluster_column=draft.cluster_column,
        patients=draft.patients,
        warnings=tuple(dict.fromkeys(draft.warnings)),
        evidence=tuple(_as_read(m, draft.anchors) for m in draft.request.matches),
        max_hops=draft.max_hops,
        unrecognized=draft.request.unrecognized,
        deviations=draft.deviations,
        settings=draft.settings,
    )


def refused_operations(request: Request, anchors: tuple[str, ...]) -> tuple[str, ...]:
    """Operations a negated word names ("without marking duplicates", "no dedup"), each of its
    readings (dedup: duplicate marking or bisulfite deduplication), unless the request also asks
    for it: the planner never adds them, however typical of the analysis."""
    negated = [m for m in request.matches if m.kind == "operation" and m.negated]
    refused = (op for m in negated for op in (m.id, *m.alternatives))
    return tuple(dict.fromkeys(op for op in refused if op not in anchors))


def _as_read(match: Match, anchors: tuple[str, ...]) -> Match:
    """An operation match as the readings resolved it: words several operations share ("alignment":
    read or bisulfite alignment) name in the evidence the one that was planned, the others stay
    alternatives."""
    if match.kind != "operation" or match.id in anchors:
        return match
    chosen = next((a for a in match.alternatives if a in anchors), None)
    if chosen is None:
        return match
    others = tuple(x for x in (match.id, *match.alternatives) if x != chosen)
    return match.model_copy(update={"id": chosen, "alternatives": others})


def build_spec(request: Request, profile: InputProfile, knowledge: Knowledge, max_hops: int = DEFAULT_MAX_HOPS,
               substitute: bool = False, allow_partial: bool = False) -> TaskSpec:
    """`substitute`: plan a tool the request names but bioplan lacks with bioplan's own tool;
    `allow_partial`: plan what was understood when an analysis or instruction was not. Both
    opt-ins are recorded in `TaskSpec.deviations`."""
    draft = SpecDraft(knowledge=knowledge, request=request, files=profile.files, substitute=substitute,
                      allow_partial=allow_partial, max_hops=max_hops, warnings=profile.warnings)
    return task_spec(run_passes(draft))
