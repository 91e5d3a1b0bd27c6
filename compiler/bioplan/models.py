"""The frozen models that flow between stages.

    Request (parse) + InputProfile (sniff) -> TaskSpec (spec) -> [Plan] (search, rank)
    -> Plan with tools (bind) -> Workflow (synthesize, codegen/ir.py) -> files (emit)

Every model is frozen: a stage never mutates its input, it returns a new value.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bioplan import DEFAULT_MAX_HOPS


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


# --------------------------------------------------------------------------- parse


MatchKind = Literal["operation", "datatype", "constraint", "tool", "format", "motif", "phrase"]
Language = Literal["en", "zh", "mixed"]


class Match(Frozen):
    """One recognised term of the request, with the span it came from (evidence)."""

    kind: MatchKind
    id: str
    text: str  # the words of the request that matched
    start: int
    end: int
    how: Literal["exact", "alias", "fuzzy", "phrase", "build"] = "alias"
    score: float = 1.0
    negated: bool = False  # "not edgeR", "不要 edgeR"
    # a tool offered as an alternative to one named before it for the same kind of step ("DADA2;
    # alternatives are Kraken2"): the tool named first, which runs; the offered one is no preference.
    # On an operation ("alignment or pseudoalignment"): the words of the step named first, which runs
    offered_beside: str | None = None
    # other ids of the same kind whose aliases match exactly these words ("QC", "normalize"):
    # the spec stage picks the one that fits the assay and inputs
    alternatives: tuple[str, ...] = ()


SpanRole = Literal["operation", "tool", "datatype", "format", "constraint", "organism", "build", "group", "motif",
                   "file_name", "unknown_tool", "unsupported_analysis", "setting", "filler", "unrecognized"]


class Span(Frozen):
    """What one span of the normalised request became: the parse accounts for every word."""

    text: str
    start: int
    end: int
    role: SpanRole
    id: str | None = None  # the term's id (operation, tool, constraint, ...), or None for filler/unrecognised


class AbsentTerm(Frozen):
    """A tool or analysis family the lexicon knows of but the knowledge base cannot run yet."""

    kind: Literal["tool", "analysis", "setting"]
    id: str  # the lexicon entry's id (e.g. "kallisto", "fusion_detection", "significance_threshold")
    text: str
    start: int
    end: int
    negated: bool = False  # "without MetaPhlAn"
    # offered beside a tool of the knowledge for the same operation ("Salmon or Kallisto")
    alternative_to: str | None = None


class Request(Frozen):
    query: str
    normalized: str
    language: Language
    matches: tuple[Match, ...] = ()
    operations: tuple[str, ...] = ()  # in order of mention
    datatypes: tuple[str, ...] = ()  # mentioned datatypes (inputs or targets, decided by spec)
    constraints: tuple[str, ...] = ()
    preferred_tools: tuple[str, ...] = ()
    excluded_tools: tuple[str, ...] = ()
    output_format: str | None = None
    unrecognized: tuple[str, ...] = ()  # content words nothing matched (for "did you mean")
    spans: tuple[Span, ...] = ()  # every word of the request and what it became
    absent: tuple[AbsentTerm, ...] = ()  # named tools / analyses bioplan lacks
    # instruction clauses none of whose content words were understood (the words of each)
    unmatched_clauses: tuple[tuple[str, ...], ...] = ()


# --------------------------------------------------------------------------- sniff


class Fact(Frozen):
    """A finding about an input file, with the evidence for it."""

    name: str  # e.g. "integer_counts", "id_namespace", "organism", "paired_mate", "replicates"
    value: Any
    evidence: str


class SniffedFile(Frozen):
    path: str  # as the user gave it
    datatype: str  # datatype id
    format: str  # format id of ontology/formats.yaml
    evidence: tuple[str, ...] = ()
    facts: tuple[Fact, ...] = ()
    # For FASTQ: sample name and mate (1/2/None) inferred from the file name / read ids.
    sample: str | None = None
    mate: int | None = None

    def fact(self, name: str, default: Any = None) -> Any:
        for f in self.facts:
            if f.name == name:
                return f.value
        return default


class InputProfile(Frozen):
    files: tuple[SniffedFile, ...] = ()
    warnings: tuple[str, ...] = ()


# --------------------------------------------------------------------------- spec

WorkflowType = Literal["single_step", "linear", "multi_branch", "multi_branch_join"]


class TargetOutput(Frozen):
    semantic_type: str
    format: str | None = None


class SpecInput(Frozen):
    path: str
    datatype: str
    format: str
    evidence: tuple[str, ...] = ()
    sample: str | None = None
    mate: int | None = None
    # one of a sample's lanes (or re-runs): the sheet's `lane` column, the L001 of an Illumina name, else
    # the row order; a sample's lanes are merged before its first step (codegen/lanes.py)
    lane: str | None = None


class PatientSample(Frozen):
    """One sample of a tumour/normal cohort: the individual it comes from (the sample sheet's patient
    column, as nf-core/sarek's) and whether it is a tumour or the matched normal."""

    sample: str
    patient: str
    status: Literal["tumour", "normal"]


class RequestedSetting(Frozen):
    """A setting of the request that tools of the knowledge take ("FDR 0.01": alpha 0.01), read from its words."""

    id: str  # the lexicon setting's id
    text: str  # the request's words
    params: dict[str, dict[str, float | int | str]]  # tool id -> {param: value}


class TaskSpec(Frozen):
    query: str
    input_types: tuple[str, ...]
    inputs: tuple[SpecInput, ...] = ()
    target_output: TargetOutput
    constraints: dict[str, str] = Field(default_factory=dict)  # organism/assay/layout -> value
    constraint_ids: tuple[str, ...] = ()
    required_operations: tuple[str, ...] = ()
    preferred_tools: tuple[str, ...] = ()
    excluded_tools: tuple[str, ...] = ()
    # operations the request refuses ("without marking duplicates"): never planned
    excluded_operations: tuple[str, ...] = ()
    workflow_type: WorkflowType = "linear"
    # facts that hold on the data (e.g. counts are raw integers), keyed by constraint id
    data_facts: dict[str, bool] = Field(default_factory=dict)
    condition_column: str | None = None  # of the sample sheet, as sniffed
    # obs column of an input AnnData whose existing clustering the plan uses (markers per 'louvain')
    cluster_column: str | None = None
    # the samples of a tumour/normal cohort by patient (empty: one individual, or not a somatic study);
    # steps of one individual run once per patient (request/passes/individuals.py, codegen/passes.py)
    patients: tuple[PatientSample, ...] = ()
    # gene id namespaces seen in the inputs: of the expression data and of the gene set library
    gene_namespace: str | None = None
    gene_set_namespace: str | None = None
    warnings: tuple[str, ...] = ()
    evidence: tuple[Match, ...] = ()
    max_hops: int = DEFAULT_MAX_HOPS
    # content words of the request nothing understood (printed by plan and compile)
    unrecognized: tuple[str, ...] = ()
    # where the plan differs from what the request said, by the user's opt-in (--substitute,
    # --allow-partial): printed by compile, in the plan report and in the emitted README
    deviations: tuple[str, ...] = ()
    # settings the request gives that tools take (their params in the emitted config)
    settings: tuple[RequestedSetting, ...] = ()


# --------------------------------------------------------------------------- plan


class PlanStep(Frozen):
    id: str
    operation: str
    tool: str | None = None
    inputs: dict[str, str]  # port -> datatype
    outputs: dict[str, str]
    preconditions: tuple[str, ...] = ()
    # port -> producing step id, or "input:<path>" / "config:<datatype>"
    sources: dict[str, str] = Field(default_factory=dict)


class Pruned(Frozen):
    kind: Literal["operation", "tool", "plan", "datatype"]
    id: str
    reason: str


class Plan(Frozen):
    rank: int = 0
    score: float = 0.0
    cost: float = 0.0
    motif: str | None = None
    steps: tuple[PlanStep, ...]
    edges: tuple[tuple[str, str], ...]
    config_inputs: tuple[str, ...] = ()  # reference datatypes the user supplies through config
    score_terms: dict[str, float] = Field(default_factory=dict)
    depth: int = 0


def topological_order(steps: list[PlanStep]) -> list[str]:
    """Step ids with every producer before its consumers (ties by id, so the order is stable)."""
    ids = [s.id for s in steps]
    deps = {s.id: {src for src in s.sources.values() if src in ids} for s in steps}
    order: list[str] = []
    while len(order) < len(ids):
        ready = sorted(i for i in ids if i not in order and deps[i] <= set(order))
        if not ready:
            raise AssertionError("plan has a cycle")  # the search never builds one
        order.append(ready[0])
    return order


class PlanResult(Frozen):
    spec: TaskSpec
    anchors: tuple[str, ...]
    plans: tuple[Plan, ...]
    pruned: tuple[Pruned, ...] = ()
    warnings: tuple[str, ...] = ()
