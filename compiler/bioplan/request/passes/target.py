"""Passes that settle what the workflow starts from and ends with: the inputs (an existing
clustering read as clustered data; without files, the mentioned datatypes), the target (sink of the
anchors, refined by the last mentioned datatype) and a conversion to the requested file format."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from bioplan.errors import AmbiguousInputError, NoOperationRecognizedError
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype
from bioplan.knowledge.words import normalize
from bioplan.models import Request, SniffedFile
from bioplan.request.parse import suggestions
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import entry_inputs, is_conversion, is_downstream, leads_to, sinks, started_from


def _grouped_as(knowledge: Knowledge, datatype: str) -> str | None:
    """What a file of `datatype` holding cell groups is read as (datatypes.yaml `grouped_as`)."""
    dt = knowledge.datatypes.get(datatype)
    return dt.grouped_as if dt else None


def _reads_grouped(knowledge: Knowledge, anchors: tuple[str, ...], grouped: str) -> list[str]:
    """Anchors that read the grouped datatype (clustered cells, or data made from them), when no
    anchor makes it (a request to cluster re-clusters)."""
    makers = {op.id for op in knowledge.operations.values()
              if any(is_subtype(knowledge, p.datatype, grouped) for p in op.outputs.values())}
    if any(a in makers for a in anchors):
        return []
    return [a for a in anchors if any(leads_to(knowledge, grouped, p.datatype)
                                      for p in knowledge.operations[a].inputs.values() if not p.optional)]


def _groups(f: SniffedFile) -> list[str]:
    """The file's clusterings, then its cell label columns."""
    return list(f.fact("cluster_columns") or []) + list(f.fact("label_columns") or [])


def _grouping(request: Request, f: SniffedFile) -> tuple[str, str]:
    """(obs column, why): a column the request names wins; else the first clustering, else the first
    label column."""
    groups = _groups(f)
    said = [g for g in groups if re.search(rf"(?<![A-Za-z0-9_]){re.escape(g)}(?![A-Za-z0-9_])", request.query,
                                           re.IGNORECASE)]
    column = (said or groups)[0]
    why = ("the request names it" if said else
           "its existing clustering" if column in (f.fact("cluster_columns") or []) else "its cell labels")
    return column, why


def use_existing_clustering(draft: SpecDraft) -> SpecDraft:
    """A normalised AnnData that already holds a clustering (or cell labels) is the clustered data the
    requested steps read, when the request does not ask to cluster: marker genes per the existing
    'louvain' clusters (`TaskSpec.cluster_column`). A request to cluster re-clusters."""
    knowledge = draft.knowledge
    out, column, notes = [], None, []
    for f in draft.files:
        grouped = _grouped_as(knowledge, f.datatype)
        readers = _reads_grouped(knowledge, draft.anchors, grouped) if grouped and not column else []
        if not (grouped and readers and _groups(f)):
            out.append(f)
            continue
        column, why = _grouping(draft.request, f)
        note = (f"{knowledge.operations[readers[0]].label} uses obs column '{column}' of {f.path} ({why}; groups "
                f"in the file: {', '.join(_groups(f))}); to re-cluster, ask to cluster the cells")
        notes.append(note)
        out.append(f.model_copy(update={"datatype": grouped, "evidence": f.evidence + (note,)}))
    return replace(draft.warn(*notes), files=tuple(out), cluster_column=column)


# "from FASTQ files", "starting from the BAMs": the data named after these words is where the
# workflow starts, never the result it asks for
# data named after these is what to start from, not the result ("variants from FASTQ files", "直接用reads比":
# honesty round 7, the reads to use were the requested result)
_SOURCE_MARKER = re.compile(r"(\b(from|starting with|start with|given|out of|use|using)"
                            r"( (the|my|our|your|these|those|raw|\w+ed))*|用|使用|利用|基于|根据|从)\s*$")


def follows_source_marker(request: Request, start: int) -> bool:
    """True if the words at `start` follow a source marker ("from my", "starting with the", "用")."""
    return bool(_SOURCE_MARKER.search(request.normalized[max(0, start - 40):start]))


def _mentioned_as_source(request: Request, datatype: str) -> bool:
    """True if every mention of `datatype` follows a source marker ("... variants from FASTQ files")."""
    spans = [m for m in request.matches if m.kind == "datatype" and m.id == datatype]
    return bool(spans) and all(follows_source_marker(request, m.start) for m in spans)


def _data_of_a_named_result(knowledge: Knowledge, d: str, mentioned: list[str]) -> bool:
    """Without a step named, data some other named result is made from is that result's data, not the
    result: "somatic variants are identified ... in normal and tumor sample alignments" wants the
    variants, from the alignments (before, the alignments were the wanted result: unsatisfiable)."""
    if knowledge.datatypes[d].scope == "reference":
        return False  # a reference alone is no result (require_target says so); it is no sample's data either
    return any(e != d and knowledge.datatypes[e].scope != "reference" and is_downstream(knowledge, d, e)
               and not is_downstream(knowledge, e, d) for e in mentioned)


def choose_target(draft: SpecDraft) -> SpecDraft:
    """The target: the first output of the last sink among the anchors (a format conversion, "export as
    CSV", writes whatever table the analysis makes: the analysis names it); the last mentioned
    datatype refines it when it lies downstream of it ("... then KEGG, as one merged table"); without
    anchors the last mentioned datatype that is no input is the target."""
    knowledge = draft.knowledge
    input_types = tuple(dict.fromkeys(f.datatype for f in draft.files))
    target: str | None = None
    if draft.anchors:
        analyses = [a for a in draft.anchors if not is_conversion(knowledge, a)] or list(draft.anchors)
        # anchors that feed each other (duplicate marking and base recalibration both read and write
        # alignments) may leave no sink: then the last one named is the end of the request
        sink = ([a for a in analyses if a in sinks(knowledge, analyses)] or analyses)[-1]
        target = next(iter(knowledge.operations[sink].outputs.values())).datatype
    mentioned = [d for d in draft.request.datatypes if d in knowledge.datatypes]
    for d in reversed(mentioned):
        if d in input_types or any(is_subtype(knowledge, i, d) for i in input_types):
            continue
        if _mentioned_as_source(draft.request, d):
            continue
        if target is None and _data_of_a_named_result(knowledge, d, mentioned):
            continue
        # a datatype also upstream of the target (aligned reads around base recalibration) does not refine it
        if target is None or (d != target and is_downstream(knowledge, target, d)
                              and not is_downstream(knowledge, d, target)):
            target = d
        break
    return replace(draft, input_types=input_types, target=target)


def add_output_conversion(draft: SpecDraft) -> SpecDraft:
    """A requested file format ("as CSV") adds a conversion operation (from the target to itself) when
    a tool of it writes that format."""
    knowledge, target, fmt = draft.knowledge, draft.target, draft.request.output_format
    if target is None or not fmt:
        return draft
    added = []
    for op in knowledge.operations.values():
        if not is_conversion(knowledge, op.id) or op.id in draft.anchors:
            continue
        reads = next(p.datatype for p in op.inputs.values() if not p.optional)
        if is_subtype(knowledge, target, reads) and any(
                tp.format == fmt for t in knowledge.tools_for(op.id) for tp in t.outputs.values()):
            added.append(op.id)
    return draft.with_anchors(*added)


def _made_by_anchors(knowledge: Knowledge, anchors: tuple[str, ...], d: str) -> bool:
    """True if an anchor makes d (or a subtype of it), not counting an anchor that only refines d
    (trimming: reads -> trimmed reads, a kind of reads)."""
    derived = {p.datatype for a in anchors for p in knowledge.operations[a].outputs.values()}
    refines = {p.datatype: [q.datatype for q in knowledge.operations[a].inputs.values()]
               for a in anchors for p in knowledge.operations[a].outputs.values()}
    return d in derived or any(is_subtype(knowledge, x, d) and not any(is_subtype(knowledge, d, i) for i in refines[x])
                               for x in derived)


def inputs_without_files(draft: SpecDraft) -> SpecDraft:
    """Without files, the mentioned datatypes nothing requested produces are the inputs, plus what the
    first requested operations need that the mentioned data cannot give ("PCA of my raw counts" also
    needs the sample sheet)."""
    if draft.files:
        return draft
    knowledge = draft.knowledge
    mentioned = [d for d in draft.request.datatypes if d in knowledge.datatypes]
    sources = [d for d in mentioned if d != draft.target and not _made_by_anchors(knowledge, draft.anchors, d)]
    sources = _without_intermediates(knowledge, draft.request, sources)
    # a reference never stands in for the samples' data: a genome "leads to" reads only through
    # steps that also read reads (host removal), so "align reads to the reference genome" needs reads
    sample_sources = [d for d in sources if knowledge.datatypes[d].scope != "reference"]
    needed = [d for d in entry_inputs(knowledge, draft.anchors)
              if not any(leads_to(knowledge, src, d) for src in sample_sources)]
    # data only a pipeline makes (DADA2's error model) is not assumed: where its making starts is
    needed = [x for d in needed for x in started_from(knowledge, d)
              if x == d or not _made_by_anchors(knowledge, draft.anchors, x)]
    if not sample_sources and (_names_the_sequencing(draft) or _names_the_reads(draft)):
        # "identify the genetic variation with the use of exome sequencing": the sequencing is the
        # data, so the samples' reads, not the alignments the first step reads
        needed = [_RAW_READS if d != _RAW_READS and leads_to(knowledge, _RAW_READS, d)
                  and not _refused_on_the_way(draft, d) else d for d in needed]
        if not draft.anchors and draft.target and leads_to(knowledge, _RAW_READS, draft.target):
            # "identifies somatic variants within whole exome sequencing data": a result named, no step
            needed = [_RAW_READS]
    if not draft.anchors and not sample_sources and not needed and draft.target \
            and leads_to(knowledge, _RAW_READS, draft.target) and _one_assay_makes(knowledge, draft.target):
        # a result named alone ("short germline variants, i.e. SNPs and indels", in words of no language bioplan
        # reads): the samples' reads, where the result's pipeline starts, not the last step's input
        needed = [_RAW_READS]
    assumed = [d for d in dict.fromkeys(needed) if d not in mentioned]
    labels = ", ".join(knowledge.datatypes[d].label.lower() for d in assumed)
    draft = draft.warn(f"no input files were given: the plan assumes {labels} as input (what its first steps "
                       "read); to plan from other data, give it with -i FILE") if assumed else draft
    return replace(draft, input_types=tuple(dict.fromkeys(sources + needed)))


def _one_assay_makes(knowledge: Knowledge, datatype: str) -> bool:
    """True when every operation writing `datatype` belongs to one and the same assay (variant calls: DNA
    sequencing), so the samples' reads of that assay are where its pipeline starts; a count matrix (bulk or
    single-cell RNA, small RNA) is not decided by the result alone."""
    assays = [frozenset(op.assays) for op in knowledge.operations.values()
              if any(p.datatype == datatype for p in op.outputs.values())]
    return bool(assays) and len(set(assays)) == 1 and len(assays[0]) == 1


def _without_intermediates(knowledge: Knowledge, request: Request, sources: list[str]) -> list[str]:
    """Data the workflow makes on its way from the data named as its start: "start from the FASTQ
    files, ... and prepare a count matrix" starts from the reads, the count matrix is made, not given."""
    starts = [s for s in sources if knowledge.datatypes[s].scope != "reference" and _mentioned_as_source(request, s)]
    return [d for d in sources if d in starts or knowledge.datatypes[d].scope == "reference"
            or not any(leads_to(knowledge, s, d) for s in starts)]


_RAW_READS = "raw_reads"
_SEQUENCING_WORDS = re.compile(r"\b(sequencing|seq)\b")


def _names_the_sequencing(draft: SpecDraft) -> bool:
    """True if an assay of the request is named by its sequencing ("exome sequencing", "ChIP-seq
    data"), not by what was found in it ("germline variants")."""
    knowledge = draft.knowledge
    return any(m.kind == "constraint" and not m.negated and m.id in knowledge.constraints
               and knowledge.constraints[m.id].kind == "assay" and _SEQUENCING_WORDS.search(normalize(m.text))
               for m in draft.request.matches)


def _refused_on_the_way(draft: SpecDraft, d: str) -> bool:
    """True if the request refuses a step that makes d from the reads ("skip the read mapping, start from
    the peak calling": the ChIP-seq data are then its alignments, not its reads)."""
    knowledge = draft.knowledge
    refused = {op for m in draft.request.matches if m.kind == "operation" and m.negated
               for op in (m.id, *m.alternatives)} & set(knowledge.operations)
    return any(any(leads_to(knowledge, _RAW_READS, p.datatype) for p in knowledge.operations[op].inputs.values())
               and any(leads_to(knowledge, p.datatype, d) for p in knowledge.operations[op].outputs.values())
               for op in refused)


_READS_WORD = re.compile(r"\breads?\b")


def _names_the_reads(draft: SpecDraft) -> bool:
    """True if a read layout is named with the reads ("designed for paired end reads"): the reads are the
    data, as when the sequencing is named."""
    knowledge = draft.knowledge
    return any(m.kind == "constraint" and not m.negated and m.id in knowledge.constraints
               and knowledge.constraints[m.id].kind == "layout" and _READS_WORD.search(normalize(m.text))
               for m in draft.request.matches)


def _reference_only(knowledge: Knowledge, datatype: str) -> bool:
    """A reference datatype (genome, annotation) that no operation makes."""
    dt = knowledge.datatypes.get(datatype)
    return bool(dt and dt.scope == "reference" and not any(
        p.datatype == datatype for op in knowledge.operations.values() for p in op.outputs.values()))


def require_target(draft: SpecDraft) -> SpecDraft:
    """no_operation_recognized when nothing names a result, or the result asked for is an input."""
    request = draft.request
    if draft.target is None:
        near = suggestions(request.unrecognized, draft.knowledge)
        hints = ["did you mean " + ", ".join(repr(n) for n in near) + "?"] if near else []
        hints.append('name an analysis (e.g. "differential expression", "align reads", "cluster cells") '
                     'or the result you want (e.g. "a count matrix")')
        if not draft.files:  # "直接用reads比, 给我表达量": nothing to assume the inputs from either
            hints.append("to resolve, also give the input files with -i FILE: bioplan reads what they hold")
        raise NoOperationRecognizedError(
            "no operation or result was recognised in the request"
            + (f" (unrecognised words: {', '.join(request.unrecognized[:6])})" if request.unrecognized else ""),
            hints, {"unrecognized": list(request.unrecognized)})
    if not draft.anchors and _reference_only(draft.knowledge, draft.target):
        # "differences between reads and a reference genome": the reference is read, not made; an
        # empty plan would answer nothing
        raise NoOperationRecognizedError(
            f"the request names {draft.target!r}, a reference the workflow reads, and no operation to run"
            + (f" (unrecognised words: {', '.join(request.unrecognized[:6])})" if request.unrecognized else ""),
            ['name the analysis to run against it (e.g. "call variants", "align reads")'],
            {"unrecognized": list(request.unrecognized)})
    if draft.target in draft.input_types and not draft.anchors:
        raise NoOperationRecognizedError(
            f"the request asks for {draft.target!r}, which is already an input; no operation was recognised",
            ["name the analysis to run on it"], {})
    return draft


def refuse_repeated_cohort_inputs(draft: SpecDraft) -> SpecDraft:
    """A datatype shared by the whole study (cohort scope: the sample sheet) comes in one file."""
    counts = Counter(f.datatype for f in draft.files)
    for dt, n in sorted(counts.items()):
        if n > 1 and draft.knowledge.datatypes[dt].scope == "cohort":
            raise AmbiguousInputError(
                f"{n} input files are {dt!r}: " + ", ".join(f.path for f in draft.files if f.datatype == dt),
                ["give one file of this kind (it is shared by the whole study)"], {"datatype": dt})
    return draft
