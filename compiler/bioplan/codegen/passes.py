"""The synthesize stage as a chain of small passes over a draft workflow (Plan with tools -> Workflow IR).

Each pass is a pure function `Draft -> Draft` that fills in one part of the workflow from the
plan, the task spec, the knowledge and what earlier passes decided; `PASSES` lists them in the
one order they run in (as sqlglot's optimizer RULES), and `synthesize` folds the draft through
them and freezes it into the `Workflow` IR. A pass reads only fields earlier passes filled.
`WORKFLOW_PASSES` then run on the frozen IR: steps every workflow of a kind gets whatever the
plan (SnpEff's database build, VCF compression, the MultiQC report; codegen/annotation_database.py,
codegen/vcf_outputs.py, codegen/qc_report.py).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from bioplan.codegen.annotation_database import build_annotation_databases
from bioplan.codegen.call_summary import add_call_set_summary
from bioplan.codegen.ir import (
    _PER_CONSUMER,
    CHECK_ENV,
    CHECK_MEM_MB,
    CHECK_RUNTIME,
    CHECK_RUNTIME_PER_GB,
    LANE,
    PAIR,
    PATIENT,
    STATUS,
    ConfigInput,
    FileRef,
    IOPort,
    Reference,
    Scope,
    Software,
    Workflow,
    WorkflowStep,
    _checked_gb,
    _condition_column,
    _ext,
    _genome_build,
    _input_gb,
    _input_stems,
    _named_after_inputs,
    _references,
    _rel,
    _sample_rows,
    pair_ids,
    pick_for_consumer,
    unusable_sample_name,
)
from bioplan.codegen.lanes import merge_lanes
from bioplan.codegen.names import refuse_list_separators, refuse_unsafe_id_sets
from bioplan.codegen.plain_inputs import refuse_plain_inputs
from bioplan.codegen.qc_report import add_qc_report
from bioplan.codegen.vcf_outputs import compress_vcf_outputs
from bioplan.errors import ConstraintViolationError, UnreadableInputError, UnsupportedAnalysisError
from bioplan.knowledge.models import Knowledge, Tool
from bioplan.knowledge.queries import is_subtype
from bioplan.models import PatientSample, Plan, PlanStep, TaskSpec, topological_order
from bioplan.request.sniffers.cohort import sheet_row_of


@dataclass(frozen=True)
class SynthesisOptions:
    """What the user chose beside the plan: where the workflow lives (relative paths are written
    from there), the cluster's per-job limits, and whether and where references are downloaded.
    (The scheduler's queue and account are not the workflow's: the generators get them, EmitOptions.)"""

    workdir: str | None = None
    cluster_limits: Mapping[str, int | None] = field(default_factory=dict)
    fetch_references: bool = False
    reference_cache: str | None = None


@dataclass(frozen=True)
class Draft:
    """The workflow while the passes build it. Mappings are keyed by plan step id."""

    knowledge: Knowledge
    spec: TaskSpec
    plan: Plan
    options: SynthesisOptions = SynthesisOptions()
    order: tuple[PlanStep, ...] = ()  # plan steps, producers before consumers
    scopes: Mapping[str, Scope] = field(default_factory=dict)
    outputs: Mapping[str, tuple[IOPort, ...]] = field(default_factory=dict)
    inputs: Mapping[str, tuple[IOPort, ...]] = field(default_factory=dict)  # the tool's own inputs
    config_inputs: Mapping[str, ConfigInput] = field(default_factory=dict)
    checks: Mapping[str, tuple[WorkflowStep, ...]] = field(default_factory=dict)  # new check steps before a step
    gates: Mapping[str, tuple[IOPort, ...]] = field(default_factory=dict)  # the check `ok` files a step waits for
    steps: tuple[WorkflowStep, ...] = ()
    software: tuple[Software, ...] = ()
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    scripts: tuple[str, ...] = ()
    targets: tuple[FileRef, ...] = ()
    samples: tuple[dict[str, str], ...] = ()
    sample_columns: tuple[str, ...] = ()
    has_samples: bool = False
    organism: dict[str, Any] | None = None
    references: tuple[Reference, ...] = ()
    genome_build: str | None = None
    genome_build_default: bool = False

    @property
    def paired(self) -> bool:
        return self.spec.constraints.get("layout") == "paired"

    def tool(self, step: PlanStep) -> Tool:
        """The tool bound to a plan step (bind gives every step one)."""
        return self.knowledge.tools[step.tool or ""]

    def mates(self, datatype: str) -> list[int | None]:
        """The mate numbers a file of `datatype` comes in: 1 and 2 for paired reads, else one file."""
        return [1, 2] if self.knowledge.datatypes[datatype].mates and self.paired else [None]


# ---------------------------------------------------------------------------------------------- order
def order_steps(draft: Draft) -> Draft:
    """Plan steps in dependency order (ties by id): the order of rules, processes and checks."""
    by_id = {s.id: s for s in draft.plan.steps}
    return replace(draft, order=tuple(by_id[i] for i in topological_order(list(draft.plan.steps))))


def step_scope(knowledge: Knowledge, step: PlanStep) -> Scope:
    """Per sample if it makes anything per sample; reference if it makes only reference data
    (indexes); else one job for the cohort."""
    made = {knowledge.datatypes[d].scope for d in step.outputs.values()}
    return "sample" if "sample" in made else ("reference" if made == {"reference"} else "cohort")


def assign_scopes(draft: Draft) -> Draft:
    """Each step's scope; with a tumour/normal cohort (`TaskSpec.patients`), a step of one individual
    (operations.yaml `one_individual`) runs per tumour/normal pair, and so does a cohort step reading its
    output (the pair's somatic calls filtered or annotated: one job per pair, as nf-core/sarek runs them)."""
    scopes: dict[str, Scope] = {}
    for s in draft.order:
        scope = step_scope(draft.knowledge, s)
        if draft.spec.patients and scope == "cohort" and (
                draft.knowledge.operations[s.operation].one_individual
                or any(scopes.get(src) == "group" for src in s.sources.values())):
            scope = "group"
        scopes[s.id] = scope
    return replace(draft, scopes=scopes)


def _folder(step_id: str, scope: Scope) -> str:
    """Where a step's files go: one folder per sample or per tumour/normal pair, else the step's own."""
    return {"sample": f"results/{step_id}/{{sample}}", "group": f"results/{step_id}/{{{PAIR}}}"}.get(
        scope, f"results/{step_id}")


def _refuse_unusable_patients(samples: tuple[PatientSample, ...]) -> None:
    """A patient id is a folder name (results/<step>/<patient>/) as a sample id is."""
    for patient in dict.fromkeys(s.patient for s in samples):
        why = unusable_sample_name(patient)
        if why is not None:
            raise UnreadableInputError(
                f"the patient id {patient!r} of the sample sheet cannot name a patient: {why}",
                ["to resolve, rename the patient to letters, digits and printable punctuation other than '\"' "
                 "and '\\', not starting with '-' (e.g. patient_1)"], {"patient": patient})


def _check_tool_pairing(tool: Tool, step: PlanStep, samples: tuple[PatientSample, ...]) -> None:
    """What one per-patient caller needs of the cohort's pairs."""
    if tool.pairing is None:
        raise UnsupportedAnalysisError(
            f"{tool.name} ({tool.id}) runs over one individual's samples and cannot run once per patient of "
            "the sample sheet's tumour/normal cohort",
            ["to resolve, name a caller that pairs the samples of each patient (Mutect2, Strelka2, FreeBayes "
             "somatic), or run one workflow per patient"], {"tool": tool.id, "step": step.id})
    with_normal = {s.patient for s in samples if s.status == "normal"}
    alone = sorted({s.patient for s in samples} - with_normal)
    if tool.pairing.needs_normal and alone:
        raise ConstraintViolationError(
            f"{tool.name} calls a tumour against its matched normal and has no tumour-only mode, but patient(s) "
            f"{', '.join(repr(p) for p in alone[:10])} have no normal sample in the sample sheet",
            ["to resolve, add each patient's normal row (status 0 or normal) and its files, or call with Mutect2, "
             "which runs a patient without a normal in tumour-only mode"], {"tool": tool.id, "patients": alone})


def _refuse_unusable_pairs(samples: tuple[PatientSample, ...]) -> None:
    """A pair id (`<tumour>_vs_<normal>`) is a folder name too, and two pairs must not share one: a tumour
    named 'a_vs_b' without a normal beside tumour 'a' against normal 'b' would."""
    tumours = sum(s.status == "tumour" for s in samples)
    ids = pair_ids(samples)
    if len(ids) < tumours:
        named = sorted(i for i in ids if i.count("_vs_"))
        raise UnreadableInputError(
            f"two tumour/normal pairs of the sample sheet would have the same name (<tumour>_vs_<normal>, as "
            f"nf-core/sarek names them): {', '.join(repr(i) for i in named[:6])}",
            ["to resolve, rename the tumour sample whose name holds '_vs_'"], {"pairs": named})
    for pair in ids:
        why = unusable_sample_name(pair)
        if why is not None:
            raise UnreadableInputError(
                f"the tumour/normal pair {pair!r} cannot name a folder: {why}",
                ["to resolve, rename its tumour or normal sample"], {"pair": pair})


def check_pairing(draft: Draft) -> Draft:
    """What each per-pair step's tool needs of the cohort's pairs: a normal for a caller without a
    tumour-only mode; a tool that cannot run per pair is refused."""
    _refuse_unusable_patients(draft.spec.patients)
    _refuse_unusable_pairs(draft.spec.patients)
    for step in draft.order:
        if draft.scopes[step.id] == "group" and draft.knowledge.operations[step.operation].one_individual:
            _check_tool_pairing(draft.tool(step), step, draft.spec.patients)
    return draft


# ---------------------------------------------------------------------------------------------- outputs
def step_outputs(draft: Draft, step: PlanStep, made: Mapping[str, tuple[IOPort, ...]]) -> tuple[IOPort, ...]:
    """A step's output files under results/<step>[/<sample>]/: the tool's file name (with `{port}`
    replaced by the stem of what the port reads), or <port>[_<mate>].<ext>."""
    tool = draft.tool(step)
    scope = draft.scopes[step.id]
    base = _folder(step.id, scope)
    stems = _input_stems(step, tool.inputs, {k: list(v) for k, v in made.items()})
    ports: list[IOPort] = []
    for port, tp in tool.outputs.items():
        dt = step.outputs.get(port)
        for mate in (draft.mates(dt) if dt else [None]):
            name = port if mate is None else f"{port}_{mate}"
            fname = _named_after_inputs(tp.path, stems) if tp.path else f"{name}.{_ext(tp.format)}"
            if mate is not None or (dt and draft.knowledge.datatypes[dt].mates):
                fname = f"{name}.{_ext(tp.format)}"
            ref = FileRef(kind="result", path=f"{base}/{fname}", per_sample=scope == "sample", directory=tp.directory,
                          group=PAIR if scope == "group" else None)
            ports.append(IOPort(name=name, port=port, datatype=dt or "", format=tp.format, ref=ref))
    return tuple(ports)


def lay_out_outputs(draft: Draft) -> Draft:
    """Every step's output files (a step's names follow the files its producers made: in order)."""
    made: dict[str, tuple[IOPort, ...]] = {}
    for step in draft.order:
        made[step.id] = step_outputs(draft, step, made)
    return replace(draft, outputs=made)


# ---------------------------------------------------------------------------------------------- inputs
def _consumers(plan: Plan, datatype: str) -> int:
    return sum(1 for s in plan.steps if datatype in s.inputs.values())


def sample_sheet_ports(draft: Draft, step: PlanStep, port: str, datatype: str, fmt: str) -> list[IOPort]:
    """A per-sample input read from the sample sheet: one column per mate (fastq_1, fastq_2)."""
    dtype = draft.knowledge.datatypes[datatype]
    scope = draft.scopes[step.id]
    ports = []
    for mate in draft.mates(datatype):
        column = ("fastq" if mate is None else f"fastq_{mate}") if dtype.mates else datatype
        ref = FileRef(kind="samplesheet", path=column, per_sample=scope == "sample", gathered=scope != "sample")
        ports.append(IOPort(name=port if mate is None else f"{port}_{mate}", port=port, datatype=datatype,
                            format=fmt, ref=ref))
    return ports


def config_entry(draft: Draft, step: PlanStep, datatype: str, fmt: str) -> ConfigInput:
    """The config entry a step reads a whole-study input or a reference from: the user's file when
    given (several of one kind: the one meant for this step), else a reference to supply."""
    given = [i for i in draft.spec.inputs if i.datatype == datatype]
    dtype = draft.knowledge.datatypes[datatype]
    key = datatype
    if len(given) > 1:
        # several files of one reference kind (a KEGG and a GO gene set library):
        # each consumer takes the one whose name or content names its operation
        given = [pick_for_consumer(given, step.operation)]
        key = f"{datatype}_{step.operation}"
    elif not given and datatype in _PER_CONSUMER and _consumers(draft.plan, datatype) > 1:
        key = f"{datatype}_{step.operation}"  # one library per analysis (KEGG sets for KEGG enrichment, GO for GO)
    return ConfigInput(
        key=key, datatype=datatype, section="inputs" if given else "references",
        path=_rel(given[0].path, draft.options.workdir) if given else "",
        format=given[0].format if given else fmt.split("|")[0],
        # a given file: what it holds; a reference: where to get it (made exact in resolve_references)
        hint=" ".join(dtype.description.split()) if given or not dtype.sources else dtype.sources[0])


def produced_ports(draft: Draft, step: PlanStep, port: str, datatype: str, source: str) -> list[IOPort]:
    """An input made by an earlier step: its output files of that datatype (both mates), gathered
    over samples when a cohort step reads per-sample files."""
    producer = next(s for s in draft.plan.steps if s.id == source)
    ports = []
    for p in draft.outputs[source]:
        if p.port in producer.outputs and producer.outputs[p.port] == datatype:
            scope = draft.scopes[step.id]
            # a cohort step gathers per-sample files over all samples (a group step: over its group's),
            # and per-patient files over the patients
            gathered = (p.ref.per_sample and scope != "sample") or (p.ref.group is not None and scope != "group")
            ports.append(IOPort(name=p.name.replace(p.port, port, 1), port=port, datatype=datatype, format=p.format,
                                ref=p.ref.model_copy(update={"gathered": gathered})))
    return ports


def step_inputs(draft: Draft, step: PlanStep) -> tuple[list[IOPort], list[ConfigInput]]:
    """(the step's input ports, the config entries they read) in the tool's port order."""
    tool = draft.tool(step)
    ports: list[IOPort] = []
    entries: list[ConfigInput] = []
    for port, tp in tool.inputs.items():
        dt = step.inputs.get(port)
        source = step.sources.get(port, "")
        if dt is None:  # an optional port the tool uses: from config
            dt = draft.knowledge.operations[step.operation].inputs[port].datatype
            if not draft.knowledge.datatypes[dt].config_provided or tp.when_available:
                continue  # only a file the workflow has (an adapter FASTA, STAR's GTF): else the tool does without
            source = f"config:{dt}"
        if not source.startswith(("input:", "config:")):
            ports += produced_ports(draft, step, port, dt, source)
        elif draft.knowledge.datatypes[dt].scope == "sample":
            ports += sample_sheet_ports(draft, step, port, dt, tp.format)
        else:
            entry = config_entry(draft, step, dt, tp.format)
            entries.append(entry)
            kind: Literal["config_input", "config_reference"] = (
                "config_input" if entry.section == "inputs" else "config_reference")
            ports.append(IOPort(name=port, port=port, datatype=dt, format=tp.format,
                                ref=FileRef(kind=kind, path=entry.key)))
    return ports, entries


def wire_inputs(draft: Draft) -> Draft:
    """Every step's input ports, and the config entries (inputs, references) they read; the first
    step to read a config key defines its entry."""
    inputs: dict[str, tuple[IOPort, ...]] = {}
    config: dict[str, ConfigInput] = {}
    for step in draft.order:
        ports, entries = step_inputs(draft, step)
        inputs[step.id] = tuple(ports)
        for entry in entries:
            config.setdefault(entry.key, entry)
    return replace(draft, inputs=inputs, config_inputs=config)


# ---------------------------------------------------------------------------------------------- checks
def checked_ports(draft: Draft, constraint: str, ports: tuple[IOPort, ...]) -> list[IOPort]:
    """The inputs a precondition check reads: those of the datatypes its constraint applies to."""
    con = draft.knowledge.constraints[constraint]
    return [p for p in ports if not con.applies_to
            or any(is_subtype(draft.knowledge, p.datatype, d) for d in con.applies_to)]


def check_step(draft: Draft, step: PlanStep, constraint: str, checked: list[IOPort], check_id: str) -> WorkflowStep:
    """The check job of `constraint` on `checked` before `step`: per sample when it reads one sample's files."""
    scope: Scope = "sample" if any(p.ref.per_sample and not p.ref.gathered for p in checked) \
        or any(p.ref.kind == "samplesheet" and draft.scopes[step.id] == "sample" for p in checked) else (
        "group" if any(p.ref.group and not p.ref.gathered for p in checked) else "cohort")
    per_sample = scope == "sample"
    wildcard = {"sample": "{sample}", "group": f"{{{PAIR}}}"}.get(scope)
    ok = FileRef(kind="result", per_sample=per_sample, group=PAIR if scope == "group" else None,
                 path=f"results/checks/{check_id}/{wildcard}.ok" if wildcard else f"results/checks/{check_id}.ok")
    condition = (("condition_column", "@condition_column"),) if _condition_column(draft.spec) else ()
    gb = _checked_gb(draft.knowledge, draft.spec, checked, scope)
    return WorkflowStep(
        id=check_id, kind="check", operation=None, tool=None, scope=scope, inputs=tuple(checked),
        outputs=(IOPort(name="ok", port="ok", datatype="", format="txt", ref=ok),),
        log=f"logs/checks/{check_id}/{wildcard}.log" if wildcard else f"logs/checks/{check_id}.log",
        benchmark=None, threads=1, mem_mb=CHECK_MEM_MB, runtime=CHECK_RUNTIME + CHECK_RUNTIME_PER_GB * gb,
        params=(("constraint", constraint), ("guarded_step", step.id), ("datatypes", "@datatypes")) + condition,
        env=CHECK_ENV.env, container=CHECK_ENV.container, script=f"{draft.knowledge.constraints[constraint].check}.py",
        constraint=constraint, guards=step.id, paired=draft.paired, group_by=PAIR if scope == "group" else None)


def add_checks(draft: Draft) -> Draft:
    """Precondition checks run first and gate the step. A check reads only the inputs its constraint
    applies to; steps reading the same files share one check (named after the first step's need)."""
    made: dict[tuple, IOPort] = {}  # (constraint, checked files) -> the check's ok file
    checks: dict[str, tuple[WorkflowStep, ...]] = {}
    gates: dict[str, tuple[IOPort, ...]] = {}
    for step in draft.order:
        new: list[WorkflowStep] = []
        waits: list[IOPort] = []
        for constraint in step.preconditions:
            con = draft.knowledge.constraints.get(constraint)
            checked = checked_ports(draft, constraint, draft.inputs[step.id]) if con and con.check else []
            if not checked:
                continue
            key = (constraint, tuple(sorted((p.name, p.ref.kind, p.ref.path, p.ref.gathered) for p in checked)))
            if key not in made:
                short = constraint.removeprefix("requires_")
                first = not any(k[0] == constraint for k in made)
                check = check_step(draft, step, constraint, checked, f"check_{short}" if first
                                   else f"check_{short}_{step.id}")
                new.append(check)
                ok = check.outputs[0]
                made[key] = IOPort(name=check.id, port=check.id, datatype="", format="txt", ref=ok.ref)
            waits.append(made[key])
        checks[step.id] = tuple(new)
        gates[step.id] = tuple(waits)
    return replace(draft, checks=checks, gates=gates)


# ---------------------------------------------------------------------------------------------- steps
def _makes_clusters(knowledge: Knowledge, step: PlanStep) -> bool:
    return any(is_subtype(knowledge, d, "clustered_single_cell_data") for d in step.outputs.values())


def _per_group(tool: Tool, scope: Scope | None) -> set[str]:
    """The params a group step takes from its group (the patient's normal sample), not from config."""
    return {tool.pairing.normal_param} if scope == "group" and tool.pairing is not None else set()


def step_params(draft: Draft, tool: Tool, inputs: tuple[IOPort, ...],
                scope: Scope = "cohort") -> tuple[tuple[str, str], ...]:
    """Where each of the tool's params comes from: config params.<tool>.<name>, the workflow's
    condition column, the group's normal sample (a per-patient caller's normal_sample), and the sample
    list for a step gathering per-sample files (a group step's: its group's samples)."""
    shared = {"condition_column"} if _condition_column(draft.spec) else set()
    grouped = _per_group(tool, scope)
    found = [(name, "@condition_column" if name in shared else "@group_normal" if name in grouped
              else f"params.{tool.id}.{name}") for name in tool.params]
    if any(p.ref.gathered for p in inputs):
        found.append(("samples", "@samples"))
    return tuple(found)


def _job_input_gb(draft: Draft, step: PlanStep, scope: Scope) -> int:
    """The GB one job of the step reads, following per-sample steps back to the given files: STAR after
    trimming reads about what the sample's FASTQ holds (a cohort step's inputs are not traced back: a
    count matrix is not the size of the reads)."""
    gb = _input_gb(draft.spec, step, scope == "sample")
    if scope == "sample":
        by_id = {s.id: s for s in draft.order}
        for src in step.sources.values():
            if src in by_id and draft.scopes.get(src) == "sample":
                gb = max(gb, _job_input_gb(draft, by_id[src], "sample"))
    return gb


def tool_step(draft: Draft, step: PlanStep) -> WorkflowStep:
    """The job of a plan step: its files, log and benchmark, resources (memory grows with the input),
    params and software."""
    tool = draft.tool(step)
    scope = draft.scopes[step.id]
    inputs = draft.inputs[step.id]
    gb = _job_input_gb(draft, step, scope)
    mem = tool.resources.mem_mb + tool.resources.mem_mb_per_gb_input * gb
    runtime = tool.resources.runtime + tool.resources.runtime_per_gb_input * gb
    wildcard = {"sample": "/{sample}", "group": f"/{{{PAIR}}}"}.get(scope, "")
    return WorkflowStep(
        id=step.id, kind="tool", operation=step.operation, tool=tool.id, scope=scope,
        inputs=inputs + draft.gates[step.id], outputs=draft.outputs[step.id],
        log=f"logs/{step.id}{wildcard}.log", benchmark=f"benchmarks/{step.id}{wildcard}.tsv",
        threads=tool.resources.threads, mem_mb=int(mem), runtime=runtime, local=tool.resources.local,
        params=step_params(draft, tool, inputs, scope), env=f"{tool.id}.yaml", container=tool.software.container,
        paired=draft.paired, group_by=PAIR if scope == "group" else None)


def build_steps(draft: Draft) -> Draft:
    """The workflow's steps: each plan step preceded by the checks that gate it."""
    steps: list[WorkflowStep] = []
    for step in draft.order:
        steps += [*draft.checks[step.id], tool_step(draft, step)]
    return replace(draft, steps=tuple(steps))


def collect_software(draft: Draft) -> Draft:
    """One conda env and container per tool, and the checks' shared one; the step scripts to ship."""
    software: dict[str, Software] = {}
    scripts: set[str] = set()
    for step in draft.steps:
        if step.kind == "check":
            software[CHECK_ENV.env] = CHECK_ENV
            scripts.add(step.script or "")
            continue
        tool = draft.knowledge.tools[step.tool or ""]
        software[step.env] = Software(env=step.env, conda=tool.software.conda, container=tool.software.container)
        scripts.update(tool.scripts)
    return replace(draft, software=tuple(sorted(software.values(), key=lambda s: s.env)),
                   scripts=tuple(sorted(scripts)))


def tool_param_defaults(draft: Draft, step: PlanStep) -> dict[str, Any]:
    """A tool's config params: its defaults, without the workflow-wide condition column; a plan that
    reads the input's own clustering names that clustering (markers per 'louvain')."""
    tool = draft.tool(step)
    shared = {"condition_column"} if _condition_column(draft.spec) else set()
    shared |= _per_group(tool, draft.scopes.get(step.id))  # the patient's normal comes from the sample sheet
    params = {k: v for k, v in tool.params.items() if k not in shared}
    for c in draft.spec.constraint_ids:  # the study's constraints set some (Trim Galore --rrbs for RRBS)
        params.update({k: v for k, v in tool.params_when.get(c, {}).items() if k in params})
    for setting in draft.spec.settings:  # values the request gives ("FDR 0.01": alpha 0.01)
        params.update({k: v for k, v in setting.params.get(tool.id, {}).items() if k in params})
    if draft.spec.cluster_column and "cluster_key" in params and not _makes_clusters(draft.knowledge, step):
        params["cluster_key"] = draft.spec.cluster_column
    if tool.pairing is not None and tool.pairing.normal_param in params and draft.spec.patients:
        # a cohort step (CNVkit's pooled reference): every normal of the sample sheet, in sheet order
        normals = [s.sample for s in draft.spec.patients if s.status == "normal"]
        refuse_list_separators(tool.pairing.normal_param, tool.name, normals, _sample_sources(draft.spec))
        params[tool.pairing.normal_param] = ",".join(normals)
    return params


def collect_params(draft: Draft) -> Draft:
    params = {draft.tool(s).id: tool_param_defaults(draft, s) for s in draft.order}
    return replace(draft, params=dict(sorted(params.items())))


# ---------------------------------------------------------------------------------------------- workflow-wide
def pick_targets(draft: Draft) -> Draft:
    """The workflow's results: every output of the steps nothing else reads (all samples' files)."""
    consumed = {src for s in draft.plan.steps for src in s.sources.values()}
    targets = [p.ref.model_copy(update={"gathered": p.ref.per_sample or p.ref.group is not None})
               for s in draft.plan.steps if s.id not in consumed for p in draft.outputs[s.id] if p.datatype]
    return replace(draft, targets=tuple(targets))


def reads_samples(draft: Draft) -> bool:
    """Whether the workflow runs per sample: a per-sample input is given, or a step reads one from the inputs."""
    scope = {d: t.scope for d, t in draft.knowledge.datatypes.items()}
    return any(scope[i.datatype] == "sample" for i in draft.spec.inputs) or any(
        scope[dt] == "sample" for s in draft.plan.steps for p, dt in s.inputs.items()
        if (s.sources.get(p) or "").startswith("input:"))


def fill_sample_sheet(draft: Draft) -> Draft:
    """config/samples.tsv: one row per sample of the per-sample input files; with none given, the
    header the steps read, for the user to fill."""
    samples, columns, _ = _sample_rows(draft.knowledge, draft.spec, draft.options.workdir)
    has_samples = reads_samples(draft)
    if has_samples and not samples:
        sheet = [p.ref.path for s in draft.steps for p in s.inputs if p.ref.kind == "samplesheet"]
        columns = ["sample", *dict.fromkeys(sheet)]
    if any(s.group_by == PAIR for s in draft.steps):  # each sample's patient and tumour/normal status
        paired = {p.sample: p for p in draft.spec.patients}
        samples = [{**row, PATIENT: paired[row["sample"]].patient, STATUS: paired[row["sample"]].status}
                   if row["sample"] in paired else row for row in samples]
    return replace(draft, samples=tuple(samples), sample_columns=tuple(columns), has_samples=has_samples)


def _organism_id(draft: Draft) -> str | None:
    return next((c for c in draft.spec.constraint_ids if draft.knowledge.constraints.get(c)
                 and draft.knowledge.constraints[c].kind == "organism"), None)


def find_organism(draft: Draft) -> Draft:
    org_id = _organism_id(draft)
    if org_id is None:
        return draft
    con = draft.knowledge.constraints[org_id]
    return replace(draft, organism={"id": org_id, "scientific_name": con.scientific_name, "kegg_code": con.kegg_code,
                                    "ensembl_prefix": con.ensembl_prefix, "taxon_id": con.taxon_id})


def reference_cache_dir(given: str | None) -> str:
    """--reference-cache as the workflow names it (default `resources`): never starting with '-', which the
    tools handed a reference path under it would read as an option."""
    cache = given or "resources"
    return os.path.join(".", cache) if cache.startswith("-") else cache


def resolve_references(draft: Draft) -> Draft:
    """Every config reference with the provider's file for the organism and build; config paths follow."""
    org_id = _organism_id(draft)
    cache = reference_cache_dir(draft.options.reference_cache)
    references = _references(draft.knowledge, draft.spec, list(draft.steps), dict(draft.config_inputs), org_id, cache)
    if references:
        build, default = _genome_build(draft.spec, org_id)
    else:
        build, default = draft.spec.constraints.get("genome_build"), False
    by_key = {r.key: r for r in references}
    # a reference's path and hint are the provider's file for the organism and build
    config = {k: (c.model_copy(update={"path": by_key[k].path, "hint": by_key[k].hint}) if k in by_key else c)
              for k, c in draft.config_inputs.items()}
    return replace(draft, references=references, genome_build=build, genome_build_default=default,
                   config_inputs=config)


# gzip keeps a genome FASTA at about a third of its size
GZIP_FASTA_RATIO = 3


def genome_gb(draft: Draft) -> float:
    """The size in GB of the genome the workflow holds: a genome FASTA given as input (its uncompressed
    size), else the organism's build as references.yaml has it; 0 when neither is known."""
    from bioplan.knowledge.references import load_catalog

    given = [i.path for i in draft.spec.inputs if is_subtype(draft.knowledge, i.datatype, "reference_genome")]
    if given:
        with contextlib.suppress(OSError):  # a file gone since sniffing counts as unknown
            return sum(os.path.getsize(p) * (GZIP_FASTA_RATIO if p.endswith(".gz") else 1) for p in given) / 1e9
        return 0.0
    org_id = _organism_id(draft)
    organism = load_catalog().organisms.get(org_id or "")
    build, _ = _genome_build(draft.spec, org_id)
    found = organism.builds.get(build or "") if organism else None
    return (found.genome_mb or 0) / 1000 if found else 0.0


def size_by_genome(draft: Draft) -> Draft:
    """A step holding the genome in memory (index builders, STAR's aligner: the tool's
    `mem_mb_per_gb_genome`) asks for that much more per GB of it: STAR's human index needs ~32 GB
    whatever the reads; its time grows likewise (`runtime_per_gb_genome`). Both targets and the
    cluster checks read the step's mem_mb and runtime."""
    per_gb = {s.id: draft.knowledge.tools[s.tool].resources for s in draft.steps if s.kind == "tool" and s.tool}
    per_gb = {k: r for k, r in per_gb.items() if r.mem_mb_per_gb_genome or r.runtime_per_gb_genome}
    if not per_gb:
        return draft
    gb = genome_gb(draft)
    return replace(draft, steps=tuple(
        s.model_copy(update={"mem_mb": s.mem_mb + round(per_gb[s.id].mem_mb_per_gb_genome * gb),
                             "runtime": s.runtime + round(per_gb[s.id].runtime_per_gb_genome * gb)})
        if s.id in per_gb else s for s in draft.steps))


Pass = Callable[[Draft], Draft]

# The passes in the order they run: each reads only what the ones before it filled in.
PASSES: tuple[Pass, ...] = (
    order_steps,
    assign_scopes,
    check_pairing,
    lay_out_outputs,
    wire_inputs,
    add_checks,
    build_steps,
    collect_software,
    collect_params,
    pick_targets,
    fill_sample_sheet,
    find_organism,
    resolve_references,
    size_by_genome,
)


def to_workflow(draft: Draft) -> Workflow:
    """The finished draft as the frozen IR."""
    spec, options = draft.spec, draft.options
    return Workflow(
        name="bioplan_workflow", query=spec.query, organism=draft.organism,
        layout=cast(Literal["paired", "single"] | None, spec.constraints.get("layout")),
        steps=draft.steps, targets=draft.targets,
        config_inputs=tuple(sorted(draft.config_inputs.values(), key=lambda c: (c.section, c.key))),
        params={k: dict(v) for k, v in draft.params.items()}, software=draft.software, samples=draft.samples,
        sample_columns=draft.sample_columns, condition_column=_condition_column(spec), scripts=draft.scripts,
        has_samples=draft.has_samples,
        deviations=spec.deviations, unrecognized=spec.unrecognized, references=draft.references,
        genome_build=draft.genome_build, genome_build_default=draft.genome_build_default,
        fetch_references=options.fetch_references, reference_cache=reference_cache_dir(options.reference_cache),
        meta_columns=((PATIENT, STATUS) if any(s.group_by == PAIR for s in draft.steps) else ())
        + ((LANE,) if any(LANE in row for row in draft.samples) else ()),
        **dict(options.cluster_limits))


WorkflowPass = Callable[[Knowledge, Workflow], Workflow]

# The passes on the frozen IR, in order: each sample's lanes merged before its first step, a SnpEff database
# built once per genome before the annotation jobs read it, plain VCFs bgzipped and indexed, a tumour/normal
# cohort's per-pair call sets summarised in one table, then one MultiQC report of every QC report the steps
# write (the compressed VCFs' statistics included).
WORKFLOW_PASSES: tuple[WorkflowPass, ...] = (merge_lanes, build_annotation_databases, compress_vcf_outputs,
                                              add_call_set_summary, add_qc_report)


def synthesize(knowledge: Knowledge, spec: TaskSpec, plan: Plan, options: SynthesisOptions) -> Workflow:
    draft = Draft(knowledge=knowledge, spec=spec, plan=plan, options=options)
    for run in PASSES:
        draft = run(draft)
    workflow = to_workflow(draft)
    for finish in WORKFLOW_PASSES:
        workflow = finish(knowledge, workflow)
    refuse_unsafe_id_sets(workflow, _sample_sources(spec))
    refuse_plain_inputs(knowledge, workflow, spec.inputs, options.workdir)  # gzip-only steps on plain files
    return workflow


def _sample_sources(spec: TaskSpec) -> dict[str, str]:
    """Each sample id and an input file it came from (named in refusals): a sample sheet's row when the sheet named
    the sample's FASTQ files ('sheet.csv, data row 2': the file's base name is what refusals show)."""
    return {i.sample: sheet_row_of(i.evidence) or i.path for i in spec.inputs if i.sample}
