"""Honesty passes: refuse what bioplan would otherwise plan differently from the request, unless
the user opted in (`--allow-partial`, `--substitute`); an opt-in becomes a deviation the spec,
the plan report and the emitted README carry.

Order (in `SPEC_PASSES`): alternatives offered, analyses bioplan does not do
(unsupported_analysis), tools it lacks (unknown_tool), instructions it did not understand
(partially_understood), settings (set on the tools that take them, else a warning "not honoured: ...").
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from bioplan.errors import PartiallyUnderstoodError, UnknownToolError, UnsupportedAnalysisError
from bioplan.knowledge.models import AbsentTool, Knowledge, RequestSetting, SettingParam
from bioplan.knowledge.queries import is_subtype
from bioplan.models import AbsentTerm, Plan, Request, RequestedSetting, TaskSpec
from bioplan.request.parse import suggestions
from bioplan.request.passes.contrast import read_contrast
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.readings import quoted

_KNOWN_ROLES = frozenset({"operation", "tool", "datatype", "format", "motif"})
_ADD_TOOL = ("write ontology/tools/{id}.yaml (implements: {op}) and templates/snakemake/{id}.smk.j2 "
             "(and a Nextflow module), then run `bioplan check-knowledge`; see ontology/README.md")
_ALLOW_PARTIAL = ("pass --allow-partial (the plan and the emitted README will say what was left out)")


def _absent_tools(knowledge: Knowledge) -> dict[str, AbsentTool]:
    return {t.id: t for t in knowledge.lexicon.absent_tools}


def _named(request: Request) -> list[AbsentTerm]:
    """Absent tools and analyses the request asks for (not negated, not offered as an alternative)."""
    return [a for a in request.absent if not a.negated and not a.alternative_to]


def asked_analyses(knowledge: Knowledge, request: Request) -> dict[str, list[str]]:
    """Analysis families bioplan does not do that the request asks for, with the words asking: named
    directly, or through a tool of that family (unless the tool also does steps bioplan has and no
    family of it is named)."""
    tools = _absent_tools(knowledge)
    named = _named(request)
    asked: dict[str, list[str]] = {}
    for a in named:
        if a.kind == "analysis":
            asked.setdefault(a.id, []).append(a.text)
    for a in named:
        tool = tools[a.id] if a.kind == "tool" else None
        if tool and tool.analyses and (not tool.operations or any(f in asked for f in tool.analyses)):
            for f in tool.analyses:
                # the words the request used ('mothur'), not the entry's first tool (VSEARCH)
                asked.setdefault(f, []).append(_absent_name(a.text, tool.name))
    return asked


def note_offered_alternatives(draft: SpecDraft) -> SpecDraft:
    """A tool bioplan lacks offered as an alternative to one it has ("STAR or HISAT2"): bioplan's runs; a
    tool it has offered after another: the first named runs."""
    tools, known = _absent_tools(draft.knowledge), draft.knowledge.tools
    draft = draft.deviate(*(f"'{a.text}' ({tools[a.id].name}) was offered as an alternative: bioplan runs "
                            f"{known[a.alternative_to].name}"
                            for a in draft.request.absent if a.alternative_to and not a.negated))
    # a tool bioplan has, offered after another for the same kind of step ("DADA2; alternatives are Kraken2")
    draft = draft.deviate(*(f"'{m.text}' ({known[m.id].name}) was offered as an alternative: bioplan runs "
                            f"{known[m.offered_beside].name}, named first"
                            for m in draft.request.matches if m.kind == "tool" and m.offered_beside))
    # a step offered as another route for the same data ("alignment or pseudoalignment")
    ops = draft.knowledge.operations
    return draft.deviate(*(f"'{m.text}' ({ops[m.id].label}) was offered as an alternative route: bioplan runs "
                           f"'{m.offered_beside}', named first"
                           for m in draft.request.matches if m.kind == "operation" and m.offered_beside))


def refuse_unsupported_analyses(draft: SpecDraft) -> SpecDraft:
    """unsupported_analysis: an analysis family bioplan does not do; with --allow-partial (and something
    else to plan) a deviation."""
    knowledge = draft.knowledge
    asked = asked_analyses(knowledge, draft.request)
    if not asked:
        return draft
    tools, families = _absent_tools(knowledge), {f.id: f for f in knowledge.lexicon.unsupported_analyses}
    rest = bool(draft.anchors) or any(a.kind == "tool" and tools[a.id].operations and not tools[a.id].analyses
                                      for a in _named(draft.request))
    if not (draft.allow_partial and rest):
        hints = [families[f].instead for f in asked]
        if rest:
            hints.append("to plan only the rest of the request, " + _ALLOW_PARTIAL)
        hints.append("to add the analysis: define its operations in ontology/operations.yaml and a tool in "
                     "ontology/tools/ (see ontology/README.md)")
        raise UnsupportedAnalysisError(
            "bioplan does not do " + "; ".join(f"{families[f].label} ({quoted(t)})" for f, t in asked.items())
            + " yet", hints, {"analyses": {f: list(dict.fromkeys(t)) for f, t in asked.items()}})
    return draft.deviate(*(f"not done: {families[f].label} ({quoted(texts)}): bioplan does not do it yet; "
                           f"{families[f].instead} (--allow-partial)" for f, texts in asked.items()))


def _absent_name(text: str, name: str) -> str:
    """The absent tool as the refusal names it: the entry's name when the request's words are that
    name (MetaPhlAn for 'metaphlan4'), else the request's own words: an entry gathers several tools
    of one kind (Kaiju and Centrifuge beside MetaPhlAn), and Kaiju is not MetaPhlAn."""
    def key(s: str) -> str:
        return "".join(ch for ch in s.lower() if ch.isalnum())

    said, known = key(text), key(name)
    return name if said and known and (said in known or known in said) else text


def _absent_phrase(text: str, name: str) -> str:
    shown = _absent_name(text, name)
    return f"'{text}' names {shown}, which" if shown == name else f"'{text}' is a tool that"


def _unknown_tool_error(knowledge: Knowledge, missing: list[AbsentTerm]) -> UnknownToolError:
    tools = _absent_tools(knowledge)
    lines, hints, details = [], [], {}
    for a in missing:
        tool = tools[a.id]
        have = sorted({t.name for o in tool.operations for t in knowledge.tools_for(o)})
        lines.append(f"{_absent_phrase(a.text, tool.name)} bioplan does not have; it does "
                     + " / ".join(knowledge.operations[o].label.lower() for o in tool.operations)
                     + (", which bioplan runs with " + ", ".join(have) if have else ""))
        hints.append(f"to add {_absent_name(a.text, tool.name)}: "
                     + _ADD_TOOL.format(id=tool.id, op=tool.operations[0]))
        details[a.id] = {"text": a.text, "operations": list(tool.operations), "bioplan_tools": have}
    hints.insert(0, "to run bioplan's own tool instead, pass --substitute (compile's output, the plan "
                    "report and the emitted README will say so)")
    return UnknownToolError("; ".join(lines), hints, {"tools": details})


def refuse_absent_tools(draft: SpecDraft) -> SpecDraft:
    """unknown_tool: a tool bioplan lacks. Its successor runs when bioplan has it (Picard for GATK
    MarkDuplicates); else --substitute runs bioplan's own tool for its step (added as an anchor), else
    refused."""
    knowledge = draft.knowledge
    tools, asked = _absent_tools(knowledge), asked_analyses(knowledge, draft.request)
    named_tools = list({a.id: a for a in _named(draft.request) if a.kind == "tool"}.values())
    successors = [a for a in named_tools if tools[a.id].successor in knowledge.tools]
    draft = replace(draft, successors=draft.successors + tuple(str(tools[a.id].successor) for a in successors))
    draft = draft.deviate(*(f"'{a.text}' names {tools[a.id].name}; its successor "
                            f"{knowledge.tools[str(tools[a.id].successor)].name} (same method) runs instead"
                            for a in successors))
    missing = [a for a in named_tools if tools[a.id].operations and tools[a.id].successor not in knowledge.tools
               and not any(f in asked for f in tools[a.id].analyses)]
    if missing and not draft.substitute:
        raise _unknown_tool_error(knowledge, missing)
    for a in missing:
        tool = tools[a.id]
        if not any(o in draft.anchors for o in tool.operations):
            draft = draft.with_anchors(tool.operations[0])
        ops = [o for o in tool.operations if o in draft.anchors] or [tool.operations[0]]
        draft = draft.deviate(f"substituted: {_absent_phrase(a.text, tool.name)} bioplan does not have; "
                              + " / ".join(knowledge.operations[o].label.lower() for o in ops)
                              + " runs with bioplan's own tool instead (--substitute)")
    return draft


def refuse_not_understood(draft: SpecDraft) -> SpecDraft:
    """partially_understood: instruction words nothing understood, beside words that were; with
    --allow-partial a deviation."""
    request = draft.request
    understood = any(sp.role in _KNOWN_ROLES for sp in request.spans)
    if not (request.unmatched_clauses and understood):
        return draft
    clauses = [" ".join(words) for words in request.unmatched_clauses]
    if not draft.allow_partial:
        near = suggestions(tuple(w for words in request.unmatched_clauses for w in words), draft.knowledge)
        hints = (["did you mean " + ", ".join(repr(n) for n in near) + "?"] if near else []) + [
            "rephrase the instruction with the name of an analysis (e.g. \"differential expression\", "
            "\"call variants\", \"cluster cells\")",
            "to plan only the understood part, " + _ALLOW_PARTIAL]
        raise PartiallyUnderstoodError(
            "part of the request was not understood: " + quoted(clauses)
            + "; planning the rest would drop it", hints, {"unrecognized": clauses})
    return draft.deviate(*(f"not understood, left out: '{c}' (--allow-partial)" for c in clauses))



def read_settings(draft: SpecDraft) -> SpecDraft:
    """A setting the request gives (lexicon `settings`: a threshold, strandedness, a tool parameter, a tool
    version) is set on the tools that take it (`TaskSpec.settings`, checked against the bound plan by
    `settings_after_binding`); one no tool of the knowledge takes, or whose value is out of range, is said
    as not honoured, with what runs instead."""
    knowledge = draft.knowledge
    entries = {s.id: s for s in knowledge.lexicon.settings}
    taken: list[RequestedSetting] = []
    stated: dict[str, list[str]] = {}
    notes: list[str] = []
    for a in draft.request.absent:
        if a.kind != "setting" or a.negated:
            continue
        if entries[a.id].levels is not None:  # a contrast: the levels it names, against the sample sheet's
            levels, said = read_contrast(draft, a, entries[a.id])
            first = next((s for s in taken if s.id == a.id), None)
            if levels and first:  # one contrast per differential step: the first named is set
                said = [f"not honoured: {entries[a.id].label} ('{a.text}'): the differential step compares one "
                        f"pair of levels, set from '{first.text}'; compile again with this contrast for it"]
            taken += [RequestedSetting(id=a.id, text=a.text, params=levels)] if levels and not first else []
            notes += said
            continue
        params: dict[str, dict[str, float | int | str]] = {}
        for sp in entries[a.id].sets:
            for tool in sp.tools:
                value = setting_value(a.text, sp, knowledge.tools[tool].params.get(sp.param))
                if value is not None:
                    params.setdefault(tool, {})[sp.param] = value
        if params or entries[a.id].honoured_by:
            taken.append(RequestedSetting(id=a.id, text=a.text, params=params))
        else:
            stated.setdefault(a.id, []).append(a.text)
    draft = replace(draft, settings=draft.settings + tuple(taken))
    return draft.warn(*notes, *(not_honoured(entries[i], texts) for i, texts in stated.items()))


def not_honoured(entry: RequestSetting, texts: list[str]) -> str:
    return f"not honoured: {entry.label} ({quoted(texts)}): {entry.instead}"


# the numbers of a setting's words: "0.01", "5%", "1e 5" (the normalised "1e-5"); not the 2 of "log2"
_NUMBER = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?|\.\d+)(?:e ?-? ?(\d+))?( ?%)?(?![a-z0-9])")


def setting_value(text: str, sp: SettingParam, default: object) -> float | int | str | None:
    """The value `sp` takes from the setting's words `text` (the last number, read on its scale), as the
    type of the param's default; None when the words hold none, or one out of range."""
    if sp.value is not None:
        return sp.value
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return None
    m = numbers[-1]
    value = float(m.group(1)) * (10.0 ** -int(m.group(2)) if m.group(2) else 1.0)
    if sp.scale == "fraction" and m.group(3):
        value /= 100
    if sp.scale == "log2" and "log" not in text:
        value = math.log2(value) if value > 0 else -1.0
    if (sp.minimum is not None and value < sp.minimum) or (sp.maximum is not None and value > sp.maximum):
        return None
    if isinstance(default, int) and not isinstance(default, bool):
        return int(value) if value.is_integer() else None
    return round(value, 6)


def settings_after_binding(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> TaskSpec:
    """Each setting the request gives, against the bound plan: the tools that take it say so ("'fdr 0.01'
    sets DESeq2 alpha 0.01"); one no planned tool takes is not honoured, said with what runs instead."""
    entries = {s.id: s for s in knowledge.lexicon.settings}
    planned = [t for t in dict.fromkeys(s.tool for s in plan.steps) if t in knowledge.tools]
    notes = _format_not_written(knowledge, spec, plan)
    said: dict[tuple[str, str], list[str]] = {}  # one note per setting and outcome, with all its words
    for s in spec.settings:
        set_on = [f"{knowledge.tools[t].name} {p} {v}" for t in planned for p, v in s.params.get(t, {}).items()]
        set_on += [f"{knowledge.tools[t].name} does it{_chosen_for(knowledge, spec, entries[s.id], t)}"
                   for t in planned if t in entries[s.id].honoured_by]
        said.setdefault((s.id, ", ".join(set_on)), []).append(s.text)
    for (i, taken), texts in said.items():
        notes.append(f"set from the request: {entries[i].label} ({quoted(texts)}): {taken}" if taken
                     else not_honoured(entries[i], texts))
        notes += _not_taken_beside(knowledge, entries[i], texts, planned) if taken else []
    return spec.model_copy(update={"warnings": spec.warnings + tuple(notes)}) if notes else spec


def _chosen_for(knowledge: Knowledge, spec: TaskSpec, entry: RequestSetting, tool: str) -> str:
    """Why a tool the user did not name runs its step: a setting with an `unlike` ranks the tools that honour
    it first (planner/bind.py), over a better-ranked tool of the step that does not ("TMM": edgeR, not DESeq2)."""
    if entry.unlike is None or tool in spec.preferred_tools:
        return ""
    step = knowledge.tools[tool].implements
    takers = {t for sp in entry.sets for t in sp.tools} | set(entry.honoured_by)
    over = [t for t in knowledge.tools.values() if t.implements == step and t.id not in takers
            and t.quality > knowledge.tools[tool].quality]
    if not over:
        return ""
    best = max(over, key=lambda t: t.quality).name
    return (f" (chosen for the {knowledge.operations[step].label.lower()} for it, over {best}, bioplan's default "
            f"there, which does not honour it)")


def _not_taken_beside(knowledge: Knowledge, entry: RequestSetting, texts: list[str], planned: list[str]) -> list[str]:
    """A setting one planned tool takes, beside a planned tool of a step another tool takes it for, which does
    not ("normalise with TMM and run DESeq2": edgeR's TMM log-CPM is normalised by TMM, DESeq2's test by its own
    size factors): said, with the entry's `unlike`, never left to look honoured for both."""
    takers = {t for sp in entry.sets for t in sp.tools} | set(entry.honoured_by)
    steps = {knowledge.tools[t].implements for t in takers}
    ops = knowledge.operations
    return [f"not honoured by {knowledge.tools[t].name} ({ops[knowledge.tools[t].implements].label.lower()}): "
            f"{entry.label} ({quoted(texts)}): {entry.unlike or knowledge.tools[t].name + ' does not take it'}"
            for t in planned if t not in takers and knowledge.tools[t].implements in steps]


def _format_not_written(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> list[str]:
    """The file format the request asks the result in ("as Excel") when no step making the result writes
    it (no conversion step of the knowledge writes it from that data): said, with the formats written."""
    fmt, target = spec.target_output.format, spec.target_output.semantic_type
    makers = [s for s in plan.steps if s.tool in knowledge.tools and any(
        d == target or is_subtype(knowledge, d, target) or is_subtype(knowledge, target, d)  # csv_export: result_table
        for d in s.outputs.values())]
    if not fmt or not makers:
        return []
    written = [p.format for s in makers for p in knowledge.tools[str(s.tool)].outputs.values()]
    if any(fmt in f.split("|") for f in written):
        return []
    label = knowledge.formats[fmt].label if fmt in knowledge.formats else fmt
    shown = ", ".join(dict.fromkeys(f for w in written for f in w.split("|")))
    return [f"not honoured: the output format {label} ('{fmt}'): no tool of the plan writes "
            f"{knowledge.datatypes[target].label.lower()} in it; the result is written as {shown}"]
