"""Spec stage: Request + InputProfile -> TaskSpec.

Decides input datatypes, the target, constraints in force, required operations
(anchors) and the workflow type. Where the request and the files disagree
(organism, layout), it raises an error that names both sides; it never picks
one silently.
"""

from __future__ import annotations

import re
from collections import Counter

from bioplan.errors import (
    AmbiguousInputError,
    ConstraintViolationError,
    NoOperationRecognizedError,
    PartiallyUnderstoodError,
    UnknownToolError,
    UnsupportedAnalysisError,
)
from bioplan.knowledge.models import Knowledge
from bioplan.models import InputProfile, Match, Request, SpecInput, TargetOutput, TaskSpec
from bioplan.planner.graph import is_subtype
from bioplan.request.lexicon import is_cjk, lexicon_words, normalize
from bioplan.request.parse import parse_request, suggestions


def _feeds(knowledge: Knowledge, src_op: str, dst_op: str, limit: int = 10) -> bool:
    """True if some output of src_op can reach an input of dst_op through the graph."""
    frontier = [p.datatype for p in knowledge.operations[src_op].outputs.values()]
    seen: set[str] = set()
    for _ in range(limit):
        nxt = []
        for d in frontier:
            if d in seen:
                continue
            seen.add(d)
            for op in knowledge.operations.values():
                if any(is_subtype(knowledge, d, p.datatype) for p in op.inputs.values()):
                    if op.id == dst_op:
                        return True
                    nxt += [p.datatype for p in op.outputs.values()]
        frontier = nxt
    return False


def _is_conversion(knowledge: Knowledge, op_id: str) -> bool:
    """One input and one output of the same datatype (a format conversion: CSV export, GFF3 -> GTF)."""
    op = knowledge.operations[op_id]
    ins = [p.datatype for p in op.inputs.values() if not p.optional]
    outs = [p.datatype for p in op.outputs.values()]
    return len(ins) == 1 and ins == outs


def _sinks(knowledge: Knowledge, ops: list[str]) -> list[str]:
    return [a for a in ops if not any(b != a and _feeds(knowledge, a, b) for b in ops)]


def _workflow_type(knowledge: Knowledge, ops: list[str]) -> str:
    if len(ops) <= 1:
        return "single_step"
    sinks = _sinks(knowledge, ops)
    joins = [b for b in ops if sum(1 for a in ops if a != b and _feeds(knowledge, a, b)
                                     and not any(c not in (a, b) and _feeds(knowledge, a, c) and _feeds(knowledge, c, b)
                                                 for c in ops)) >= 2]
    if joins:
        return "multi_branch_join"
    if len(sinks) > 1:
        return "multi_branch"
    return "linear"


def _genome_build(request: Request, files, organism: str | None, warnings: list[str]) -> dict[str, str]:
    """genome_build (and reference_names: chr when chr-prefixed names are wanted) from the builds the
    request names and those the inputs reveal; disagreement is an error (knowledge/references.py)."""
    from bioplan.knowledge.references import load_catalog, resolve_genome_build

    said = [(sp.text, sp.id or "") for sp in request.spans if sp.role == "build"]
    build_org, build, chr_names, notes = resolve_genome_build(load_catalog(), organism, said, list(files))
    warnings.extend(notes)
    found = {"genome_build": build} if build else {}
    if build and not organism and build_org:
        found["genome_build_organism"] = build_org
    if chr_names:
        found["reference_names"] = "chr"
    return found


def _organism_from_request(knowledge: Knowledge, request: Request) -> list[str]:
    return [c for c in request.constraints if knowledge.constraints[c].kind == "organism"]


def _single(kind: str, values: list[str], where: str) -> str | None:
    values = list(dict.fromkeys(values))
    if len(values) > 1:
        raise AmbiguousInputError(
            f"the {where} names more than one {kind}: {', '.join(values)}",
            [f"name one {kind}; bioplan plans one study at a time"],
            {kind: values},
        )
    return values[0] if values else None


_KNOWN_ROLES = frozenset({"operation", "tool", "datatype", "format", "motif"})
_ADD_TOOL = ("write ontology/tools/{id}.yaml (implements: {op}) and templates/snakemake/{id}.smk.j2 "
             "(and a Nextflow module), then run `bioplan check-knowledge`; see ontology/README.md")


def _quoted(texts) -> str:
    return ", ".join(f"'{t}'" for t in dict.fromkeys(texts))


def _honesty(request: Request, knowledge: Knowledge, substitute: bool, allow_partial: bool,
             anchors: list[str], successors: list[str]) -> list[str]:
    """Refuse what bioplan would otherwise plan differently from the request, unless the user
    opted in; returns the deviations to report (and adds substituted operations to anchors, and
    the successors of named tools, e.g. MACS3 for MACS2, to `successors`).

    Order: analyses bioplan does not do (unsupported_analysis), then tools it lacks
    (unknown_tool), then instructions it did not understand (partially_understood).
    """
    deviations: list[str] = []
    tools = {t.id: t for t in knowledge.lexicon.absent_tools}
    families = {f.id: f for f in knowledge.lexicon.unsupported_analyses}
    named = [a for a in request.absent if not a.negated and not a.alternative_to]
    for a in request.absent:
        if a.alternative_to and not a.negated:
            deviations.append(f"'{a.text}' ({tools[a.id].name}) was offered as an alternative: bioplan runs "
                              f"{knowledge.tools[a.alternative_to].name}")
    understood = any(sp.role in _KNOWN_ROLES for sp in request.spans)

    # ------------------------------------------------------------ analysis families
    asked: dict[str, list[str]] = {}
    for a in named:
        if a.kind == "analysis":
            asked.setdefault(a.id, []).append(a.text)
    for a in named:
        tool = tools[a.id] if a.kind == "tool" else None
        if tool and tool.analyses and (not tool.operations or any(f in asked for f in tool.analyses)):
            for f in tool.analyses:
                asked.setdefault(f, []).append(tool.name)
    if asked:
        labels = [f"{families[f].label} ({_quoted(texts)})" for f, texts in asked.items()]
        rest = bool(anchors) or any(a.kind == "tool" and tools[a.id].operations and not tools[a.id].analyses
                                    for a in named)
        if not (allow_partial and rest):
            hints = [families[f].instead for f in asked]
            if rest:
                hints.append("to plan only the rest of the request, pass --allow-partial (the plan and the "
                             "emitted README will say what was left out)")
            hints.append("to add the analysis: define its operations in ontology/operations.yaml and a tool in "
                         "ontology/tools/ (see ontology/README.md)")
            raise UnsupportedAnalysisError(
                "bioplan does not do " + "; ".join(labels) + " yet",
                hints, {"analyses": {f: list(dict.fromkeys(t)) for f, t in asked.items()}})
        deviations += [f"not done: {families[f].label} ({_quoted(texts)}): bioplan does not do it yet; "
                       f"{families[f].instead} (--allow-partial)" for f, texts in asked.items()]

    # ------------------------------------------------------------ tools bioplan lacks
    for a in dict((a.id, a) for a in named if a.kind == "tool").values():
        tool = tools[a.id]
        if tool.successor in knowledge.tools:
            successors.append(tool.successor)
            deviations.append(f"'{a.text}' names {tool.name}; its successor {knowledge.tools[tool.successor].name} "
                              "(same method) runs instead")
    missing = [a for a in named if a.kind == "tool" and tools[a.id].operations
               and tools[a.id].successor not in knowledge.tools
               and not any(f in asked for f in tools[a.id].analyses)]
    if missing and not substitute:
        lines, hints, details = [], [], {}
        for a in dict((a.id, a) for a in missing).values():
            tool = tools[a.id]
            ops = [knowledge.operations[o] for o in tool.operations]
            have = sorted({t.name for o in tool.operations for t in knowledge.tools_for(o)})
            lines.append(f"'{a.text}' names {tool.name}, which bioplan does not have; it does "
                         + " / ".join(o.label.lower() for o in ops)
                         + (", which bioplan runs with " + ", ".join(have) if have else ""))
            hints.append(f"to add {tool.name}: " + _ADD_TOOL.format(id=tool.id, op=tool.operations[0]))
            details[a.id] = {"text": a.text, "operations": list(tool.operations), "bioplan_tools": have}
        hints.insert(0, "to run bioplan's own tool instead, pass --substitute (compile's output, the plan "
                        "report and the emitted README will say so)")
        raise UnknownToolError("; ".join(lines), hints, {"tools": details})
    for a in dict((a.id, a) for a in missing).values():
        tool = tools[a.id]
        if not any(o in anchors for o in tool.operations):
            anchors.append(tool.operations[0])
        ops = [o for o in tool.operations if o in anchors] or [tool.operations[0]]
        deviations.append(f"substituted: '{a.text}' names {tool.name}, which bioplan does not have; "
                          + " / ".join(knowledge.operations[o].label.lower() for o in ops)
                          + " runs with bioplan's own tool instead (--substitute)")

    # ------------------------------------------------------------ instructions not understood
    if request.unmatched_clauses and understood:
        clauses = [" ".join(words) for words in request.unmatched_clauses]
        if not allow_partial:
            near = suggestions(tuple(w for words in request.unmatched_clauses for w in words), knowledge)
            hints = (["did you mean " + ", ".join(repr(n) for n in near) + "?"] if near else []) + [
                "rephrase the instruction with the name of an analysis (e.g. \"differential expression\", "
                "\"call variants\", \"cluster cells\")",
                "to plan only the understood part, pass --allow-partial (the plan and the emitted README will "
                "say what was left out)"]
            raise PartiallyUnderstoodError(
                "part of the request was not understood: " + _quoted(clauses)
                + "; planning the rest would drop it", hints, {"unrecognized": clauses})
        deviations += [f"not understood, left out: '{c}' (--allow-partial)" for c in clauses]
    return deviations


def build_spec(request: Request, profile: InputProfile, knowledge: Knowledge, max_hops: int = 8,
               substitute: bool = False, allow_partial: bool = False) -> TaskSpec:
    """`substitute`: plan a tool the request names but bioplan lacks with bioplan's own tool;
    `allow_partial`: plan what was understood when an analysis or instruction was not. Both
    opt-ins are recorded in `TaskSpec.deviations`."""
    warnings = list(profile.warnings)
    files = profile.files
    constraints: dict[str, str] = {}
    constraint_ids: list[str] = []
    data_facts: dict[str, bool] = {}

    # the inputs choose between readings of the words: phrases whose look-aheads ask for a
    # single-cell (or read, or variant) context see the assay and formats of the inputs too
    context = _input_context(knowledge, files)
    if context:
        request = parse_request(request.query, knowledge, context=context)

    # ------------------------------------------------------------ what bioplan lacks, first
    anchors = _resolve_ambiguous(knowledge, request, files)
    anchors, request = _drop_descriptions(knowledge, request, files, anchors, warnings)
    successors: list[str] = []
    deviations = _honesty(request, knowledge, substitute, allow_partial, anchors, successors)

    # ------------------------------------------------------------ organism
    req_org = _single("organism", _organism_from_request(knowledge, request), "request")
    file_orgs = {f.path: f.fact("organism") for f in files if f.fact("organism")}
    distinct_file_orgs = sorted(set(file_orgs.values()))
    if len(distinct_file_orgs) > 1:
        raise AmbiguousInputError(
            "the input files come from different organisms: "
            + "; ".join(f"{p}: {o}" for p, o in sorted(file_orgs.items())),
            ["give inputs of one organism"], {"organisms": file_orgs})
    file_org = distinct_file_orgs[0] if distinct_file_orgs else None
    if req_org and file_org and req_org != file_org:
        path = next(p for p, o in sorted(file_orgs.items()) if o == file_org)
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[req_org].label} ({req_org}) but {path} holds "
            f"{knowledge.constraints[file_org].label} gene ids ({file_org})",
            [f"correct the organism in the request, or give the {knowledge.constraints[req_org].label} files"],
            {"request": req_org, "files": file_orgs})
    organism = req_org or file_org
    if organism:
        constraints["organism"] = organism.removeprefix("organism_")
        constraint_ids.append(organism)
        if not req_org:
            warnings.append(f"organism {knowledge.constraints[organism].label} inferred from gene ids in the inputs")
    # ------------------------------------------------------------ genome build (references follow it)
    constraints.update(_genome_build(request, files, organism, warnings))

    # ------------------------------------------------------------ anchors and tools
    misplaced = _tools_in_other_roles(knowledge, request)
    if misplaced and not substitute:
        raise UnknownToolError(
            "; ".join(f"'{t.text}' names {knowledge.tools[t.id].name} for {knowledge.operations[op].label.lower()}, "
                      f"but bioplan has it only for "
                      + " / ".join(sorted({knowledge.operations[knowledge.tools[x].implements].label.lower()
                                           for x in (t.id, *t.alternatives)}))
                      + (f"; bioplan does {knowledge.operations[op].label.lower()} with "
                         + ", ".join(sorted(x.name for x in knowledge.tools_for(op))) if knowledge.tools_for(op) else "")
                      for t, op in misplaced),
            ["to run bioplan's own tool for that step instead, pass --substitute (compile's output, the plan "
             "report and the emitted README will say so)",
             "to run the named tool for what bioplan has it for, name that analysis in the request"],
            {"tools": {t.id: {"text": t.text, "role": op} for t, op in misplaced}})
    for t, op in misplaced:
        deviations.append(f"substituted: '{t.text}' names {knowledge.tools[t.id].name} for "
                          f"{knowledge.operations[op].label.lower()}, which bioplan does with its own tool "
                          "instead (--substitute)")
    preferred = _preferred_tools(knowledge, request, anchors, warnings, skip={(t.start, t.end) for t, _ in misplaced})
    preferred += [t for t in successors if t not in preferred and t not in request.excluded_tools]
    for tool_id in preferred:
        op = knowledge.tools[tool_id].implements
        if op not in anchors:
            anchors.append(op)
    anchors = _drop_done(knowledge, anchors, files, warnings)
    # a named tool of a step the data is past ("these salmon quantifications") is not wanted either
    preferred = [t for t in preferred if knowledge.tools[t].implements in anchors]
    anchors += _optional_input_readers(knowledge, request, anchors, files, warnings)

    # ------------------------------------------------------------ assay
    req_assays = [c for c in request.constraints if knowledge.constraints[c].kind == "assay"]
    assay = _single("assay", req_assays, "request")
    file_assay = _assay_of_files(knowledge, files)
    if assay and file_assay and assay != file_assay[0]:
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[assay].label} but {file_assay[1]} is "
            f"{knowledge.constraints[file_assay[0]].label} data",
            ["correct the assay in the request, or give the matching input files"],
            {"request": assay, "files": file_assay[0]})
    if assay is None:
        implied = [set(knowledge.operations[a].assays) for a in anchors if knowledge.operations[a].assays]
        common = set.intersection(*implied) if implied else set()
        if len(common) == 1:
            assay = next(iter(common))
            warnings.append(f"assay {assay} implied by the requested operations")
    if assay:
        constraints["assay"] = assay
        constraint_ids.append(assay)

    # ------------------------------------------------------------ layout
    req_layouts = [c for c in request.constraints if knowledge.constraints[c].kind == "layout"]
    req_layout = _single("library layout", req_layouts, "request")
    reads = [f for f in files if knowledge.datatypes.get(f.datatype) and knowledge.datatypes[f.datatype].mates]
    file_layout = None
    if reads:
        by_sample: dict[str, set] = {}
        for f in reads:
            by_sample.setdefault(f.sample or f.path, set()).add(f.mate)
        kinds = {"paired_end_reads" if mates == {1, 2} else "single_end_reads" if mates in ({None}, {1}) else "broken"
                 for mates in by_sample.values()}
        broken = sorted(s for s, m in by_sample.items() if m not in ({1, 2}, {None}, {1}))
        if broken or len(kinds) > 1:
            lonely = broken or sorted(s for s, m in by_sample.items() if m == {1})
            raise AmbiguousInputError(
                "the FASTQ files mix paired-end and single-end samples"
                + (f" or lack a mate: {', '.join(lonely)}" if lonely else ""),
                ["give both mates (_R1 and _R2) for every paired sample, or only single-end files"],
                {"samples": {s: sorted(str(x) for x in m) for s, m in by_sample.items()}})
        file_layout = kinds.pop()
    if req_layout and file_layout and req_layout != file_layout:
        raise ConstraintViolationError(
            f"the request says {knowledge.constraints[req_layout].label} but the FASTQ files are "
            f"{knowledge.constraints[file_layout].label}",
            ["correct the layout in the request or give the matching FASTQ files"],
            {"request": req_layout, "files": file_layout})
    layout = req_layout or file_layout
    if layout:
        constraints["layout"] = "paired" if layout == "paired_end_reads" else "single"
        constraint_ids.append(layout)

    # ------------------------------------------------------------ data facts from the files
    for f in files:
        if f.datatype in ("raw_count_matrix", "normalized_count_matrix") and f.fact("integer_counts") is not None:
            data_facts["requires_raw_integer_counts"] = bool(f.fact("integer_counts"))
        if f.datatype == "sample_metadata" and f.fact("min_replicates") is not None:
            data_facts["requires_replicates"] = int(f.fact("min_replicates")) >= 2
        if f.datatype.endswith("gene_list") and f.fact("id_namespace"):
            data_facts["requires_entrez_id"] = f.fact("id_namespace") == "entrez"
    for f in files:
        if f.datatype == "normalized_count_matrix" and "raw_count_matrix" in request.datatypes:
            warnings.append(f"the request mentions raw counts but {f.path} holds non-integer values "
                            "(normalized); it is treated as a normalized matrix")

    # ------------------------------------------------------------ inputs and target
    files, cluster_column = _existing_clustering(knowledge, request, anchors, files, warnings)
    input_types = list(dict.fromkeys(f.datatype for f in files))
    mentioned = [d for d in request.datatypes if d in knowledge.datatypes]
    target: str | None = None
    if anchors:
        # a format conversion ("export as CSV") writes whatever table the analysis makes: the
        # analysis names the target
        analyses = [a for a in anchors if not _is_conversion(knowledge, a)] or anchors
        sinks = _sinks(knowledge, analyses)
        sink = [a for a in analyses if a in sinks][-1]
        target = next(iter(knowledge.operations[sink].outputs.values())).datatype
    # the last mentioned datatype refines the target when it lies downstream of it
    # ("... then KEGG, as one merged table"); without anchors it is the target
    for d in reversed(mentioned):
        if d in input_types or any(is_subtype(knowledge, i, d) for i in input_types):
            continue
        if target is None or (d != target and _is_downstream(knowledge, target, d)):
            target = d
        break
    if target is not None and request.output_format:
        # a requested file format may need a conversion step (an operation from the target to itself)
        for op in knowledge.operations.values():
            if not _is_conversion(knowledge, op.id) or op.id in anchors:
                continue
            reads = next(p.datatype for p in op.inputs.values() if not p.optional)
            if is_subtype(knowledge, target, reads) and any(
                    tp.format == request.output_format for t in knowledge.tools_for(op.id) for tp in t.outputs.values()):
                anchors.append(op.id)
    if not files:
        # without files, mentioned datatypes that nothing requested produces are the inputs
        derived = {p.datatype for a in anchors for p in knowledge.operations[a].outputs.values()}
        # an anchor refining d (trimming: reads -> trimmed reads, a kind of reads) does not make d
        refines = {p.datatype: [q.datatype for q in knowledge.operations[a].inputs.values()]
                   for a in anchors for p in knowledge.operations[a].outputs.values()}
        sources = [d for d in mentioned if d != target and d not in derived
                   and not any(is_subtype(knowledge, x, d) and not any(is_subtype(knowledge, d, i) for i in refines[x])
                               for x in derived)]
        # plus what the first requested operations need that the mentioned data cannot give
        # ("PCA of my raw counts" also needs the sample sheet)
        needed = [d for d in _entry_inputs(knowledge, anchors)
                  if not any(_is_downstream(knowledge, src, d) or is_subtype(knowledge, src, d) for src in sources)]
        input_types = list(dict.fromkeys(sources + needed))
    if target is None:
        hints = []
        near = suggestions(request.unrecognized, knowledge)
        if near:
            hints.append("did you mean " + ", ".join(repr(n) for n in near) + "?")
        hints.append('name an analysis (e.g. "differential expression", "align reads", "cluster cells") '
                     'or the result you want (e.g. "a count matrix")')
        raise NoOperationRecognizedError(
            "no operation or result was recognised in the request"
            + (f" (unrecognised words: {', '.join(request.unrecognized[:6])})" if request.unrecognized else ""),
            hints, {"unrecognized": list(request.unrecognized)})
    if target in input_types and not anchors:
        raise NoOperationRecognizedError(
            f"the request asks for {target!r}, which is already an input; no operation was recognised",
            ["name the analysis to run on it"], {})

    # gene ids: enrichment compares the gene list with the library's sets, so both must be in one
    # namespace; a library in Entrez ids with data in another namespace needs the id conversion
    gene_ns = next((f.fact("id_namespace") for f in files if f.datatype in (
        "raw_count_matrix", "normalized_count_matrix", "differential_expression_table", "gene_symbol_list",
        "ensembl_gene_list", "significant_gene_list") and f.fact("id_namespace") not in (None, "unknown")), None)
    set_ns = next((f.fact("id_namespace") for f in files if f.datatype == "gene_set_library"
                   and f.fact("id_namespace") not in (None, "unknown")), None)
    set_readers = [knowledge.operations[a] for a in anchors
                   if any(p.datatype == "gene_set_library" for p in knowledge.operations[a].inputs.values())]
    converter = [op for op in knowledge.operations.values()
                 if any(knowledge.datatypes[p.datatype].id_namespace == set_ns for p in op.outputs.values())]
    if set_readers and gene_ns and set_ns and gene_ns != set_ns and converter:
        conv = converter[0]
        # the conversion helps only a step whose gene input its output can be (a gene list for
        # over-representation); a ranked list for GSEA is not a gene list it converts
        fed = [op for op in set_readers if any(is_subtype(knowledge, o.datatype, p.datatype)
                                               for o in conv.outputs.values() for p in op.inputs.values()
                                               if p.datatype != "gene_set_library")]
        if fed and conv.id not in anchors:
            anchors.append(conv.id)
            warnings.append(f"the gene sets use {set_ns} ids and the data {gene_ns} ids: "
                            f"{conv.id} converts the genes before enrichment")
        for op in set_readers:
            if op not in fed:
                warnings.append(f"the gene sets use {set_ns} ids and the data {gene_ns} ids: {op.label} matches "
                                f"genes by id, so give gene sets in {gene_ns} ids (or data in {set_ns} ids)")

    # data constraints implied by the chosen operations are in force too
    for a in anchors:
        for c in knowledge.operations[a].requires:
            if c not in constraint_ids:
                constraint_ids.append(c)

    output_format = request.output_format
    inputs = tuple(SpecInput(path=f.path, datatype=f.datatype, format=f.format, evidence=f.evidence,
                             sample=f.sample, mate=f.mate) for f in files)
    type_counts = Counter(f.datatype for f in files)
    for dt, n in sorted(type_counts.items()):
        if n > 1 and knowledge.datatypes[dt].scope == "cohort":
            raise AmbiguousInputError(
                f"{n} input files are {dt!r}: " + ", ".join(f.path for f in files if f.datatype == dt),
                ["give one file of this kind (it is shared by the whole study)"], {"datatype": dt})
    return TaskSpec(
        query=request.query,
        input_types=tuple(input_types),
        inputs=inputs,
        target_output=TargetOutput(semantic_type=target, format=output_format),
        constraints=constraints,
        constraint_ids=tuple(constraint_ids),
        required_operations=tuple(anchors),
        preferred_tools=tuple(preferred),
        excluded_tools=tuple(request.excluded_tools),
        workflow_type=_workflow_type(knowledge, anchors) if anchors else "linear",
        data_facts=data_facts,
        gene_namespace=gene_ns,
        gene_set_namespace=set_ns,
        condition_column=next((f.fact("condition_column") for f in files
                               if f.datatype == "sample_metadata" and f.fact("condition_column")), None),
        cluster_column=cluster_column,
        warnings=tuple(dict.fromkeys(warnings)),
        evidence=request.matches,
        max_hops=max_hops,
        unrecognized=request.unrecognized,
        deviations=tuple(deviations),
    )


# between an operation's words and the tool named for it: "Removal of host reads (Kraken 2)",
# "remove host reads with Kraken2"
_ROLE_GAP = re.compile(r"\s*(?:[(\[,:]\s*|\s(?:with|using|by|via|through|in)\s+(?:the\s+)?)?")


def _tools_in_other_roles(knowledge: Knowledge, request: Request) -> list[tuple[Match, str]]:
    """Tools the request names for a step (the operation's words right before the tool's name) that
    neither they nor their package siblings do, when the request asks nowhere for what they do:
    running them would plan a different analysis ("Removal of host reads (Kraken 2)")."""
    ops = [m for m in request.matches if m.kind == "operation" and not m.negated]
    asked = {o for m in ops for o in (m.id, *m.alternatives)}
    out = []
    for t in request.matches:
        if t.kind != "tool" or t.negated:
            continue
        family = (t.id, *t.alternatives)
        does = {knowledge.tools[x].implements for x in family}
        if does & asked:
            continue
        before = [m for m in ops if m.end <= t.start and _ROLE_GAP.fullmatch(request.normalized[m.end:t.start])]
        if before:
            out.append((t, before[-1].id))
    return out


def _preferred_tools(knowledge: Knowledge, request: Request, anchors: list[str], warnings: list[str],
                     skip: set[tuple[int, int]] = frozenset()) -> list[str]:
    """Tools the request names (but those at `skip` spans). A name several tools share ("gseapy":
    enrich, prerank, marker enrichment) prefers those of them that do a requested operation and adds
    no operation."""
    out: list[str] = []
    for m in request.matches:
        if m.kind != "tool" or m.negated or (m.start, m.end) in skip:
            continue
        family = [m.id, *m.alternatives]
        if len(family) == 1:
            out.append(m.id)
            continue
        chosen = [t for t in family if knowledge.tools[t].implements in anchors]
        # a package name ("star", "samtools") with none of its operations requested means the
        # tool that carries the name itself ("STAR" the aligner, not its index builder)
        own = [t for t in family if normalize(m.text) in _own_names(knowledge, t)]
        if chosen:
            out += chosen
        elif len(own) == 1:
            out += own
        else:
            warnings.append(f"'{m.text}' names several tools ({', '.join(family)}) and none does a requested "
                            "operation; it was not used")
    out += _format_named_tools(knowledge, request)
    return [t for t in dict.fromkeys(out) if t not in request.excluded_tools]


def _format_named_tools(knowledge: Knowledge, request: Request) -> list[str]:
    """Tools a datatype's words name through its format: "STAR index" is the genome index in STAR's
    format, so the one tool writing that format builds it (not the cheapest indexer)."""
    out = []
    for m in request.matches:
        if m.kind != "datatype" or m.id not in knowledge.datatypes:
            continue
        text = normalize(m.text)
        for fmt in knowledge.datatypes[m.id].formats:
            if normalize(fmt) != text:
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


def _own_names(knowledge: Knowledge, tool_id: str) -> set[str]:
    """A tool's id, name and aliases (not its package name), normalised."""
    tool = knowledge.tools[tool_id]
    return {normalize(w) for w in (tool.id.replace("_", " "), tool.name, *tool.aliases.en, *tool.aliases.zh)}


def _assay_of_files(knowledge: Knowledge, files) -> tuple[str, str] | None:
    """(assay, path) when an input's datatype belongs to one assay only: every operation that
    reads or makes it applies to that single assay (an AnnData matrix is single-cell data)."""
    for f in files:
        assays: set[tuple[str, ...]] = set()
        for op in knowledge.operations.values():
            ports = [*op.inputs.values(), *op.outputs.values()]
            if any(p.datatype == f.datatype for p in ports):
                assays.add(tuple(sorted(op.assays)))
        if len(assays) == 1:
            only = next(iter(assays))
            if len(only) == 1:
                return only[0], f.path
    return None


def _input_context(knowledge: Knowledge, files) -> str:
    """Words describing the inputs for the phrases' context look-aheads: the label of the one assay
    the inputs belong to and the formats of the files ("single cell rna seq h5ad")."""
    found = _assay_of_files(knowledge, files)
    words = [normalize(knowledge.constraints[found[0]].label)] if found else []
    words += [normalize(f.format) for f in files if f.format]
    return " ".join(dict.fromkeys(words))


def _context_assay(knowledge: Knowledge, request: Request, files) -> str | None:
    assays = [c for c in request.constraints if knowledge.constraints[c].kind == "assay"]
    if len(set(assays)) == 1:
        return assays[0]
    found = _assay_of_files(knowledge, files)
    if found:
        return found[0]
    # the tools named: "use scanpy ..." is single-cell whatever else the words could mean
    named = set()
    for m in request.matches:
        if m.kind == "tool" and not m.negated:
            ops = [knowledge.operations[knowledge.tools[t].implements] for t in (m.id, *m.alternatives)]
            if all(op.assays for op in ops):
                named.add(frozenset(a for op in ops for a in op.assays))
    return next(iter(next(iter(named)))) if len(named) == 1 and len(next(iter(named))) == 1 else None


def _resolve_ambiguous(knowledge: Knowledge, request: Request, files) -> list[str]:
    """Anchors from the request, with ambiguous words ("QC", "normalize") resolved by context.

    Of the operations one phrase can name, keep the one that fits the assay (said,
    or implied by the inputs) and whose inputs the given files can lead to.
    """
    assay = _context_assay(knowledge, request, files)
    input_types = [f.datatype for f in files]
    files_assay = _assay_of_files(knowledge, files)

    def fit(op_id: str) -> tuple[int, int]:
        op = knowledge.operations[op_id]
        # an operation for any assay fits as well as one for this assay; only a conflict is worse
        assay_fit = (1 if (not op.assays or assay in op.assays) else 0) if assay else 1
        reachable = 1 if not input_types or any(
            _is_downstream(knowledge, i, p.datatype) or is_subtype(knowledge, i, p.datatype)
            for i in input_types for p in op.inputs.values()) else 0
        return (assay_fit, reachable)

    def own_kind(op_id: str) -> int:
        """1 when the operation reads the inputs' own kind of data (a cell matrix beside an .h5ad)."""
        ins = [SpecInput(path="", datatype=p.datatype, format="")
               for p in knowledge.operations[op_id].inputs.values() if not p.optional]
        return 1 if files_assay and _assay_of_files(knowledge, ins) == (files_assay[0], "") else 0

    # readings of the same words: alternatives of one alias, and overlapping matches
    # (an alias "normalization" and a single-cell phrase around it)
    ops = [m for m in request.matches if m.kind == "operation" and not m.negated]
    groups: list[list] = []
    for m in ops:
        home = next((g for g in groups if any(m.start < o.end and o.start < m.end for o in g)), None)
        if home is None:
            groups.append([m])
        else:
            home.append(m)
    replace: dict[str, str] = {}
    for g in groups:
        options = list(dict.fromkeys([o for m in g for o in (m.id, *m.alternatives)]))
        if len(options) < 2:
            continue
        best = max(options, key=lambda o: (fit(o), o in [m.id for m in g], -options.index(o)))
        for o in options:
            # only a reading that fits the context worse gives way; equally fitting readings
            # of overlapping words are both meant ("preranked GSEA": ranking and GSEA)
            if fit(o) < fit(best):
                replace[o] = best
    # one word, several readings that fit alike ("QC": read QC or single-cell QC): the reading of the
    # inputs' own kind of data wins ("QC" beside an .h5ad is single-cell QC)
    same_words: dict[tuple[int, int], list[str]] = {}
    for m in ops:
        same_words.setdefault((m.start, m.end), []).extend([m.id, *m.alternatives])
    for options in same_words.values():
        options = list(dict.fromkeys(options))
        if len(options) < 2 or not files_assay:
            continue
        best = max(options, key=lambda o: (fit(o), own_kind(o)))
        for o in options:
            if o not in replace and fit(o) == fit(best) and own_kind(o) < own_kind(best):
                replace[o] = best
    out = [replace.get(op, op) for op in request.operations]
    return list(dict.fromkeys(out))


_CLAUSE_START = re.compile(r"[,.;:!?()，。；：！？]|\bthen\b|然后|并且")


def _instructed(knowledge: Knowledge, request: Request, m: Match) -> bool:
    """True if an instruction word ("annotate", "find", "做") stands before or in the words, in their
    clause ("call variants" is an instruction, "three cell types" is not)."""
    norm = request.normalized
    start = max([0] + [x.end() for x in _CLAUSE_START.finditer(norm, 0, m.start)])
    before = norm[start:m.end]
    words = lexicon_words(knowledge, "instruction_words")
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", before) if not is_cjk(w) else w in before
               for w in words)


def _drop_descriptions(knowledge: Knowledge, request: Request, files, anchors: list[str],
                       warnings: list[str]) -> tuple[list[str], Request]:
    """Operation words that describe the data rather than ask for a step: no instruction word before
    them in their clause, and the context rules the operation out -- the assay excludes it ("three cell
    types" in a ChIP-seq request), or it cannot run from the inputs while the rest of the request can
    ("NK细胞的标记基因" beside a gene list). Dropped with a warning; the same words stop naming a result."""
    assay = _context_assay(knowledge, request, files)
    input_types = [f.datatype for f in files]

    def runs_from_inputs(op_id: str) -> bool:
        return any(_is_downstream(knowledge, i, p.datatype) or is_subtype(knowledge, i, p.datatype)
                   for i in input_types for p in knowledge.operations[op_id].inputs.values() if not p.optional)

    dropped: dict[str, list[Match]] = {}
    for a in anchors:
        op = knowledge.operations[a]
        ms = [m for m in request.matches if m.kind == "operation" and m.id == a and not m.negated]
        if not ms or any(_instructed(knowledge, request, m) for m in ms):
            continue
        excluded = bool(assay and op.assays and assay not in op.assays)
        cannot_run = bool(input_types) and not runs_from_inputs(a) and any(
            runs_from_inputs(b) for b in anchors if b != a) and not _done_already(knowledge, a, files)
        if excluded or cannot_run:
            dropped[a] = ms
    if not dropped or set(dropped) == set(anchors):
        # words that would leave nothing to run are the request itself: the planner's own error
        # (unsatisfiable, constraint_violation) then says why they cannot run here
        return anchors, request
    spans = [(m.start, m.end) for ms in dropped.values() for m in ms]
    for a, ms in dropped.items():
        why = (f"it applies to {', '.join(knowledge.operations[a].assays)} data, not {assay}"
               if assay and knowledge.operations[a].assays and assay not in knowledge.operations[a].assays
               else "it cannot start from the inputs")
        warnings.append(f"{_quoted(m.text for m in ms)} read as describing the data, not as "
                        f"{knowledge.operations[a].label.lower()} ({why}); to run it, ask for it as an "
                        f"instruction and give inputs it can start from")
    kept = [m for m in request.matches if not (m.kind in ("operation", "datatype") and (m.start, m.end) in spans)]
    request = request.model_copy(update={
        "matches": tuple(kept),
        "operations": tuple(o for o in request.operations if o not in dropped),
        "datatypes": tuple(d for d in request.datatypes if any(m.kind == "datatype" and m.id == d for m in kept))})
    return [a for a in anchors if a not in dropped], request


def _is_downstream(knowledge: Knowledge, src: str, dst: str, limit: int = 10) -> bool:
    """True if datatype dst can be derived from src by some chain of operations (or is src)."""
    if src == dst:
        return True
    frontier, seen = [src], set()
    for _ in range(limit):
        nxt = []
        for d in frontier:
            if d in seen:
                continue
            seen.add(d)
            for op in knowledge.operations.values():
                if any(is_subtype(knowledge, d, p.datatype) for p in op.inputs.values()):
                    for p in op.outputs.values():
                        if is_subtype(knowledge, p.datatype, dst):
                            return True
                        nxt.append(p.datatype)
        frontier = nxt
    return False


def _entry_inputs(knowledge: Knowledge, anchors: list[str]) -> list[str]:
    """Inputs a request without files must start from: the earliest anchors' non-reference inputs."""
    earliest = [a for a in anchors if not any(b != a and _feeds(knowledge, b, a) for b in anchors)]
    out = []
    for a in earliest:
        for p in knowledge.operations[a].inputs.values():
            dt = knowledge.datatypes[p.datatype]
            if p.optional or dt.config_provided or dt.scope == "reference":
                continue
            out.append(p.datatype)
    return list(dict.fromkeys(out))


_CLUSTERED = "clustered_single_cell_data"


def _existing_clustering(knowledge: Knowledge, request: Request, anchors: list[str], files,
                         warnings: list[str]) -> tuple[tuple, str | None]:
    """(files, obs column): a normalised AnnData that already holds a clustering (or cell labels) is the
    clustered data the requested steps read, when the request does not ask to cluster: marker genes per
    the existing 'louvain' clusters. A column the request names wins; else the first clustering, else
    the first label column. A request to cluster re-clusters (the file stays normalised data)."""
    makers = {op.id for op in knowledge.operations.values()
              if any(is_subtype(knowledge, p.datatype, _CLUSTERED) for p in op.outputs.values())}
    readers = [a for a in anchors if any(
        is_subtype(knowledge, _CLUSTERED, p.datatype) or _is_downstream(knowledge, _CLUSTERED, p.datatype)
        for p in knowledge.operations[a].inputs.values() if not p.optional)]
    if not readers or any(a in makers for a in anchors):
        return files, None
    out, column = [], None
    for f in files:
        groups = list(f.fact("cluster_columns") or []) + list(f.fact("label_columns") or [])
        if column or f.datatype != "normalized_single_cell_matrix" or not groups:
            out.append(f)
            continue
        said = [g for g in groups if re.search(rf"(?<![A-Za-z0-9_]){re.escape(g)}(?![A-Za-z0-9_])", request.query,
                                               re.IGNORECASE)]
        column = (said or groups)[0]
        why = ("the request names it" if said else
               "its existing clustering" if column in (f.fact("cluster_columns") or []) else "its cell labels")
        note = (f"{knowledge.operations[readers[0]].label} uses obs column '{column}' of {f.path} ({why}; groups "
                f"in the file: {', '.join(groups)}); to re-cluster, ask to cluster the cells")
        warnings.append(note)
        out.append(f.model_copy(update={"datatype": _CLUSTERED, "evidence": f.evidence + (note,)}))
    return tuple(out), column


def _optional_input_readers(knowledge: Knowledge, request: Request, anchors: list[str], files,
                            warnings: list[str]) -> list[str]:
    """Operations to add because an input can only serve as their optional input (an adapter FASTA:
    trimming), when the other inputs can feed them and the request does not refuse the step ("do
    not trim"); an input nothing can read is said to be unused."""
    refused = {m.id for m in request.matches if m.kind == "operation" and m.negated}
    added: list[str] = []
    given = {f.datatype for f in files}
    for f in files:
        if knowledge.datatypes[f.datatype].config_provided:
            continue  # a reference (an id mapping) is wired where a step needs it
        readers = [op for op in knowledge.operations.values()
                   if any(is_subtype(knowledge, f.datatype, p.datatype) for p in op.inputs.values())]
        if not readers or any(not p.optional and is_subtype(knowledge, f.datatype, p.datatype)
                              for op in readers for p in op.inputs.values()):
            continue  # a file some step needs: the planner places it
        usable = [op for op in readers
                  if all(any(is_subtype(knowledge, g, p.datatype) for g in given)
                         for p in op.inputs.values() if not p.optional)]
        if any(op.id in anchors or op.id in refused for op in readers):
            continue
        if usable:
            added.append(usable[0].id)
            warnings.append(f"{f.path} ({f.datatype}) is read only by {usable[0].label.lower()}: the step is added")
        else:
            warnings.append(f"{f.path} ({f.datatype}) is not used: only "
                            + ", ".join(op.label.lower() for op in readers) + " reads it, and the inputs give no "
                            "data for it")
    return [a for a in dict.fromkeys(added) if a not in anchors]


def _input_at_or_after(knowledge: Knowledge, out: str, input_types) -> str | None:
    """The input datatype that is `out` or lies after it on a chain of one-input, one-output steps
    (normalised cells lie after filtered cells), else None."""
    def single_step_successors(d: str) -> list[str]:
        return [p.datatype for op in knowledge.operations.values()
                if len([q for q in op.inputs.values() if not q.optional]) == 1 and len(op.outputs) == 1
                and any(is_subtype(knowledge, d, q.datatype) for q in op.inputs.values())
                for p in op.outputs.values()]

    frontier, seen = [out], set()
    while frontier:
        d = frontier.pop()
        hit = next((t for t in input_types if is_subtype(knowledge, t, d)), None)
        if hit:
            return hit
        if d not in seen:
            seen.add(d)
            frontier += single_step_successors(d)
    return None


def _reachable(knowledge: Knowledge, input_types: list[str]) -> set[str]:
    """Datatypes the inputs can lead to, each operation needing all its inputs (references the user
    may supply through config count as given): salmon outputs do not lead back to reads."""
    have = set(input_types) | {d for d, dt in knowledge.datatypes.items() if dt.config_provided}
    grew = True
    while grew:
        grew = False
        for op in knowledge.operations.values():
            needs = [p.datatype for p in op.inputs.values() if not p.optional]
            if all(any(is_subtype(knowledge, h, d) for h in have) for d in needs):
                new = {p.datatype for p in op.outputs.values()} - have
                if new:
                    have |= new
                    grew = True
    return have


def _done_already(knowledge: Knowledge, op_id: str, files) -> bool:
    """The inputs are already past this step (its result, or data after it, is an input): the step is
    asked for, not described, and `_drop_done` says why it is not run ("QC" beside normalised cells)."""
    types = [f.datatype for f in files]
    return any(_input_at_or_after(knowledge, p.datatype, types) for p in knowledge.operations[op_id].outputs.values())


def _drop_done(knowledge: Knowledge, anchors: list[str], files, warnings: list[str]) -> list[str]:
    """Anchors the inputs are already past: their result is an input ("salmon" with Salmon outputs), or an
    input lies after it on a chain of one-input steps ("QC, normalise, cluster" with normalised cells).
    Such a step cannot run (its own input cannot be made from the inputs) and need not: it is dropped,
    with a warning that says why and how to run it after all."""
    if not files:
        return anchors
    by_type = {f.datatype: f for f in files}

    def past(out: str) -> str | None:
        return _input_at_or_after(knowledge, out, by_type)

    reachable = _reachable(knowledge, list(by_type))
    kept = []
    for a in anchors:
        op = knowledge.operations[a]
        needs = [p.datatype for p in op.inputs.values() if not p.optional]
        runnable = all(any(is_subtype(knowledge, r, d) for r in reachable) for d in needs)
        hit = None if runnable else next((h for p in op.outputs.values() for h in [past(p.datatype)] if h), None)
        if hit is None:
            kept.append(a)
            continue
        f = by_type[hit]
        why = next((e for e in f.evidence if e.startswith("X is")), f"it is {hit}")
        warnings.append(f"{op.label} is not run: {f.path} is already past it ({why}); to run it, give the data "
                        f"it starts from ({', '.join(needs)})")
    return kept
