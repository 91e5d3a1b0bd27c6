"""Passes that settle the study's context from the request and the inputs: organism, genome build,
assay, library layout, and the data facts the files show. Where the request and the files disagree
the pass raises an error naming both sides; it never picks one silently."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bioplan.errors import AmbiguousInputError, ConstraintViolationError
from bioplan.knowledge.models import FactTest, Knowledge
from bioplan.models import Request, SniffedFile
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.readings import assay_of_files


def single(kind: str, values: list[str], where: str) -> str | None:
    """The one value named, None for none; more than one is an AmbiguousInputError."""
    values = list(dict.fromkeys(values))
    if len(values) > 1:
        raise AmbiguousInputError(
            f"the {where} names more than one {kind}: {', '.join(values)}",
            [f"name one {kind}; bioplan plans one study at a time"],
            {kind: values},
        )
    return values[0] if values else None


def _requested(knowledge: Knowledge, request: Request, kind: str) -> list[str]:
    return [c for c in request.constraints if knowledge.constraints[c].kind == kind]


def _value(knowledge: Knowledge, constraint_id: str) -> str:
    """What the task spec records for the constraint (constraints.yaml `value`, default the id)."""
    return knowledge.constraints[constraint_id].value or constraint_id


def _organism_of_files(files: tuple[SniffedFile, ...]) -> tuple[str | None, dict[str, str]]:
    """(organism, path -> organism): files of two organisms are an AmbiguousInputError."""
    by_path = {f.path: f.fact("organism") for f in files if f.fact("organism")}
    distinct = sorted(set(by_path.values()))
    if len(distinct) > 1:
        raise AmbiguousInputError(
            "the input files come from different organisms: "
            + "; ".join(f"{p}: {o}" for p, o in sorted(by_path.items())),
            ["give inputs of one organism"], {"organisms": by_path})
    return (distinct[0] if distinct else None), by_path


def settle_organism(draft: SpecDraft) -> SpecDraft:
    """The organism the request names or the inputs' gene ids reveal; disagreement is an error."""
    knowledge = draft.knowledge
    said = single("organism", _requested(knowledge, draft.request, "organism"), "request")
    found, by_path = _organism_of_files(draft.files)
    if said and found and said != found:
        path = next(p for p, o in sorted(by_path.items()) if o == found)
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[said].label} ({said}) but {path} holds "
            f"{knowledge.constraints[found].label} gene ids ({found})",
            [f"correct the organism in the request, or give the {knowledge.constraints[said].label} files"],
            {"request": said, "files": by_path})
    organism = said or found
    if not organism:
        return draft
    draft = replace(draft, organism=organism).constrain("organism", _value(knowledge, organism), organism)
    if said:
        return draft
    return draft.warn(f"organism {knowledge.constraints[organism].label} inferred from gene ids in the inputs")


def settle_genome_build(draft: SpecDraft) -> SpecDraft:
    """genome_build (and reference_names: chr when chr-prefixed names are wanted) from the builds the
    request names and those the inputs reveal; disagreement is an error (knowledge/references.py).
    References follow the build."""
    said = [(sp.text, sp.id or "") for sp in draft.request.spans if sp.role == "build"]
    files = list(draft.files)
    if not said and not any(f.fact("assembly") for f in files):
        # no build named or found: nothing to resolve, and the references catalog is neither read nor
        # imported (defining its ten models costs ~12 ms of a plan)
        return draft
    from bioplan.knowledge.references import load_catalog, resolve_genome_build

    build_org, build, chr_names, notes = resolve_genome_build(load_catalog(), draft.organism, said, files)
    draft = draft.warn(*notes)
    if build:
        draft = draft.constrain("genome_build", build)
        if not draft.organism and build_org:
            draft = draft.constrain("genome_build_organism", build_org)
    if chr_names:
        draft = draft.constrain("reference_names", "chr")
    return draft


def settle_assay(draft: SpecDraft) -> SpecDraft:
    """The assay the request names, or the inputs' (disagreement is an error), else the one every
    requested operation with assays has in common."""
    knowledge = draft.knowledge
    assay = single("assay", _requested(knowledge, draft.request, "assay"), "request")
    found = assay_of_files(knowledge, draft.files)
    if assay and found and assay != found[0]:
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[assay].label} but {found[1]} is "
            f"{knowledge.constraints[found[0]].label} data",
            ["correct the assay in the request, or give the matching input files"],
            {"request": assay, "files": found[0]})
    if assay is None:
        assay = _implied_assay(knowledge, draft.anchors)
        if assay:
            draft = draft.warn(f"assay {assay} implied by the requested operations")
    return draft.constrain("assay", assay, assay) if assay else draft


def _implied_assay(knowledge: Knowledge, anchors: tuple[str, ...]) -> str | None:
    """The one assay every requested operation with assays has in common; of several, the one each
    lists first (an operation's assays are in order of use: differential expression is of bulk
    RNA-seq before small RNA-seq's miRNA counts), else none."""
    lists = [knowledge.operations[a].assays for a in anchors if knowledge.operations[a].assays]
    common = set.intersection(*(set(assays) for assays in lists)) if lists else set()
    if len(common) == 1:
        return next(iter(common))
    firsts = {assays[0] for assays in lists}
    return firsts.pop() if len(firsts) == 1 and firsts <= common else None


def _layout_of_files(knowledge: Knowledge, files: tuple[SniffedFile, ...]) -> str | None:
    """The layout constraint the read files show (mates per sample), None without read files;
    a mix, or a sample lacking a mate, is an AmbiguousInputError."""
    reads = [f for f in files if knowledge.datatypes.get(f.datatype) and knowledge.datatypes[f.datatype].mates]
    if not reads:
        return None
    by_sample: dict[str, set] = {}
    for f in reads:
        by_sample.setdefault(f.sample or f.path, set()).add(f.mate)
    # read files per sample: both mates, or one file (unnumbered, or a lone first mate)
    counts = {2 if mates == {1, 2} else 1 if mates in ({None}, {1}) else 0 for mates in by_sample.values()}
    broken = sorted(s for s, m in by_sample.items() if m not in ({1, 2}, {None}, {1}))
    if broken or len(counts) > 1:
        lonely = broken or sorted(s for s, m in by_sample.items() if m == {1})
        raise AmbiguousInputError(
            "the FASTQ files mix paired-end and single-end samples"
            + (f" or lack a mate: {', '.join(lonely)}" if lonely else ""),
            ["give both mates (_R1 and _R2) for every paired sample, or only single-end files"],
            {"samples": {s: sorted(str(x) for x in m) for s, m in by_sample.items()}})
    layouts = {c.mates: c.id for c in knowledge.constraints.values() if c.kind == "layout" and c.mates}
    return layouts.get(counts.pop())


def _agreed(knowledge: Knowledge, said: str | None, found: str | None, files_are: str, remedy: str) -> str | None:
    """The constraint the request says, else the one the files show; the two disagreeing is a
    ConstraintViolationError (`files_are` holds {} for the files' constraint label)."""
    if said and found and said != found:
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[said].label} but "
            + files_are.format(knowledge.constraints[found].label),
            [remedy], {"request": said, "files": found})
    return said or found


def settle_layout(draft: SpecDraft) -> SpecDraft:
    """The library layout the request names or the read files show; disagreement is an error."""
    knowledge = draft.knowledge
    said = single("library layout", _requested(knowledge, draft.request, "layout"), "request")
    layout = _agreed(knowledge, said, _layout_of_files(knowledge, draft.files), "the FASTQ files are {}",
                     "correct the layout in the request or give the matching FASTQ files")
    if not layout:
        return draft
    return draft.constrain("layout", _value(knowledge, layout), layout)


def _ruled_out_tools(knowledge: Knowledge, constraint_id: str) -> list[str]:
    """Tools that support constraints this one conflicts with, not this one (deduplicate_bismark
    supports whole-genome bisulfite libraries, not RRBS)."""
    others = set(knowledge.constraints[constraint_id].conflicts)
    return sorted(t.name for t in knowledge.tools.values()
                  if constraint_id not in t.supports and others & set(t.supports))


def _library_of_files(knowledge: Knowledge, files: tuple[SniffedFile, ...]) -> str | None:
    """The library constraint the files show (constraints.yaml `decided_by` of a library constraint: the
    long reads' platform from their read names); files of two platforms are an AmbiguousInputError."""
    tests = [(c.id, c.decided_by) for c in knowledge.constraints.values() if c.kind == "library" and c.decided_by]
    found = {f.path: cid for f in files for cid, test in tests
             if f.datatype in test.datatypes and f.fact(test.fact) is not None and _holds(test, f.fact(test.fact))}
    if len(set(found.values())) > 1:
        raise AmbiguousInputError(
            "the reads come from different platforms: "
            + "; ".join(f"{p}: {knowledge.constraints[c].label}" for p, c in sorted(found.items())),
            ["give the reads of one platform (one sequencing technology) per request"], {"platforms": found})
    return next(iter(found.values()), None)


def settle_library(draft: SpecDraft) -> SpecDraft:
    """How the library's fragments were made, as the request's assay words say it ("RRBS": MspI
    fragments sharing their ends). The planner leaves out the tools that do not support it, and the
    spec says so when any are left out. Several named without input files (a tutorial's scope) apply none,
    said; with files, the files' own decides, else the request must name one."""
    knowledge = draft.knowledge
    named, found = list(dict.fromkeys(_requested(knowledge, draft.request, "library"))), _library_of_files(
        knowledge, draft.files)
    if len(named) > 1:  # a tutorial's scope ("WGBS, RRBS and targeted bisulfite sequencing", "case-control and
        # quantitative trait association testing"): the inputs decide among them; without inputs none is applied,
        # the user's own files the inputs cannot place are one library the request must name (AmbiguousInputError)
        if found in named:
            named = [found]
        elif not draft.files:
            return draft.warn(f"the request names several library preparations ({', '.join(named)}): the plan "
                              "applies the rules of none of them; name the one of your data to apply its rules")
    library = _agreed(knowledge, single("library preparation", named, "request"), found,
                      "the inputs show {} (the reads' names, the sequences' letters or the phenotype's values say so)",
                      "correct the request, or give the inputs it names")
    if not library:
        return draft
    draft = draft.constrain("library", _value(knowledge, library), library)
    left_out = _ruled_out_tools(knowledge, library)
    con = knowledge.constraints[library]
    return draft.warn(f"{con.label}: {con.description} Not used: {', '.join(left_out)}.") if left_out else draft


def _holds(test: FactTest, value: Any) -> bool:
    if test.equals is not None:
        return value == test.equals
    if test.at_least is not None:
        return int(value) >= test.at_least
    return bool(value)


def read_data_facts(draft: SpecDraft) -> SpecDraft:
    """Data constraints the files decide (constraints.yaml `decided_by`: integer counts, replicates,
    Entrez ids): the planner prunes the operations and tools that require a failed one. A file the
    request names as another datatype (`contradicts`: raw counts that are normalised) is said."""
    knowledge = draft.knowledge
    tests = [(c.id, c.decided_by) for c in knowledge.constraints.values() if c.decided_by and c.kind == "data"]
    facts: dict[str, bool] = dict(draft.data_facts)
    for f in draft.files:
        for constraint_id, test in tests:
            value = f.fact(test.fact)
            if f.datatype in test.datatypes and value is not None and value != "":
                facts[constraint_id] = _holds(test, value)
    notes = [note.format(path=f.path) for f in draft.files if f.datatype in knowledge.datatypes
             for said, note in knowledge.datatypes[f.datatype].contradicts.items() if said in draft.request.datatypes]
    return replace(draft, data_facts=facts).warn(*notes, *_levels_the_request_names(draft))


def _contrasts(draft: SpecDraft) -> set[str]:
    return {s.id for s in draft.knowledge.lexicon.settings if s.levels is not None}


def _levels_the_request_names(draft: SpecDraft) -> list[str]:
    """A comparison the request names by its levels ("between KO and WT") in a sample sheet of more than two:
    the differential step compares one level against a reference chosen at run time (a control-like level,
    then the first other one: HET against WT), whatever the request named, unless the config sets them. Said."""
    if any(s.params and s.id in _contrasts(draft) for s in draft.settings):
        return []  # the request's contrast set the levels (passes/contrast.py)
    words = set(re.findall(r"[^\W_]+", draft.request.query.casefold()))
    notes = []
    for f in draft.files:
        levels = f.fact("replicates")
        if not isinstance(levels, dict) or len(levels) <= 2:
            continue
        named = [str(level) for level in levels if str(level).casefold() in words]
        if len(named) >= 2:
            notes.append(
                f"{f.path}: the condition column has {len(levels)} levels ({', '.join(map(str, levels))}) and the "
                f"request names {', '.join(named)}: a differential step compares one level against a reference, "
                "chosen at run time (a control-like level, then the first other one), which need not be the levels "
                "the request names; set params reference_level and test_level in the config to compare those")
    return notes
