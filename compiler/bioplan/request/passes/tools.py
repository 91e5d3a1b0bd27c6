"""The named-tools pass: tools the request names become preferred tools, and their operations
anchors; a tool named for a step it does not do is refused (or, with --substitute, a deviation)."""

from __future__ import annotations

import re
from dataclasses import replace

from bioplan.errors import ConstraintViolationError, UnknownToolError
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype
from bioplan.models import Match, Request
from bioplan.request.lexicon import normalize
from bioplan.request.passes.draft import SpecDraft
from bioplan.request.passes.shape import feeds, leads_to
from bioplan.request.passes.target import follows_source_marker

_PIPELINE_JOIN = re.compile(r"\b(and|then|followed by)\b")

# between an operation's words and the tool named for it: "Removal of host reads (Kraken 2)",
# "remove host reads with Kraken2"
_ROLE_GAP = re.compile(r"\s*(?:[(\[,:]\s*|\s(?:with|using|by|via|through|in)\s+(?:the\s+)?)?")


def tools_in_other_roles(knowledge: Knowledge, request: Request) -> list[tuple[Match, str]]:
    """Tools the request names for a step (the operation's words right before the tool's name) that
    neither they nor their package siblings do, when the request asks nowhere for what they do:
    running them would plan a different analysis ("Removal of host reads (Kraken 2)")."""
    ops = [m for m in request.matches if m.kind == "operation" and not m.negated]
    asked = {o for m in ops for o in (m.id, *m.alternatives)}
    # an operation making the asked one's data by another route does it too: "call variants with
    # DeepVariant" is DeepVariant's per-sample GVCF calling (`superseded_by` in operations.yaml)
    asked |= {s for o in asked for s in knowledge.operations[o].superseded_by}
    out = []
    for t in request.matches:
        if t.kind != "tool" or t.negated or t.offered_beside:
            continue
        does = {knowledge.tools[x].implements for x in (t.id, *t.alternatives)} | _package_operations(knowledge, t.id)
        if does & asked or any(_names_its_operation(knowledge, op, t.text) for op in does):
            continue
        if _upstream_in_a_list(knowledge, request, t, does, asked):
            continue
        role = _step_named_before(knowledge, request, ops, t.start)
        if role is not None and not _same_step(knowledge, role.id, does):
            out.append((t, role.id))
    return out


def _same_step(knowledge: Knowledge, role: str, does: set[str]) -> bool:
    """The tool does the named step in a narrower reading (one EDAM operation, and the step's label inside its
    operation's: "RNA-seq alignment quality control"): "Alignment-QC (RSeQC, Preseq)" is RSeQC's RNA-seq
    alignment QC, not a different tool for generic alignment QC."""
    named = knowledge.operations[role]
    label = normalize(named.label)
    return bool(named.edam) and any(
        op != role and knowledge.operations[op].edam == named.edam
        and re.search(rf"(?<![a-z0-9]){re.escape(label)}$", normalize(knowledge.operations[op].label))
        for op in does if op in knowledge.operations)


def _upstream_in_a_list(knowledge: Knowledge, request: Request, tool: Match, does: set[str], asked: set[str]) -> bool:
    """The tool is one of the pipeline's tools named together with another that does an asked step,
    and its own step makes that step's input ("differential expression and pathway analysis using
    Rsubread and the edgeR quasi-likelihood pipeline": Rsubread's featureCounts counts the reads edgeR
    tests): it names an upstream step, not a different tool for the step named before it. The list is
    in the pipeline's order, joined by "and"/"then" (a comma list, "(SnpEff, SnpSift)", names one step's tools)."""
    others = [m for m in request.matches if m.kind == "tool" and not m.negated and m.start > tool.end
              and _PIPELINE_JOIN.search(request.normalized[tool.end:m.start])
              and {knowledge.tools[x].implements for x in (m.id, *m.alternatives)} & asked]
    return bool(others) and any(feeds(knowledge, op, a) for op in does for a in asked)


def _step_named_before(knowledge: Knowledge, request: Request, ops: list[Match], start: int) -> Match | None:
    """The operation whose words come right before `start` ("Host removal (Kraken2)"). A tool's name
    read as its operation is not a step's words but one more tool of a list, so the list's step is the
    one before the list ("Variant annotation (SnpEff, SnpSift)"), or none ("with FastQC, fastp")."""
    while True:
        before = [m for m in ops if m.end <= start and _ROLE_GAP.fullmatch(request.normalized[m.end:start])]
        if not before:
            return None
        if not _is_a_tool_name(knowledge, request, before[-1]):
            return before[-1]
        start = before[-1].start


def _is_a_tool_name(knowledge: Knowledge, request: Request, op: Match) -> bool:
    """The operation's words are the name of a tool matched on the same words ("FastQC")."""
    text = normalize(op.text)
    return any(m.kind == "tool" and (m.start, m.end) == (op.start, op.end)
               and text in {normalize(n) for x in (m.id, *m.alternatives)
                            for n in (knowledge.tools[x].name, x.replace("_", " ")) if n}
               for m in request.matches)


def _package_operations(knowledge: Knowledge, tool_id: str) -> frozenset[str]:
    """What the tools of the named tool's package (the same conda pins) do: MACS2 per replicate
    beside MACS2 callpeak."""
    return _operations_by_package(knowledge)[knowledge.tools[tool_id].software.conda]


_BY_PACKAGE: dict[str, dict[tuple[str, ...], frozenset[str]]] = {}


def _operations_by_package(knowledge: Knowledge) -> dict[tuple[str, ...], frozenset[str]]:
    """Conda pins -> what the tools with exactly those pins do; kept per knowledge (content hash): every spec with a
    named tool asked it of each tool (a sweep over all tools each)."""
    if knowledge.content_hash not in _BY_PACKAGE:
        by: dict[tuple[str, ...], set[str]] = {}
        for t in knowledge.tools.values():
            by.setdefault(t.software.conda, set()).add(t.implements)
        _BY_PACKAGE[knowledge.content_hash] = {conda: frozenset(ops) for conda, ops in by.items()}
    return _BY_PACKAGE[knowledge.content_hash]


def _names_its_operation(knowledge: Knowledge, op: str, text: str) -> bool:
    """The tool's name holds a name of its own operation ("GATK BaseRecalibrator": BaseRecalibrator
    is base recalibration): naming the tool asks for that step, whatever step's words precede it."""
    words = f" {normalize(text)} "
    return any(f" {normalize(a)} " in words for a in knowledge.operations[op].aliases.en)


def _own_names(knowledge: Knowledge, tool_id: str) -> set[str]:
    """A tool's id, name and aliases (not its package name), normalised."""
    tool = knowledge.tools[tool_id]
    return {normalize(w) for w in (tool.id.replace("_", " "), tool.name, *tool.aliases.en, *tool.aliases.zh)}


def format_named_tools(knowledge: Knowledge, request: Request, anchors: tuple[str, ...] = ()) -> list[str]:
    """Tools a datatype's words name through its format: "STAR index" is the genome index in STAR's
    format, so the one tool writing that format builds it (not the cheapest indexer). Data the request
    starts from is given, not made: the one tool of a requested step reading that format reads it ("align
    reads using my STAR index": STAR; "DMRs from my Bismark coverage files" runs no Bismark)."""
    out = []
    for m in request.matches:
        if m.kind != "datatype" or m.id not in knowledge.datatypes:
            continue
        text = normalize(m.text)
        given = follows_source_marker(request, m.start)
        for fmt in knowledge.datatypes[m.id].formats:
            if normalize(fmt) != text:
                continue
            if given:
                readers = [t.id for t in knowledge.tools.values() if t.implements in anchors
                           and any(p.format == fmt for p in t.inputs.values())]
                out += readers if len(readers) == 1 else []
                continue
            writers = [t.id for t in knowledge.tools.values()
                       if any(p.format == fmt for p in t.outputs.values())
                       and any(is_subtype(knowledge, p.datatype, m.id)
                               for p in knowledge.operations[t.implements].outputs.values())]
            # only a format named after its writer's package ("star_index", not "vcf") names the tool
            if len(writers) == 1 and any(normalize(n) in text.split() for n in
                                         (knowledge.tools[writers[0]].biotools or "", writers[0]) if n):
                out += writers
    return out


# what ends a clause (not a comma: "normalization (edgeR, DESeq2)" lists one step's tools): a tool named alone
# in its own clause ("normalise and run DESeq2") is no tool for another clause's step
_CLAUSE_END = re.compile(r"[;.]|\b(and|then|followed by|after that|afterwards)\b|然后|之后|接着|随后|最后|再")
# "testing between treated and control samples using DESeq2": the "and" of "between X and Y" joins the two compared
# groups, it ends no clause
_BETWEEN_AND = re.compile(r"\bbetween (?:[\w+-]+ ){1,3}(and)\b")
_NAMED_WITH = re.compile(r"\b(with|using|by|via|through|in)\b")


def _clause(request: Request, m: Match, kind: str) -> list[Match]:
    """The other matches of `kind` in the match's clause (between the marks that end a clause around it); a match
    across a mark ("peaks were then annotated", a phrase over the connective "then") is in the clauses on both sides."""
    text = request.normalized
    joining = {b.start(1) for b in _BETWEEN_AND.finditer(text)}
    ends = [e for e in _CLAUSE_END.finditer(text) if e.start() not in joining]
    start = max((e.end() for e in ends if e.end() <= m.start), default=0)
    end = next((e.start() for e in ends if e.start() >= m.end), len(text))
    return [o for o in request.matches if o.kind == kind and not o.negated and o is not m
            and start < o.end and o.start < end]


def _clause_steps(request: Request, m: Match) -> set[str]:
    """The operations named in the tool's clause."""
    return {o for op in _clause(request, m, "operation") for o in (op.id, *op.alternatives)}


def _sibling_for_a_named_step(knowledge: Knowledge, request: Request, m: Match, family: list[str]
                              ) -> tuple[list[str], set[str]]:
    """(the family's tools doing the step another tool's words name before it in the clause, "... with/using"
    the named one; those other tools): "VST with PyDESeq2" is PyDESeq2's VST, not DESeq2's VST beside
    PyDESeq2's test."""
    named = {t: x.id for x in _clause(request, m, "tool")
             if x.end <= m.start and _NAMED_WITH.search(request.normalized[x.end:m.start])
             for t in family if knowledge.tools[t].implements == knowledge.tools[x.id].implements}
    return list(named), set(named.values()) - set(named)


def _package_sibling(knowledge: Knowledge, request: Request, m: Match, anchors: tuple[str, ...]
                     ) -> tuple[str, set[str]]:
    """(the named tool, or the tool of the same package (same conda pins) that does a requested operation
    when the named one does none; the tools it stands in for). Not when the tool is named alone in its
    clause: "call peaks per sample with MACS2" is MACS2 per replicate; "normalise and run DESeq2" runs
    DESeq2 (the test), not its VST; "VST with DESeq2" is DESeq2's VST, whatever tool the bare "VST" names."""
    tool = knowledge.tools[m.id]
    if tool.implements in anchors:
        return m.id, set()
    package = [t.id for t in knowledge.tools.values() if t.id != m.id and t.software.conda == tool.software.conda]
    others: set[str] = set()
    steps = _clause_steps(request, m)
    if steps:
        siblings = [t for t in package if knowledge.tools[t].implements in anchors]
        # "Alignment-QC (RSeQC)": the sibling doing the clause's step in a narrower reading (`_same_step`)
        siblings = siblings or [t for t in (m.id, *package) if any(
            _same_step(knowledge, op, {knowledge.tools[t].implements}) for op in steps if op in knowledge.operations)]
    else:
        siblings, others = _sibling_for_a_named_step(knowledge, request, m, package)
    return (siblings[0], others) if len(siblings) == 1 else (m.id, set())


def preferred_tools(knowledge: Knowledge, request: Request, anchors: tuple[str, ...],
                    skip: set[tuple[int, int]]) -> tuple[list[str], list[str]]:
    """(tools the request names but those at `skip` spans, warnings). A name several tools share
    ("gseapy": enrich, prerank, marker enrichment) prefers those of them that do a requested
    operation and adds no operation."""
    out: list[str] = []
    notes: list[str] = []
    displaced: set[str] = set()
    for m in request.matches:
        if m.kind != "tool" or m.negated or m.offered_beside or (m.start, m.end) in skip:
            continue
        family = [m.id, *m.alternatives]
        if len(family) == 1:
            tool, others = _package_sibling(knowledge, request, m, anchors)
            out, displaced = out + [tool], displaced | others
            continue
        chosen = [t for t in family if knowledge.tools[t].implements in anchors]
        # not for another clause's step another named tool does: "DESeq2 normalization, then edgeR differential
        # expression" is DESeq2's VST, not DESeq2's test beside the edgeR named for it
        chosen = [t for t in chosen if knowledge.tools[t].implements in _clause_steps(request, m)
                  or knowledge.tools[t].implements not in _named_elsewhere(knowledge, request, m)] or chosen
        # "Alignment-QC (RSeQC)": the one of them doing the clause's step in a narrower reading (`_same_step`)
        chosen = chosen or [t for t in family if any(_same_step(knowledge, op, {knowledge.tools[t].implements})
                                                     for op in _clause_steps(request, m) if op in knowledge.operations)]
        alone = not chosen and not _clause_steps(request, m)
        if alone:  # "VST with DESeq2": the step another tool's words in the clause name
            chosen, others = _sibling_for_a_named_step(knowledge, request, m, family)
            displaced |= others
        # a package name ("star", "samtools") with none of its operations requested means the
        # tool that carries the name itself ("STAR" the aligner, not its index builder)
        own = [t for t in family if normalize(m.text) in _own_names(knowledge, t)]
        # a name one of them carries itself ("MACS2" beside the shared package name "macs") means that one
        own_chosen = [t for t in chosen if normalize(m.text) in _own_names(knowledge, t)]
        if chosen and len(own) == 1 and own[0] not in chosen and not alone and not _clause_steps(request, m):
            # named alone in its own clause, the name is its own tool, not a sibling for another clause's
            # step ("normalise and run DESeq2": DESeq2's test, beside the normalisation)
            out += own
        elif chosen:
            out += own_chosen if len(own_chosen) == 1 else chosen
        elif len(own) == 1:
            out += own
        else:
            notes.append(f"'{m.text}' names several tools ({', '.join(family)}) and none does a requested "
                         "operation; it was not used")
    out += format_named_tools(knowledge, request, anchors)
    return [t for t in dict.fromkeys(out) if t not in request.excluded_tools and t not in displaced], notes


def _named_elsewhere(knowledge: Knowledge, request: Request, m: Match) -> set[str]:
    """The operations the request's other named tools do."""
    return {knowledge.tools[x].implements for o in request.matches
            if o.kind == "tool" and o is not m and not o.negated and o.id != m.id for x in (o.id, *o.alternatives)}


def _misplaced_error(knowledge: Knowledge, misplaced: list[tuple[Match, str]]) -> UnknownToolError:
    def line(t: Match, op: str) -> str:
        label = knowledge.operations[op].label.lower()
        has_it_for = sorted({knowledge.operations[knowledge.tools[x].implements].label.lower()
                             for x in (t.id, *t.alternatives)})
        own = sorted(x.name for x in knowledge.tools_for(op))
        return (f"'{t.text}' names {knowledge.tools[t.id].name} for {label}, but bioplan has it only for "
                + " / ".join(has_it_for) + (f"; bioplan does {label} with " + ", ".join(own) if own else ""))

    return UnknownToolError(
        "; ".join(line(t, op) for t, op in misplaced),
        ["to run bioplan's own tool for that step instead, pass --substitute (compile's output, the plan "
         "report and the emitted README will say so)",
         "to run the named tool for what bioplan has it for, name that analysis in the request"],
        {"tools": {t.id: {"text": t.text, "role": op} for t, op in misplaced}})


def _named_motif_tools(knowledge: Knowledge, request: Request, anchors: tuple[str, ...],
                       preferred: list[str]) -> list[str]:
    """The tools of a pipeline the request names by its name ("the GATK best practices": HaplotypeCaller), for
    its requested operations the request names no tool of its own for."""
    own = {knowledge.tools[t].implements for t in preferred}
    named = dict.fromkeys(m.id for m in request.matches if m.kind == "motif" and not m.negated)
    return list(dict.fromkeys(tool for motif in named for op, tool in knowledge.motifs[motif].tools.items()
                              if op in anchors and op not in own and tool not in request.excluded_tools))


def bind_named_tools(draft: SpecDraft) -> SpecDraft:
    """Tools the request names (and successors of named tools bioplan lacks) are preferred and their
    operations anchors; a tool named for a step it does not do is unknown_tool unless --substitute."""
    knowledge, request = draft.knowledge, draft.request
    misplaced = tools_in_other_roles(knowledge, request)
    if misplaced and not draft.substitute:
        raise _misplaced_error(knowledge, misplaced)
    draft = draft.deviate(*(f"substituted: '{t.text}' names {knowledge.tools[t.id].name} for "
                            f"{knowledge.operations[op].label.lower()}, which bioplan does with its own tool "
                            "instead (--substitute)" for t, op in misplaced))
    preferred, notes = preferred_tools(knowledge, request, draft.anchors, skip={(t.start, t.end) for t, _ in misplaced})
    engines = {t: w for t in preferred if (w := _engine_of(knowledge, preferred, t))}
    notes += [f"{knowledge.tools[t].name} runs inside {w} (its engine), not as a step of its own"
              for t, w in engines.items()]
    preferred = [t for t in preferred if t not in engines]
    preferred += [t for t in draft.successors if t not in preferred and t not in request.excluded_tools]
    preferred += _named_motif_tools(knowledge, request, draft.anchors, preferred)
    for t in preferred:
        _refuse_unfit_reads(draft, t)
    draft = draft.warn(*notes).with_anchors(*(knowledge.tools[t].implements for t in preferred))
    return replace(draft, preferred=tuple(preferred))


def _engine_of(knowledge: Knowledge, preferred: list[str], tool_id: str) -> str | None:
    """The named tool that runs `tool_id` inside it, by its aliases, for assays `tool_id` is not for ("Bismark
    ... indexed using bowtie2": Bismark's aliases say "bismark bowtie2", and Bowtie2 is not for bisulfite
    reads), or None: the engine adds no step (nor its operation) of its own."""
    engine = normalize(knowledge.tools[tool_id].name).split()[0]
    own = set(_assays_supported(knowledge, tool_id))
    for t in preferred:
        tool = knowledge.tools[t]
        assays = set(_assays_supported(knowledge, t))
        if t != tool_id and own and assays and not assays & own and any(
                engine in normalize(a).split()[1:] for a in tool.aliases.en):
            return tool.name
    return None


def _refuse_unsaid_platform(draft: SpecDraft, tool_id: str) -> None:
    """Without read files, a named tool for reads of a platform (minimap2: long reads, whose platform the
    library constraints' `decided_by` reads) needs the request to say such reads: "read mapping with minimap2"
    alone may mean short reads (nf-core/crisprseq maps amplicons with it), which bioplan's minimap2 is not for."""
    knowledge, request = draft.knowledge, draft.request
    op = knowledge.operations[knowledge.tools[tool_id].implements]
    # reads only (per-sample data): a set of sequences' alphabet is a library constraint too (FastTree's models)
    for port in (p for p in op.inputs.values() if not p.optional and knowledge.datatypes[p.datatype].scope == "sample"):
        platforms = [c for c in knowledge.constraints.values()
                     if c.kind == "library" and c.decided_by and port.datatype in c.decided_by.datatypes]
        if not platforms or port.datatype in request.datatypes or any(c.id in request.constraints for c in platforms):
            continue
        label = knowledge.datatypes[port.datatype].label.lower()
        raise UnknownToolError(
            f"{knowledge.tools[tool_id].name} is in bioplan for {label} only "
            f"({', '.join(c.label for c in platforms)}), and the request gives no such reads nor says them",
            [f"give the {label} FASTQ files (-i FILE), or say the platform (e.g. '{platforms[0].label}')",
             "for short reads, name a short-read tool or leave the tool out"],
            {"tool": tool_id, "datatype": port.datatype})


def _refuse_unfit_reads(draft: SpecDraft, tool_id: str) -> None:
    """A named tool whose per-sample input no given per-sample file leads to, where another tool makes the
    same result from those files ("align the Nanopore reads with bwa": BWA reads short reads; minimap2 is the
    aligner for long reads), is refused by name, saying why and which tool to use."""
    knowledge = draft.knowledge
    op = knowledge.operations[knowledge.tools[tool_id].implements]
    per_sample = [f for f in draft.files if f.datatype in knowledge.datatypes
                  and knowledge.datatypes[f.datatype].scope == "sample"]
    if not per_sample:
        _refuse_unsaid_platform(draft, tool_id)
    ports = [p for p in op.inputs.values() if not p.optional and knowledge.datatypes[p.datatype].scope == "sample"]
    for port in ports:
        if not per_sample or any(leads_to(knowledge, f.datatype, port.datatype) for f in per_sample):
            continue
        given = {f.datatype for f in per_sample}
        outs = {p.datatype for p in op.outputs.values()}
        fit = sorted(t.name for t in knowledge.tools.values() for o in [knowledge.operations[t.implements]]
                     if outs & {p.datatype for p in o.outputs.values()}
                     and given & {p.datatype for p in o.inputs.values()})
        if not fit:
            continue
        kinds = ", ".join(knowledge.datatypes[d].label.lower() for d in sorted(given))
        raise ConstraintViolationError(
            f"{knowledge.tools[tool_id].name} cannot read the given reads: its {op.label.lower()} takes"
            f" {knowledge.datatypes[port.datatype].label.lower()}, and "
            f"{', '.join(f.path for f in per_sample[:3])} hold {kinds}",
            [f"use {' or '.join(fit)}, the tool for {kinds} (name it, or leave the tool out)"],
            {"tool": tool_id, "inputs": sorted(given), "use": fit})


def refuse_tools_outside_the_assay(draft: SpecDraft) -> SpecDraft:
    """A named tool bioplan has only for other assays (its `supports`) than the request's ("align the RNA-seq
    reads with BWA": BWA and Bowtie2 are not splice-aware, bioplan runs them on DNA reads) is refused by name,
    saying which tools of that step fit; with --substitute the step runs one of them, said as a deviation.
    Before, the planner left the tool out and bound another without a word."""
    knowledge, assay = draft.knowledge, draft.constraints.get("assay")
    if assay not in knowledge.constraints:
        return draft
    unfit = [t for t in draft.preferred if _assays_supported(knowledge, t) and assay not in knowledge.tools[t].supports]
    inside = {t: w for t in unfit if (w := _wrapping_tool(knowledge, draft.preferred, t, assay))}
    draft = draft.warn(*(f"{knowledge.tools[t].name} runs inside {w} (its engine), not as a step of its own"
                         for t, w in inside.items()))
    unfit = [t for t in unfit if t not in inside]
    if not unfit:
        return draft
    label = knowledge.constraints[assay].label
    notes = []
    for t in unfit:
        tool = knowledge.tools[t]
        fit = sorted(o.name for o in knowledge.tools.values() if o.implements == tool.implements
                     and (not _assays_supported(knowledge, o.id) or assay in o.supports))
        supported = ", ".join(knowledge.constraints[c].label for c in _assays_supported(knowledge, t))
        if not draft.substitute:
            raise UnknownToolError(
                f"{tool.name} is in bioplan for {supported} only, not for {label}",
                [f"use {' or '.join(fit)} for {knowledge.operations[tool.implements].label.lower()} of {label}"
                 if fit else f"bioplan has no tool for this step of {label}",
                 "or pass --substitute to plan bioplan's own tool for the step (said in the report)"],
                {"tool": t, "assay": assay, "use": fit})
        notes.append(f"substituted: {tool.name} is in bioplan for {supported} only; "
                     f"{knowledge.operations[tool.implements].label.lower()} of {label} runs "
                     f"{' or '.join(fit) or 'no tool'} instead (--substitute)")
    return replace(draft.deviate(*notes), preferred=tuple(t for t in draft.preferred if t not in unfit))


def _assays_supported(knowledge: Knowledge, tool_id: str) -> list[str]:
    return [c for c in knowledge.tools[tool_id].supports
            if c in knowledge.constraints and knowledge.constraints[c].kind == "assay"]


def _wrapping_tool(knowledge: Knowledge, preferred: tuple[str, ...], tool_id: str, assay: str) -> str | None:
    """The named tool of the request's assay that runs `tool_id` inside it, by its aliases ("Bismark ... indexed
    using bowtie2": Bismark's aliases say "bismark bowtie2"), or None."""
    engine = normalize(knowledge.tools[tool_id].name).split()[0]
    for t in preferred:
        tool = knowledge.tools[t]
        if t != tool_id and assay in tool.supports and any(
                engine in normalize(a).split()[1:] for a in tool.aliases.en):
            return tool.name
    return None
