"""Passes that settle the required operations (anchors) against the inputs: steps the data is
already past are dropped, a step an input can only serve as optional input of is added, an id
conversion is added where gene sets and data use different gene ids, and the data constraints the
anchors imply come into force."""

from __future__ import annotations

from dataclasses import replace

from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype, makeable, readers_accepting
from bioplan.models import SniffedFile
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import input_at_or_after


def _past_note(knowledge: Knowledge, op_id: str, by_type: dict[str, SniffedFile],
               reachable: frozenset[str]) -> str | None:
    """Why anchor op_id is not run, or None when it is: it cannot run from the inputs and an input
    is its result or lies after it."""
    op = knowledge.operations[op_id]
    needs = [p.datatype for p in op.inputs.values() if not p.optional]
    if all(any(is_subtype(knowledge, r, d) for r in reachable) for d in needs):
        return None
    hit = next((h for p in op.outputs.values() for h in [input_at_or_after(knowledge, p.datatype, by_type)] if h),
               None)
    if hit is None:
        return None
    f = by_type[hit]
    why = next((e for e in f.evidence if e.startswith("X is")), f"it is {hit}")
    return (f"{op.label} is not run: {f.path} is already past it ({why}); to run it, give the data "
            f"it starts from ({', '.join(needs)})")


def drop_done(draft: SpecDraft) -> SpecDraft:
    """Anchors the inputs are already past: their result is an input ("salmon" with Salmon outputs), or an
    input lies after it on a chain of one-input steps ("QC, normalise, cluster" with normalised cells).
    Such a step cannot run (its own input cannot be made from the inputs) and need not: it is dropped,
    with a warning that says why and how to run it after all; so is a named tool of it."""
    if not draft.files:
        return draft
    knowledge = draft.knowledge
    by_type = {f.datatype: f for f in draft.files}
    reachable = makeable(knowledge, by_type)
    notes = {a: _past_note(knowledge, a, by_type, reachable) for a in draft.anchors}
    anchors = tuple(a for a in draft.anchors if notes[a] is None)
    # a named tool of a step the data is past ("these salmon quantifications") is not wanted either
    preferred = tuple(t for t in draft.preferred if knowledge.tools[t].implements in anchors)
    return replace(draft.warn(*(n for n in notes.values() if n)), anchors=anchors, preferred=preferred)


def drop_superseded(draft: SpecDraft) -> SpecDraft:
    """Anchors whose data another requested operation makes by another route (the operation's
    `superseded_by`): "call variants per sample with HaplotypeCaller in GVCF mode, then joint-genotype
    them" asks for GVCFs and joint genotyping, not also a multi-sample caller. The anchor and a named
    tool of it are dropped with a warning; the superseding route's own tools are chosen as usual."""
    knowledge = draft.knowledge
    by = {a: [o for o in knowledge.operations[a].superseded_by if o in draft.anchors] for a in draft.anchors}
    dropped = [a for a in draft.anchors if by[a]]
    if not dropped:
        return draft
    # the superseding route's steps the request leaves unsaid are that anchor's step done the route's way:
    # "HaplotypeCaller on every sample, ... the final VCF with GenotypeGVCFs" calls GVCFs first
    route = tuple(dict.fromkeys(o for a in dropped for o in knowledge.operations[a].superseded_by
                                if o not in draft.anchors))
    anchors = tuple(a for a in draft.anchors if a not in dropped) + route
    preferred = tuple(t for t in draft.preferred if knowledge.tools[t].implements not in dropped)
    notes = _unrun_named_tools(knowledge, draft.preferred, dropped)
    notes += [f"{knowledge.operations[a].label} is done by "
             + " and ".join(knowledge.operations[o].label.lower() for o in knowledge.operations[a].superseded_by)
             + (", which the request also asks for; it is not run a second time" if not route else
                ", the route the request asks for; the per-sample step runs as "
                + " and ".join(knowledge.operations[o].label.lower() for o in route))
             for a in dropped]
    return replace(draft.warn(*notes), anchors=anchors, preferred=preferred)



def drop_conversion_of_planned_alignments(draft: SpecDraft) -> SpecDraft:
    """A SAM to BAM conversion the request lists after its own alignment step ("2. Map the trimmed reads to a
    reference genome. 3. Convert SAM to BAM format. 4. Sort BAM file by coordinates.", a pipeline's steps as
    its README lists them) is that step's own output: the aligner's step writes a coordinate-sorted, indexed
    BAM, so no step reads SAM. Kept when a given file is SAM (the binder converts it where a tool reads BAM)."""
    knowledge = draft.knowledge
    if "alignment_format_conversion" not in draft.anchors or any(f.format == "sam" for f in draft.files):
        return draft
    aligners = [a for a in draft.anchors if a != "alignment_format_conversion" and any(
        is_subtype(knowledge, port.datatype, "aligned_reads") for port in knowledge.operations[a].outputs.values())]
    if not aligners:
        return draft
    note = (f"{knowledge.operations['alignment_format_conversion'].label} is no separate step: "
            f"{knowledge.operations[aligners[0]].label.lower()} writes a coordinate-sorted, indexed BAM")
    return replace(draft.warn(note), anchors=tuple(a for a in draft.anchors if a != "alignment_format_conversion"),
                   preferred=tuple(t for t in draft.preferred
                                   if knowledge.tools[t].implements != "alignment_format_conversion"))

def _unrun_named_tools(knowledge: Knowledge, preferred: tuple[str, ...], dropped: list[str]) -> list[str]:
    """Named tools of a superseded step that no tool of their package can run on the superseding route
    ("use any bulk DE method such as edgeR" on pseudobulk counts: the pseudobulk step runs PyDESeq2)."""
    notes = []
    for t in preferred:
        tool = knowledge.tools[t]
        if tool.implements not in dropped:
            continue
        route = knowledge.operations[tool.implements].superseded_by
        if any(o.software.conda == tool.software.conda and o.implements in route for o in knowledge.tools.values()):
            continue
        notes.append(f"{tool.name} (named for {knowledge.operations[tool.implements].label.lower()}) is not run: "
                     + " and ".join(knowledge.operations[o].label.lower() for o in route)
                     + " runs its own tool")
    return notes


def _optional_reader(knowledge: Knowledge, f: SniffedFile, given: set[str], anchors: tuple[str, ...],
                     refused: set[str]) -> tuple[str | None, str | None]:
    """(operation to add, warning) for an input only optional ports read."""
    if knowledge.datatypes[f.datatype].config_provided:
        return None, None  # a reference (an id mapping) is wired where a step needs it
    readers = [knowledge.operations[op_id] for op_id in readers_accepting(knowledge, f.datatype)]
    if not readers:  # given, and no step reads it (a StringTie assembly beside a counting request): said, not dropped
        return None, (f"{f.path} ({f.datatype}) is not used: no step bioplan runs reads "
                      f"{knowledge.datatypes[f.datatype].label.lower()}")
    if any(not p.optional and is_subtype(knowledge, f.datatype, p.datatype)
                          for op in readers for p in op.inputs.values()):
        return None, None  # a file some step needs: the planner places it
    if any(op.id in anchors or op.id in refused for op in readers):
        return None, None
    usable = [op for op in readers
              if all(any(is_subtype(knowledge, g, p.datatype) for g in given)
                     for p in op.inputs.values() if not p.optional)]
    if usable:
        return usable[0].id, f"{f.path} ({f.datatype}) is read only by {usable[0].label.lower()}: the step is added"
    return None, (f"{f.path} ({f.datatype}) is not used: only " + ", ".join(op.label.lower() for op in readers)
                  + " reads it, and the inputs give no data for it")


def add_optional_input_readers(draft: SpecDraft) -> SpecDraft:
    """Operations to add because an input can only serve as their optional input (an adapter FASTA:
    trimming), when the other inputs can feed them and the request does not refuse the step ("do
    not trim"); an input nothing can read is said to be unused."""
    refused = {m.id for m in draft.request.matches if m.kind == "operation" and m.negated}
    given = {f.datatype for f in draft.files}
    found = [_optional_reader(draft.knowledge, f, given, draft.anchors, refused) for f in draft.files]
    return draft.warn(*(note for _, note in found if note)).with_anchors(*(op for op, _ in found if op))


def _gene_ids(knowledge: Knowledge, datatype: str) -> str | None:
    dt = knowledge.datatypes.get(datatype)
    return dt.gene_ids if dt else None


def _namespace(knowledge: Knowledge, files: tuple[SniffedFile, ...], side: str) -> str | None:
    """The first known gene id namespace of the inputs on one side of a gene-set comparison
    (datatypes.yaml `gene_ids`: "genes" or "gene_sets")."""
    return next((f.fact("id_namespace") for f in files if _gene_ids(knowledge, f.datatype) == side
                 and f.fact("id_namespace") not in (None, "unknown")), None)


def _gene_set_notes(knowledge: Knowledge, anchors: tuple[str, ...], gene_ns: str, set_ns: str
                    ) -> tuple[str | None, list[str]]:
    """(conversion operation to add, warnings) when the gene sets and the data use different ids."""
    set_readers = [op for op in (knowledge.operations[a] for a in anchors)
                   if any(_gene_ids(knowledge, p.datatype) == "gene_sets" for p in op.inputs.values())]
    converter = [op for op in knowledge.operations.values()
                 if any(knowledge.datatypes[p.datatype].id_namespace == set_ns for p in op.outputs.values())]
    if not (set_readers and converter):
        return None, []
    conv = converter[0]
    # the conversion helps only a step whose gene input its output can be (a gene list for
    # over-representation); a ranked list for GSEA is not a gene list it converts
    fed = [op for op in set_readers if any(is_subtype(knowledge, o.datatype, p.datatype)
                                           for o in conv.outputs.values() for p in op.inputs.values()
                                           if _gene_ids(knowledge, p.datatype) != "gene_sets")]
    added = conv.id if fed and conv.id not in anchors else None
    notes = [f"the gene sets use {set_ns} ids and the data {gene_ns} ids: {conv.id} converts the genes before "
             "enrichment"] if added else []
    notes += [f"the gene sets use {set_ns} ids and the data {gene_ns} ids: {op.label} matches genes by id, so "
              f"give gene sets in {gene_ns} ids (or data in {set_ns} ids)" for op in set_readers if op not in fed]
    return added, notes


def convert_gene_namespaces(draft: SpecDraft) -> SpecDraft:
    """Gene ids: enrichment compares the gene list with the library's sets, so both must be in one
    namespace; a library in Entrez ids with data in another namespace needs the id conversion."""
    gene_ns = _namespace(draft.knowledge, draft.files, "genes")
    set_ns = _namespace(draft.knowledge, draft.files, "gene_sets")
    draft = replace(draft, gene_namespace=gene_ns, gene_set_namespace=set_ns)
    if not (gene_ns and set_ns and gene_ns != set_ns):
        return draft
    added, notes = _gene_set_notes(draft.knowledge, draft.anchors, gene_ns, set_ns)
    return draft.warn(*notes).with_anchors(*([added] if added else []))


def add_implied_constraints(draft: SpecDraft) -> SpecDraft:
    """Data constraints the chosen operations require are in force too."""
    implied = [c for a in draft.anchors for c in draft.knowledge.operations[a].requires]
    return replace(draft, constraint_ids=draft.constraint_ids
                   + tuple(c for c in dict.fromkeys(implied) if c not in draft.constraint_ids))
