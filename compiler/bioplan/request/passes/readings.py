"""Passes that decide what the request's words mean here: the inputs' context re-reads them, words
with several readings resolve to the one that fits, and words that describe the data rather than ask
for a step are dropped."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from bioplan.cache import Memo
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.words import has_word, singular
from bioplan.models import Match, Request, SniffedFile, SpecInput
from bioplan.request.lexicon import is_cjk, lexicon_words, normalize
from bioplan.request.parse import parse_request
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import done_already, leads_to


def quoted(texts: Iterable[str]) -> str:
    return ", ".join(f"'{t}'" for t in dict.fromkeys(texts))


def assay_of_files(knowledge: Knowledge, files: Iterable[SniffedFile | SpecInput]) -> tuple[str, str] | None:
    """(assay, path) when an input's datatype belongs to one assay only: every operation that
    reads or makes it applies to that single assay (an AnnData matrix is single-cell data)."""
    by_datatype = _assays_by_datatype(knowledge)
    for f in files:
        assays = by_datatype.get(f.datatype, set())
        if len(assays) == 1:
            only = next(iter(assays))
            if len(only) == 1:
                return only[0], f.path
    return None


# content hash -> datatype -> the assays (sorted tuple) of each operation reading or making it. A plan
# asks assay_of_files four times; scanning every operation's ports for each input cost 4-10 ms.
_ASSAYS_BY_DATATYPE: Memo[str, dict[str, set[tuple[str, ...]]]] = Memo(8)  # tests build many knowledge bases


def _assays_by_datatype(knowledge: Knowledge) -> dict[str, set[tuple[str, ...]]]:
    found = _ASSAYS_BY_DATATYPE.get(knowledge.content_hash)
    if found is None:
        found = {}
        for op in knowledge.operations.values():
            assays = tuple(sorted(op.assays))
            for port in (*op.inputs.values(), *op.outputs.values()):
                found.setdefault(port.datatype, set()).add(assays)
        _ASSAYS_BY_DATATYPE.keep(knowledge.content_hash, found)
    return found


def input_context(knowledge: Knowledge, files: Iterable[SniffedFile]) -> str:
    """Words describing the inputs for the phrases' context look-aheads: the label of the one assay
    the inputs belong to and the formats of the files ("single cell rna seq h5ad")."""
    files = list(files)
    found = assay_of_files(knowledge, files)
    words = [normalize(knowledge.constraints[found[0]].label)] if found else []
    words += [normalize(f.format) for f in files if f.format]
    return " ".join(dict.fromkeys(words))


def _assay_of_named_tools(knowledge: Knowledge, request: Request) -> str | None:
    """The one assay the tools named apply to: "use scanpy ..." is single-cell whatever else the words
    could mean."""
    named = set()
    for m in request.matches:
        if m.kind == "tool" and not m.negated and not m.offered_beside:
            ops = [knowledge.operations[knowledge.tools[t].implements] for t in (m.id, *m.alternatives)]
            if all(op.assays for op in ops):
                named.add(frozenset(a for op in ops for a in op.assays))
    return next(iter(next(iter(named)))) if len(named) == 1 and len(next(iter(named))) == 1 else None


def assay_of_own_steps(knowledge: Knowledge, request: Request, at_least: int = 2) -> str | None:
    """The assay the request's own steps imply when it names none: the one assay that two or more of its
    steps (words all of whose readings belong to that assay alone) are made for, and that outnumbers
    every other ("identify cell types, infer trajectories and differential expression" is single-cell:
    cell types and trajectories are single-cell steps, so "differential expression" is read in single
    cells). Steps for any assay, or for several, decide nothing. With `at_least=1` one such step is
    enough: it reads the overlapping words of its neighbours ("比对" beside methylation calls)."""
    if any(knowledge.constraints[c].kind == "assay" for c in request.constraints):
        return None
    votes: dict[str, set[str]] = {}
    for m in request.matches:
        if m.kind != "operation" or m.negated:
            continue
        readings = [knowledge.operations[o].assays for o in (m.id, *m.alternatives)]
        if all(len(a) == 1 for a in readings) and len({a[0] for a in readings}) == 1:
            votes.setdefault(readings[0][0], set()).add(m.id)
    ranked = sorted(votes.items(), key=lambda v: len(v[1]), reverse=True)
    if not ranked or len(ranked[0][1]) < at_least or (len(ranked) > 1 and len(ranked[1][1]) >= len(ranked[0][1])):
        return None
    return ranked[0][0]


def context_assay(knowledge: Knowledge, request: Request, files: Iterable[SniffedFile]) -> str | None:
    """The assay the request says, else the inputs', else the named tools', else its own steps'."""
    assays = [c for c in request.constraints if knowledge.constraints[c].kind == "assay"]
    if len(set(assays)) == 1:
        return assays[0]
    found = assay_of_files(knowledge, files)
    if found:
        return found[0]
    return _assay_of_named_tools(knowledge, request) or assay_of_own_steps(knowledge, request)


# ---------------------------------------------------------------------------------------- passes


def reparse_in_input_context(draft: SpecDraft) -> SpecDraft:
    """The inputs choose between readings of the words: phrases whose look-aheads ask for a
    single-cell (or read, or variant) context see the assay and formats of the inputs too (without
    files, the assay the request's own unambiguous steps imply)."""
    context = input_context(draft.knowledge, draft.files)
    if not context:
        # without files, the assay the request's own steps imply is the context of its other words
        own = assay_of_own_steps(draft.knowledge, draft.request)
        context = normalize(draft.knowledge.constraints[own].label) if own else ""
    if not context:
        return draft
    return replace(draft, request=parse_request(draft.request.query, draft.knowledge, context=context))


Fit = Callable[[str], tuple[int, int, int]]


def _fit(knowledge: Knowledge, request: Request, files: tuple[SniffedFile, ...]) -> Fit:
    """How well an operation fits the context: (fits the assay, its inputs follow from the files, its
    per-sample inputs follow from the per-sample files: "align" of long reads is the long-read alignment,
    not the short-read one, whose genome index alone follows from the genome)."""
    assay = context_assay(knowledge, request, files)
    input_types = [f.datatype for f in files]

    def fit(op_id: str) -> tuple[int, int, int]:
        op = knowledge.operations[op_id]
        # an operation for any assay fits as well as one for this assay; only a conflict is worse
        assay_fit = (1 if (not op.assays or assay in op.assays) else 0) if assay else 1
        reachable = 1 if not input_types or any(
            leads_to(knowledge, i, p.datatype) for i in input_types for p in op.inputs.values()) else 0
        own = [p.datatype for p in op.inputs.values() if not p.optional and _per_sample(knowledge, p.datatype)]
        fed = all(any(leads_to(knowledge, i, d) for i in sample_types) for d in own)
        samples_fed = 1 if not sample_types or fed else 0
        return (assay_fit, reachable, samples_fed)
    # the per-sample data given, or without files the reads of the platform the request says ("Nanopore": long
    # reads, constraints.yaml decided_by), or the per-sample data it names ("ChIP-seq FASTQ")
    platform = [d for c in request.constraints for test in [knowledge.constraints[c].decided_by]
                if test is not None and knowledge.constraints[c].kind == "library" for d in test.datatypes]
    sample_types = [t for t in input_types if _per_sample(knowledge, t)] or platform or [
        t for t in request.datatypes if _per_sample(knowledge, t)]
    return fit


def _per_sample(knowledge: Knowledge, datatype: str) -> bool:
    return datatype in knowledge.datatypes and knowledge.datatypes[datatype].scope == "sample"


def _overlapping_readings(ops: list[Match], fit: Fit, cost: Callable[[str], float]) -> dict[str, str]:
    """Readings of the same words -- alternatives of one alias, and overlapping matches (an alias
    "normalization" and a single-cell phrase around it) -- that fit worse give way to the best (of readings
    alike, the cheaper: "mapping" without long reads is short-read alignment)."""
    groups: list[list[Match]] = []
    for m in ops:
        home = next((g for g in groups if any(m.start < o.end and o.start < m.end for o in g)), None)
        if home is None:
            groups.append([m])
        else:
            home.append(m)
    replace_by: dict[str, str] = {}
    for g in groups:
        options = list(dict.fromkeys([o for m in g for o in (m.id, *m.alternatives)]))
        if len(options) < 2:
            continue
        best = max(options, key=lambda o: (fit(o), -cost(o), o in [m.id for m in g], -options.index(o)))
        for o in options:
            # only a reading that fits the context worse gives way; equally fitting readings
            # of overlapping words are both meant ("preranked GSEA": ranking and GSEA)
            if fit(o) < fit(best):
                replace_by[o] = best
    return replace_by


def _own_kind(knowledge: Knowledge, files: tuple[SniffedFile, ...]) -> Callable[[str], int]:
    """1 when the operation reads the inputs' own kind of data (a cell matrix beside an .h5ad)."""
    files_assay = assay_of_files(knowledge, files)

    def own_kind(op_id: str) -> int:
        ins = [SpecInput(path="", datatype=p.datatype, format="")
               for p in knowledge.operations[op_id].inputs.values() if not p.optional]
        return 1 if files_assay and assay_of_files(knowledge, ins) == (files_assay[0], "") else 0
    return own_kind


def _assay_made_readings(knowledge: Knowledge, ops: list[Match], assay: str | None, fit: Fit) -> dict[str, str]:
    """Overlapping words read by an operation made for some assays and by an any-assay one. In one of
    those assays the any-assay reading of no more words gives way ("align" in bisulfite sequencing is
    bisulfite alignment; "trim" inside "trim the primers" of an amplicon study is primer removal, not
    read trimming); without an assay, or in another, the assay-made reading of the same words gives
    way to the any-assay one ("align the reads with STAR" is read alignment), of those the one that fits the
    inputs best (short-read alignment for short reads, long-read alignment for long reads)."""
    readings = [(m, o) for m in ops for o in dict.fromkeys((m.id, *m.alternatives))]
    # the best-fitting first, then the cheaper (long-read alignment costs more: without a word or file of
    # long reads, "align" is of short reads); sorted stably, so readings alike keep their order
    readings.sort(key=lambda r: (fit(r[1]), -knowledge.operations[r[1]].cost), reverse=True)
    replace_by: dict[str, str] = {}
    for m, generic in readings:
        if knowledge.operations[generic].assays:
            continue
        for n, other in readings:
            if not (n.start < m.end and m.start < n.end) or not knowledge.operations[other].assays:
                continue
            if m.how == n.how == "phrase" and (m.start, m.end) == (n.start, n.end):
                continue  # one phrase naming several steps ("RNA-seq with UMIs") means them all
            if assay in knowledge.operations[other].assays and n.end - n.start >= m.end - m.start:
                replace_by.setdefault(generic, other)
            elif assay not in knowledge.operations[other].assays and (n.start, n.end) == (m.start, m.end):
                replace_by.setdefault(other, generic)
    return replace_by


def _assay_of_one_step(knowledge: Knowledge, request: Request, ops: list[Match]) -> str | None:
    """The assay one step made for it alone implies (`assay_of_own_steps` with one vote), unless the words
    of such a step are also read as another step ("quality control of ... vcf": the words are shared)."""
    one = assay_of_own_steps(knowledge, request, at_least=1)
    voters = [m for m in ops if all(knowledge.operations[o].assays == (one,) for o in (m.id, *m.alternatives))]
    voted = set(voters)  # a set: a list's `in` compares models field by field (cubic in the steps named)
    shared = any(n.start < m.end and m.start < n.end for m in voters for n in ops if n not in voted)
    return None if shared else one


def _assay_steps_inside(knowledge: Knowledge, request: Request, ops: list[Match], assay: str | None) -> dict[str, str]:
    """In an assay, an any-assay reading of words that hold a whole alias of one of the assay's own steps
    of the same kind (reading the same data) gives way to that step: "与参考基因组比对" beside methylation
    calls is bisulfite alignment, as "比对" alone is, though the longer "基因组比对" matched first."""
    if not assay:
        return {}
    own = [o for o in knowledge.operations.values() if assay in o.assays]
    replace_by: dict[str, str] = {}
    for m in ops:
        generic = [knowledge.operations[o] for o in dict.fromkeys((m.id, *m.alternatives))]
        if any(op.assays for op in generic):
            continue
        # the words as said and in the singular ("perform alignments" holds the alias "alignment")
        said = request.normalized[m.start:m.end]
        words = (said, " ".join(singular(w) for w in said.split(" ")))
        reads = {p.datatype for op in generic for p in op.inputs.values() if not p.optional}
        found = [o.id for o in own if reads & {p.datatype for p in o.inputs.values() if not p.optional}
                 and any(has_word(w, normalize(a)) for w in words for a in (*o.aliases.en, *o.aliases.zh))]
        if len(found) == 1:
            replace_by.update((op.id, found[0]) for op in generic)
    return replace_by


def resolve_readings(draft: SpecDraft) -> SpecDraft:
    """Anchors from the request, with words of several readings ("QC", "normalize") resolved by
    context: of the operations one phrase can name, keep the one that fits the assay (said, or
    implied by the inputs) and whose inputs the given files can lead to."""
    knowledge, request, files = draft.knowledge, draft.request, draft.files
    fit = _fit(knowledge, request, files)
    ops = [m for m in request.matches if m.kind == "operation" and not m.negated]
    replace_by = _overlapping_readings(ops, fit, lambda o: knowledge.operations[o].cost)
    # one word, several readings that fit alike ("QC": read QC or single-cell QC): the reading of the
    # inputs' own kind of data wins ("QC" beside an .h5ad is single-cell QC)
    own_kind = _own_kind(knowledge, files)
    same_words: dict[tuple[int, int], list[str]] = {}
    for m in ops:
        same_words.setdefault((m.start, m.end), []).extend([m.id, *m.alternatives])
    files_assay = assay_of_files(knowledge, files)
    for options in same_words.values():
        options = list(dict.fromkeys(options))
        if len(options) < 2 or not files_assay:
            continue
        best = max(options, key=lambda o: (fit(o), own_kind(o)))
        for o in options:
            if o not in replace_by and fit(o) == fit(best) and own_kind(o) < own_kind(best):
                replace_by[o] = best
    # without an assay said or given, one step made for one assay alone (methylation calling) reads the
    # words its neighbours share with that assay's own steps ("比对" beside methylation calls is bisulfite
    # alignment)
    assay = context_assay(knowledge, request, files) or _assay_of_one_step(knowledge, request, ops)
    for reading, better in _assay_made_readings(knowledge, ops, assay, fit).items():
        replace_by.setdefault(reading, better)
    inside = _assay_steps_inside(knowledge, request, ops, assay)
    anchors = [replace_by.get(op, op) for op in request.operations]
    anchors = [inside.get(op, op) for op in anchors] + named_pipeline_steps(knowledge, request)
    return replace(draft, anchors=tuple(dict.fromkeys(anchors)))


def named_pipeline_steps(knowledge: Knowledge, request: Request) -> list[str]:
    """The steps of a pipeline the request names by its name ("the GATK best practices", "an ATAC-seq
    pipeline", "FASTQ to VCF"; a motif's aliases): an expert runs the whole pipeline, not only the step
    the rest of the sentence names. A request that lists two or more steps itself ("Joint germline variant
    calling: HaplotypeCaller ..., GenomicsDBImport ..., GenotypeGVCFs") has said which of the pipeline's
    steps it wants; a step outside the pipeline ("... with GATK best practices and annotation with SnpEff")
    says nothing of them. A step the request refuses ("the ATAC-seq pipeline without removing mitochondrial
    reads", "do not mark duplicates") is not one of them. Steps the inputs are already past are dropped later
    (`drop_done`)."""
    named = [m.id for m in request.matches if m.kind == "motif" and not m.negated]
    asked = set(request.operations)
    refused = {op for m in request.matches if m.kind == "operation" and m.negated for op in (m.id, *m.alternatives)}
    return [op for motif in dict.fromkeys(named) if len(asked & _pipeline_steps(knowledge, motif)) < 2
            for op in knowledge.motifs[motif].operations if op not in refused or op in asked]


def _pipeline_steps(knowledge: Knowledge, motif: str) -> set[str]:
    """A motif's operations and those that make their data by another route (`superseded_by`: the GVCF route
    of the GATK pipeline's variant calling)."""
    ops = knowledge.motifs[motif].operations
    return set(ops) | {s for op in ops for s in knowledge.operations[op].superseded_by}


_CLAUSE_START = re.compile(r"[,.;:!?()，。；：！？]|\bthen\b|然后|并且")


def _instructed(knowledge: Knowledge, request: Request, m: Match) -> bool:
    """True if an instruction word ("annotate", "find", "做") stands before or in the words, in their
    clause ("call variants" is an instruction, "three cell types" is not)."""
    norm = request.normalized
    start = max([0] + [x.end() for x in _CLAUSE_START.finditer(norm, 0, m.start)])
    before = norm[start:m.end]
    # a word that is not ASCII is in no ASCII text, as a word or not: skipped, as its CJK test
    ascii_words, other_words = _instruction_words(lexicon_words(knowledge, "instruction_words"))
    # is_cjk only for a text that is not ASCII: an English request compiles no CJK range
    return any(has_word(before, w) for w in ascii_words) or (not before.isascii() and any(
        has_word(before, w) if not is_cjk(w) else w in before for w in other_words))


# the instruction words split once per word list: (the ASCII ones, the other ones)
_SPLIT_WORDS: Memo[int, tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]] = Memo(64)


def _instruction_words(words: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    kept = _SPLIT_WORDS.get(id(words))
    if kept is None or kept[0] is not words:  # the word list itself is kept: its id is never another's
        kept = _SPLIT_WORDS.keep(id(words), (words, tuple(w for w in words if w.isascii()),
                                             tuple(w for w in words if not w.isascii())))
    return kept[1], kept[2]


def _descriptions(draft: SpecDraft, assay: str | None) -> dict[str, list[Match]]:
    """The anchors whose words describe the data (no instruction word in their clause) and that the
    context rules out: the assay excludes them, or they cannot run from the inputs while the rest can."""
    knowledge, request, anchors = draft.knowledge, draft.request, draft.anchors
    input_types = [f.datatype for f in draft.files]

    def runs_from_inputs(op_id: str) -> bool:
        return any(leads_to(knowledge, i, p.datatype)
                   for i in input_types for p in knowledge.operations[op_id].inputs.values() if not p.optional)

    dropped: dict[str, list[Match]] = {}
    for a in anchors:
        op = knowledge.operations[a]
        ms = [m for m in request.matches if m.kind == "operation" and m.id == a and not m.negated]
        if not ms or any(_instructed(knowledge, request, m) for m in ms):
            continue
        excluded = bool(assay and op.assays and assay not in op.assays)
        cannot_run = bool(input_types) and not runs_from_inputs(a) and any(
            runs_from_inputs(b) for b in anchors if b != a) and not done_already(knowledge, a, input_types)
        if excluded or cannot_run:
            dropped[a] = ms
    return dropped


def drop_descriptions(draft: SpecDraft) -> SpecDraft:
    """Operation words that describe the data rather than ask for a step ("three cell types" in a
    ChIP-seq request, "NK细胞的标记基因" beside a gene list) are dropped with a warning; the same words
    stop naming a result."""
    knowledge, request = draft.knowledge, draft.request
    assay = context_assay(knowledge, request, draft.files)
    dropped = _descriptions(draft, assay)
    if not dropped or set(dropped) == set(draft.anchors):
        # words that would leave nothing to run are the request itself: the planner's own error
        # (unsatisfiable, constraint_violation) then says why they cannot run here
        return draft
    notes = []
    for a, ms in dropped.items():
        op = knowledge.operations[a]
        why = (f"it applies to {', '.join(op.assays)} data, not {assay}"
               if assay and op.assays and assay not in op.assays else "it cannot start from the inputs")
        notes.append(f"{quoted(m.text for m in ms)} read as describing the data, not as {op.label.lower()} "
                     f"({why}); to run it, ask for it as an instruction and give inputs it can start from")
    spans = [(m.start, m.end) for ms in dropped.values() for m in ms]
    kept = [m for m in request.matches if not (m.kind in ("operation", "datatype") and (m.start, m.end) in spans)]
    request = request.model_copy(update={
        "matches": tuple(kept),
        "operations": tuple(o for o in request.operations if o not in dropped),
        "datatypes": tuple(d for d in request.datatypes if any(m.kind == "datatype" and m.id == d for m in kept))})
    return replace(draft.warn(*notes), request=request, anchors=tuple(a for a in draft.anchors if a not in dropped))
