"""Nextflow DSL2 generator: Workflow IR -> an nf-core-shaped pipeline.

    main.nf                         entry workflow: reads params, builds input channels
    workflows/bioplan.nf            the plan: one process call per step, channels keyed on meta
    modules/local/<tool>/<sub>/     main.nf (from templates/nextflow/<tool>.nf.j2), meta.yml, environment.yml
    modules/local/bioplan/check_*/  precondition checks; their `ok` output gates the guarded step
    bin/                            step scripts + bioplan_run.py/.R (the same scripts as the Snakemake target)
    conf/{base,modules,test}.config, nextflow.config, nextflow_schema.json,
    assets/schema_input.json, assets/samplesheet.csv, README.md

Lowering decisions live here, on the IR: how each input port becomes a channel
(per-sample tuples joined on meta, gathered lists, cohort tuples, reference value
channels), process aliases named after plan steps (so the process graph matches
Snakemake's rule graph), and what Nextflow cannot express safely (shell-unsafe
sample or file names) is refused with a clear message.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import jinja2

from bioplan import __version__
from bioplan.codegen import escape, yaml_text
from bioplan.codegen.common import (
    fetch_arguments,
    json_schema_type,
    meta_column_schemas,
    refuse_names,
    sheet_columns,
    user_names,
)
from bioplan.codegen.generator import NO_OPTIONS, EmitOptions, Emitted
from bioplan.codegen.ir import PAIR, IOPort, Workflow, WorkflowStep, intermediate_outputs
from bioplan.codegen.nf_core_names import module_path, process_name
from bioplan.codegen.provenance import package_name
from bioplan.codegen.qc_report import AGGREGATOR
from bioplan.codegen.step_scripts import step_script_files
from bioplan.errors import InvalidKnowledgeError, TargetUnsupportedError
from bioplan.knowledge.models import Knowledge
from bioplan.paths import templates_dir

# read files: an intermediate one (merged lanes, trimmed reads) is published only on request
READ_FORMATS = frozenset({"fastq", "fastq.gz"})

# No name nor path part may start with '-': Nextflow stages inputs by file name and processes pass
# sample ids and file names to tools and to mv/samtools unquoted, where '-x' reads as an option.
_SAFE_NAME = re.compile(r"^(?!-)(?!.*/-)[A-Za-z0-9._+\-/]+$")
# the entry workflow's channel of the versions table MultiQC shows (the `*_mqc_versions.yml` it reads)
_VERSIONS_TAKE = "ch_software_versions"
_LABELS = ("process_single", "process_low", "process_medium", "process_high")
# nf-core's max_cpus, max_memory and max_time (the slurm profile's resourceLimits), with nf-core's patterns
MAX_JOB_REQUEST_OPTIONS = {
    "title": "Max job request options", "type": "object",
    "description": "The most one job may ask for under -profile slurm: one node of your partition and its time limit.",
    "properties": {
        "max_cpus": {"type": "integer", "minimum": 1, "description": "CPUs of one node (sinfo %c)."},
        "max_memory": {"type": "string", "pattern": r"^\d+(\.\d+)?\.?\s*(K|M|G|T)?B$",
                       "description": "Memory of one node, such as '64.GB' (sinfo %m, in MB)."},
        "max_time": {"type": "string", "pattern": r"^(\d+\.?\s*(s|m|h|d|day|min)\s*)+$",
                     "description": "The partition's time limit, such as '24.h' (sinfo %l)."},
    },
}
# the attempts of a job under -profile slurm (its process.maxRetries + 1)
SLURM_ATTEMPTS = 3
# nf-core's home of the functions main.nf calls before the pipeline starts (the SLURM fit check)
UTILS_PIPELINE = "subworkflows/local/utils_bioplan_pipeline/main.nf"


def groovy_str(text: str) -> str:
    """A single-quoted Groovy string literal (the `groovy` context filter)."""
    return escape.groovy(text)


def version_number_command(command: str) -> str:
    """The shell command of a versions topic: the first version number the tool's version command
    prints, on stdout or stderr (`fastp --version` writes to stderr; others print a banner such as
    'Kraken version 2.1.2' or a path). The last `grep .` fails when no number comes out, so a
    missing tool or a version command that prints nothing fails the task instead of recording an
    empty version. No `$` nor backslash: Nextflow runs the command inside a shell string."""
    return "{ " + command + " ; } 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p | grep ."


def refuse_option_like_names(workflow: Workflow) -> None:
    """Sample ids and file names starting with '-' are refused (modules pass them to `mv`, `samtools
    index`, ... which would read them as options), naming each and what to rename."""
    samples, paths = user_names(workflow)
    refuse_names("nextflow", [s for s in samples if s.startswith("-")],
                 [p for p in paths if os.path.basename(p).startswith("-")],
                 "Nextflow modules pass sample ids and staged file names to commands such as mv and samtools "
                 "index, which read a leading '-' as an option",
                 ["rename them so they do not start with '-'",
                  "or use the Snakemake target (the default), which quotes every path"])


# A tool param a module's script reads (`def x = tp.x ?: ...`, then `${x}` in the shell script): nf-schema holds
# its value to one plain word (a multi-word default, a filter expression the module quotes itself: one line),
# so `--tool_x 'CPM; touch X'` stops the pipeline before any task instead of running in a task's shell.
_SCRIPT_PARAM = re.compile(r"(?:\btool_params\??|\btp\??)\.(\w+)")
# The end of text as every regex dialect reads it (Java's and Python's $ also match before a final line break)
_END = r"(?![\s\S])"
_ONE_WORD = r"^[A-Za-z0-9_.+:,=@%/-]*" + _END
_ONE_LINE = r"^[^\x00-\x1f\x7f\u2028\u2029]*" + _END


# A file Nextflow stages into a task's work folder keeps its name, which the module's script interpolates
# unquoted (`${reads}`): a sample sheet row or --param edited after compiling is held by nf-schema to the
# names compile accepts (refuse_unsafe_names), so `a$(touch X).fq.gz` stops the pipeline before any task.
STAGED_NAME = {"pattern": r"^(?:.*/)?[A-Za-z0-9._+][A-Za-z0-9._+\-]*/?" + _END,
               "errorMessage": "the file name (after the last '/') uses letters, digits, '.', '_', '-', '+' and does "
                               "not start with '-': modules pass it to shell commands"}


def script_param_pattern(default: str) -> dict[str, str]:
    """The nf-schema pattern (and its message) of a string param a module's script reads."""
    if re.match(_ONE_WORD, default):
        return {"pattern": _ONE_WORD, "errorMessage": "one word: letters, digits and _ . + : , = @ % / -"}
    return {"pattern": _ONE_LINE, "errorMessage": "one line without control characters"}


def process_label(threads: int, mem_mb: int) -> str:
    if threads <= 1 and mem_mb <= 6000:
        return "process_single"
    if threads <= 2 and mem_mb <= 12000:
        return "process_low"
    if threads <= 6 and mem_mb <= 36000:
        return "process_medium"
    return "process_high"


def container_expr(image: str) -> str:
    """The nf-core biocontainer ternary (Singularity depot image vs Docker image) of an image reference."""
    if image.startswith("quay.io/biocontainers/"):
        name = image.removeprefix("quay.io/biocontainers/")
        return ("${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?\n"
                f"        'https://depot.galaxyproject.org/singularity/{name}' :\n"
                f"        'biocontainers/{name}' }}")
    return image


@dataclass
class Channel:
    """A channel expression in the workflow body and the shape of its items."""

    expr: str
    kind: str  # sample | gathered | cohort | reference


@dataclass
class PreparedProcess:
    name: str
    alias: str
    tool_name: str
    tool_slug: str
    tag: str
    label: str
    container_expr: str
    input_lines: list[str]
    has_meta: bool
    prefix_expr: str
    version_eval: str
    paired: bool
    ports: dict[str, str]  # port -> kind
    gathered: list[str]
    organism: dict[str, Any] | None
    step: WorkflowStep
    tool: Any = None
    script: str | None = None
    checked_ports: list[str] = field(default_factory=list)
    run_args: str = ""  # --input/--list-input/--list-param arguments of bioplan_run.py for this process
    tool_params_expr: str = "[:]"  # Groovy map literal for ext.tool_params in conf/modules.config


class NextflowGenerator:
    """The Generator of the Nextflow target (codegen/generator.py)."""

    name = "nextflow"
    target = name
    entry_file = "main.nf"
    # nf-lang (scripts/nf-lint.sh) needs Java: the tests run it; emit runs the structural checks
    precheck_name = None
    executable_dirs = ("bin/",)  # Nextflow puts bin/ on the PATH of every task: its scripts must be executable

    def __init__(self, knowledge):
        self.knowledge = knowledge
        self._producers: dict[str, WorkflowStep] = {}  # output path -> step, set per workflow
        # prepare's result per step of the workflow being emitted (it is asked 4 times a step), set per workflow
        self._prepared: dict[int, tuple[WorkflowStep, Workflow, PreparedProcess]] = {}
        self._cluster: dict[str, Any] = {}  # the emit options a template sees, set per workflow
        self.env = escape.template_environment(str(templates_dir()))

    # ------------------------------------------------------------------ the Generator protocol
    def emit(self, workflow: Workflow, options: EmitOptions) -> Emitted:
        """The pipeline's files and what the structural checks (validate/nextflow_checks.py) find in them."""
        from bioplan.validate.nextflow_checks import check_pipeline

        refuse_option_like_names(workflow)
        files, uses = self.files_and_uses(workflow, options)
        return Emitted(files, tuple(str(p) for p in check_pipeline(files, uses)))

    def precheck(self, staged, workflow: Workflow, output_dir) -> None:
        return None

    @staticmethod
    def refuse_output_folder(folder: str) -> None:
        """Any folder will do: Nextflow submits each task as the script it writes (.command.run, its paths
        quoted by Nextflow), with no sbatch --wrap command line naming the workflow's folder."""

    # ------------------------------------------------------------------ what cannot be expressed
    def refuse_unsafe_names(self, workflow: Workflow) -> None:
        bad = [row["sample"] for row in workflow.samples if not _SAFE_NAME.match(row["sample"])]
        paths = [c.path for c in workflow.config_inputs if c.path and not _SAFE_NAME.match(c.path)]
        paths += [v for row in workflow.samples for k, v in row.items() if k != "sample" and not _SAFE_NAME.match(v)]
        if bad or paths:
            raise TargetUnsupportedError(
                "the Nextflow target cannot use these names safely: Nextflow interpolates sample ids and file "
                "names into shell scripts, so spaces, quotes and shell characters would break or inject commands: "
                + ", ".join(repr(x) for x in (bad + paths)[:6]),
                ["rename the samples/files to letters, digits, '.', '_', '-' and '+', not starting with '-'",
                 "or use the Snakemake target (the default), which quotes every path"],
                {"samples": bad, "paths": paths})

    # ------------------------------------------------------------------ port kinds
    def port_kind(self, port: IOPort, step: WorkflowStep) -> str:
        """How a port's files arrive: per sample, gathered over all samples, grouped (a group step's
        samples' files: [meta, sample_ids, files] per patient), group (a per-patient file a group step
        reads: [meta, file]), one cohort file, or a reference value channel."""
        ref = port.ref
        if ref.kind == "samplesheet":
            return {"sample": "sample", "group": "grouped"}.get(step.scope, "gathered")
        if ref.kind == "result" and ref.group:
            return "group" if step.scope == "group" else "gathered"
        if ref.kind == "result" and ref.per_sample and step.scope == "group":
            return "grouped"
        if ref.kind == "config_reference":
            return "reference"
        if ref.kind == "config_input":
            # a file of reference scope (genome, GTF, gene sets) is a value channel without meta
            dt = self.knowledge.datatypes.get(port.datatype)
            return "reference" if dt is not None and dt.scope == "reference" else "cohort"
        if ref.per_sample:
            return "sample" if step.scope == "sample" else "gathered"
        producer = self._producers.get(ref.path)
        return "reference" if producer is not None and producer.scope == "reference" else "cohort"

    def grouped_ports(self, step: WorkflowStep) -> list[tuple[str, str, list[IOPort]]]:
        """(port, kind, ioports) in declaration order; mates of one port stay together."""
        out: dict[str, tuple[str, list[IOPort]]] = {}
        for p in step.inputs:
            if p.datatype == "" and p.port.startswith("check_"):
                continue  # gating is done on channels in the workflow, not as process inputs
            kind = self.port_kind(p, step)
            out.setdefault(p.port, (kind, []))[1].append(p)
        return [(port, kind, ports) for port, (kind, ports) in out.items()]

    def input_lines(self, step: WorkflowStep) -> tuple[list[str], bool]:
        groups = self.grouped_ports(step)
        lines: list[str] = []
        sample_ports = [port for port, kind, _ in groups if kind == "sample"]
        # as many as the process has tuple inputs (a MultiQC step gathers one per report kind)
        metas = (f"meta{i}" if i > 1 else "meta" for i in itertools.count(1))
        # a sample's lanes (codegen/lanes.py) may share file names: each staged in a folder of its own
        lanes = {port for port, kind, ioports in groups if kind == "sample" and ioports[0].ref.lanes}
        if sample_ports:
            lines.append(f"tuple val({next(metas)}), " + ", ".join(
                f"path({p}, stageAs: 'lane*/*')" if p in lanes else f"path({p})" for p in sample_ports))
        samples_var = (f"sample_ids{i}" if i > 1 else "sample_ids" for i in itertools.count(1))
        # a group step's ports arrive joined on the group's meta (channel `grouped_arguments`)
        grouped = [f"val({next(samples_var)}), path({port}, stageAs: '{port}/*')" if kind == "grouped"
                   else f"path({port})" for port, kind, _ in groups if kind in ("grouped", "group")]
        if grouped:
            lines.append(f"tuple val({next(metas)}), " + ", ".join(grouped))
        for port, kind, _ in groups:
            if kind == "gathered":
                lines.append(f"tuple val({next(metas)}), val({next(samples_var)}), "
                             f"path({port}, stageAs: '{port}/*')")
            elif kind == "cohort":
                lines.append(f"tuple val({next(metas)}), path({port})")
        for port, kind, _ in groups:
            if kind == "reference":
                lines.append(f"path({port})")
        has_meta = any(line.startswith("tuple") for line in lines)
        return lines, has_meta

    def prepare(self, workflow: Workflow, step: WorkflowStep) -> PreparedProcess:
        """What a process's templates read of a step (`_prepare`), made once per step and workflow while the
        workflow is emitted (port kinds read `_producers`, set with the memo per workflow)."""
        known = self._prepared.get(id(step))
        if known is not None and known[0] is step and known[1] is workflow:
            return known[2]
        proc = self._prepare(workflow, step)
        self._prepared[id(step)] = (step, workflow, proc)
        return proc

    def _prepare(self, workflow: Workflow, step: WorkflowStep) -> PreparedProcess:
        tool = self.knowledge.tools[step.tool] if step.tool else None
        lines, has_meta = self.input_lines(step)
        if tool is not None:
            name = process_name(tool)  # TOOL_SUBTOOL of its nf-core module (STAR_ALIGN)
            tool_name = package_name(tool.software)  # versions are keyed by package, as in nf-core
            version = tool.software.version_command
        else:
            name = f"BIOPLAN_{step.id.upper()}"
            tool_name = "python"
            version = "python3 --version | sed 's/Python //'"
        prefix = '"${meta.id}"' if has_meta else groovy_str(step.id)
        groups = self.grouped_ports(step)
        args: list[str] = []
        for port, kind, ioports in groups:
            if kind in ("gathered", "grouped"):
                args.append(f'${{[{port}].flatten().collect {{ f -> "--list-input {port}=${{f}}" }}.join(\' \')}}')
            elif ioports[0].ref.lanes:  # every lane's files, mates alternating (codegen/lanes.py): lists
                inputs = " ".join(f"--list-input {p.name}=${{lane[{i}]}}" for i, p in enumerate(ioports))
                args.append(f'${{[{port}].flatten().collate({len(ioports)}).collect {{ lane -> "{inputs}" }}'
                            ".join(' ')}")
            elif len(ioports) > 1:  # mates: reads -> reads_1, reads_2
                args += [f"--input {p.name}=${{{port}[{i}]}}" for i, p in enumerate(ioports)]
            else:
                args.append(f"--input {port}=${{{port}}}")
        if any(kind in ("gathered", "grouped") for _, kind, _ in groups):
            args.append('${sample_ids.collect { id -> "--list-param samples=${id}" }.join(\' \')}')
        datatypes = ", ".join(f"{p.name}: {groovy_str(p.datatype)}" for _, _, ioports in groups for p in ioports)
        if tool is not None:
            entries = [f"{n}: params.{tool.id}_{n}" for n in workflow.params.get(tool.id, {})]
            if "condition_column" in tool.params:
                entries.append(f"condition_column: {groovy_str(workflow.condition_column or 'condition')}")
            # the patient's normal sample: the group's meta carries it (`grouped_channel`)
            entries += [f"{name}: meta.normal" for name, value in step.params if value == "@group_normal"]
        else:
            entries = [f"constraint: {groovy_str(step.constraint or '')}",
                       f"guarded_step: {groovy_str(step.guards or '')}", f"datatypes: [{datatypes}]"]
            if workflow.condition_column:
                entries.append(f"condition_column: {groovy_str(workflow.condition_column)}")
        tool_params_expr = "[" + ", ".join(entries) + "]" if entries else "[:]"
        tag = '"${meta.id}"' if has_meta else groovy_str(step.id)
        return PreparedProcess(
            name=name, alias=step.id.upper(), tool_name=tool_name, tool_slug=re.sub(r"\W", "_", tool_name),
            tag=tag, label=process_label(step.threads, step.mem_mb), container_expr=container_expr(step.container),
            input_lines=lines, has_meta=has_meta, prefix_expr=prefix,
            version_eval=groovy_str(version_number_command(version)),
            paired=step.paired, ports={port: kind for port, kind, _ in groups},
            gathered=[port for port, kind, _ in groups if kind in ("gathered", "grouped")],
            organism=workflow.organism, step=step, tool=tool, script=step.script,
            checked_ports=[port for port, _, _ in groups], run_args=" ".join(args),
            tool_params_expr=tool_params_expr)

    def module_source(self, workflow: Workflow, step: WorkflowStep) -> str:
        proc = self.prepare(workflow, step)
        if step.kind == "check":
            template = "nextflow/_check.nf.j2"
        else:
            tool = self.knowledge.tools[step.tool]
            template = tool.templates.get("nextflow")
            if template is None:
                raise TargetUnsupportedError(
                    f"tool {tool.id!r} (step {step.id!r}) has no Nextflow template",
                    [f"add templates/nextflow/{tool.id}.nf.j2 and `nextflow: nextflow/{tool.id}.nf.j2` under "
                     f"templates: in ontology/tools/{tool.id}.yaml, or use --target snakemake"],
                    {"tool": tool.id})
        try:
            return self.env.get_template(template).render(proc=proc).strip() + "\n"
        except jinja2.TemplateError as exc:
            raise InvalidKnowledgeError([f"templates/{template}: {exc}"]) from exc

    # ------------------------------------------------------------------ workflow wiring
    def channel_for(self, port: str, kind: str, ioports: list[IOPort], step: WorkflowStep,
                    producers: dict[str, WorkflowStep], checks: dict[str, str]) -> Channel:
        ref = ioports[0].ref
        if ref.kind == "samplesheet":
            base = Channel("ch_reads", "sample")
        elif ref.kind in ("config_input", "config_reference"):
            base = Channel(f"ch_{ref.path}", "reference" if ref.kind == "config_reference" else "cohort")
        else:
            producer = producers[ref.path]
            emit = ioports[0].name if len(ioports) == 1 else ioports[0].port
            # the producer's emit is named after its own port
            emit = _emit_name(ref.path, producer)
            base = Channel(f"{producer.id.upper()}.out.{emit}", "sample" if ref.per_sample else
                           ("reference" if producer.scope == "reference" else "cohort"))
        if kind == "grouped":
            return grouped_channel(base.expr, step.group_by or PAIR)
        if kind == "gathered":
            return Channel(
                f"{base.expr}\n        .toSortedList {{ a, b -> a[0].id <=> b[0].id }}"
                f"\n        .map {{ items -> [[id: 'all_samples'], items.collect {{ item -> item[0].id }}, "
                f"items.collect {{ item -> item[1] }}.flatten()] }}", "gathered")
        return Channel(base.expr, base.kind)

    def workflow_files(self, workflow: Workflow) -> tuple[str, str, list[dict]]:
        """(main.nf, workflows/bioplan.nf, what each call passes: channel arity and sources) of the wiring."""
        steps = list(workflow.steps)
        outputs_by_path: dict[str, WorkflowStep] = {}
        for s in steps:
            for p in s.outputs:
                outputs_by_path[p.ref.path] = s
        calls: list[str] = []
        uses: list[dict] = []
        includes: list[str] = []
        take: list[tuple[str, str]] = []
        guarded_by = _checks_guarding(steps)
        seen_take: set[str] = set()
        self._take_kinds: dict[str, str] = {}
        reporter = next((s for s in steps if s.tool == AGGREGATOR), None)
        reporter_versions = ""
        for s in steps:
            proc = self.prepare(workflow, s)
            includes.append(f"include {{ {proc.name} as {proc.alias} }} from "
                            f"'../{self.module_dir(s)}/main'")
            args = []
            for port, kind, ioports in self.grouped_ports(s):
                ch = self.channel_for(port, kind, ioports, s, outputs_by_path, {})
                if ioports[0].ref.kind in ("config_input", "config_reference", "samplesheet"):
                    name = ch.expr if ioports[0].ref.kind != "samplesheet" else "ch_reads"
                    if name not in seen_take:
                        seen_take.add(name)
                        source_kind = "sample" if ioports[0].ref.kind == "samplesheet" else (
                            "reference" if kind == "reference" else "cohort")
                        shape = {"sample": "[ val(meta), [ reads ] ]", "cohort": "[ val(meta), path(file) ]",
                                 "reference": "path(file)"}[source_kind]
                        take.append((name, shape))
                        self._take_kinds[name] = source_kind
                args.append((port, kind, ch))
            lines = self.gated_arguments(args, guarded_by.get(s.id, []))
            use = self._use(proc, s, args, outputs_by_path)
            if s is reporter:  # its last input (templates/nextflow/multiqc.nf.j2)
                lines.append(_VERSIONS_TAKE)
                use["channels"].append({"arity": 1, "from": []})
                reporter_versions = f"versions_{proc.tool_slug}"
            joined = ",\n        ".join(line.replace("\n        .", "\n            .") for line in lines)
            calls.append(f"    {proc.alias} (\n        {joined}\n    )")
            uses.append(use)
        emits = _target_emits(workflow, outputs_by_path)
        if reporter is not None:  # MultiQC's Software Versions section: every other process's versions
            take.append((_VERSIONS_TAKE, "path(software_versions_mqc_versions.yml)"))
            self._take_kinds[_VERSIONS_TAKE] = "versions"
            # its own version is off the versions topic it reads; main.nf mixes it into the table
            emits.append(f"    {reporter_versions} = {reporter.id.upper()}.out.{reporter_versions}")
        wf = self.env.get_template("skeleton/nextflow/workflow.nf.j2").render(
            version=__version__, workflow=workflow, includes=sorted(set(includes)), take=take,
            calls=calls, emits=emits)
        main = self.env.get_template("skeleton/nextflow/main.nf.j2").render(
            version=__version__, workflow=workflow, take=take, channels=self.entry_channels(workflow, take),
            reporter_versions=reporter_versions)
        return main, wf, uses

    def cluster_processes(self, workflow: Workflow) -> list[tuple[str, str, str, str, bool]]:
        """(process, its module's process name, the name with its workflow, its label, runs only with --fetch true)
        of every process: the SLURM fit check (subworkflows/local/utils_bioplan_pipeline) gives each the settings
        Nextflow gives it (withName on each name, withLabel on the label) and checks those the slurm profile submits."""
        steps = [(p.alias, p.name, f"BIOPLAN:{p.alias}", p.label, False)
                 for p in (self.prepare(workflow, s) for s in workflow.steps)]
        # the downloads of --fetch true, called by main.nf's own workflow: nf-core's process_single label
        return steps + [(f"FETCH_{r.key.upper()}", "FETCH_REFERENCE", f"FETCH_{r.key.upper()}", "process_single", True)
                        for r in workflow.references if r.downloads]

    def gated_arguments(self, args: list[tuple[str, str, Channel]], gates: list[WorkflowStep]) -> list[str]:
        """A call's channel arguments, each waiting for the precondition checks of its files: the
        per-sample channels joined on meta (with each per-sample check's ok, then dropped), the
        others combined with their cohort checks' ok."""
        lines = self.grouped_arguments(args, gates)
        sample_args = [a for a in args if a[1] == "sample"]
        if sample_args:
            expr = sample_args[0][2].expr
            for _, _, ch in sample_args[1:]:
                expr = f"{expr}\n        .join({ch.expr}, failOnMismatch: true)"
            names = ", ".join(f"f{i}" for i in range(len(sample_args)))
            for g in gates:
                if g.scope == "sample":
                    expr = (f"{expr}\n        .join({g.id.upper()}.out.ok, failOnMismatch: true)"
                            f"\n        .map {{ meta, {names}, _ok -> [meta, {names}] }}")
            lines.append(expr)
        cohort_gates = [g for g in gates if g.scope != "sample"]
        for port, kind, ch in args:
            if kind in ("sample", "grouped", "group"):
                continue
            expr = ch.expr
            for g in cohort_gates:
                if any(p.port == port for p in g.inputs):
                    # combine() returns a queue channel: .first() keeps a gated file a value
                    # channel, so every sample of a per-sample consumer still gets it
                    ok_items = "_ok_meta, _ok" if self.input_lines(g)[1] else "_ok"
                    if kind == "reference":
                        expr = (f"{expr}\n        .combine({g.id.upper()}.out.ok)"
                                f"\n        .map {{ f, {ok_items} -> f }}\n        .first()")
                    elif kind == "cohort":
                        expr = (f"{expr}\n        .combine({g.id.upper()}.out.ok)"
                                f"\n        .map {{ meta, f, {ok_items} -> [meta, f] }}\n        .first()")
            lines.append(expr)
        return lines

    @staticmethod
    def grouped_arguments(args: list[tuple[str, str, Channel]], gates: list[WorkflowStep]) -> list[str]:
        """A group step's ports as one channel: its samples' files grouped per patient, joined on the
        patient's meta with the per-patient files it reads and with the per-patient checks' ok files."""
        joined = [ch.expr for _, kind, ch in args if kind in ("grouped", "group")]
        if not joined:
            return []
        expr = joined[0]
        for other in joined[1:]:
            expr = f"{expr}\n        .join({other}, failOnMismatch: true)"
        for g in gates:
            if g.scope == "group":
                expr = (f"{expr}\n        .join({g.id.upper()}.out.ok, failOnMismatch: true)"
                        "\n        .map { items -> items[0..-2] }")
        return [expr]

    def _use(self, proc: PreparedProcess, step: WorkflowStep, args, outputs_by_path) -> dict:
        """What a call passes, for the structural arity check (validate/nextflow_checks.py)."""
        groups = {port: ioports for port, _, ioports in self.grouped_ports(step)}

        def sources(port: str, expected: int) -> list[tuple[str, str, int]]:
            ref = groups[port][0].ref
            if ref.kind != "result":
                return []
            producer = outputs_by_path[ref.path]
            return [(producer.id.upper(), _emit_name(ref.path, producer), expected)]

        channels = []
        sample = [port for port, kind, _ in args if kind == "sample"]
        if sample:
            channels.append({"arity": 1 + len(sample), "from": [x for p in sample for x in sources(p, 2)]})
        grouped = [(port, kind) for port, kind, _ in args if kind in ("grouped", "group")]
        if grouped:
            channels.append({"arity": 1 + sum(2 if kind == "grouped" else 1 for _, kind in grouped),
                             "from": [x for p, _ in grouped for x in sources(p, 2)]})
        for port, kind, _ in args:
            if kind == "gathered":
                channels.append({"arity": 3, "from": sources(port, 2)})
            elif kind == "cohort":
                channels.append({"arity": 2, "from": sources(port, 2)})
        for port, kind, _ in args:
            if kind == "reference":
                channels.append({"arity": 1, "from": sources(port, 1)})
        return {"alias": proc.alias, "channels": channels}

    def entry_channels(self, workflow: Workflow, take: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Channel construction in the entry workflow (the only place that reads params)."""
        out = []
        for name, _ in take:
            if name == "ch_reads":
                continue
            if name == _VERSIONS_TAKE:  # the versions of every process but MultiQC (which reads them)
                out.append((name, "channel.topic('versions')\n        .toList()\n"
                                  "        .map { rows -> softwareVersionsYaml(rows) }\n"
                                  "        .collectFile(name: 'software_versions_mqc_versions.yml')"))
                continue
            key = name.removeprefix("ch_")
            fetched = next((r for r in workflow.references if r.key == key and r.downloads), None)
            if fetched is not None:  # --fetch true downloads it when missing (modules/local/fetch_reference)
                missing = f"params.fetch && !file(params.{key}).exists()"
                request = f"[{escape.groovy(os.path.basename(fetched.path))}, file(params.{key}).parent.toString(), " \
                          f"{escape.groovy(shlex.join(fetch_arguments(fetched)))}]"
                out.append((f"ch_fetch_{key}", f"{missing} ? channel.of({request}) : channel.empty()"))
                out.append((name, f"{missing} ? FETCH_{key.upper()}(ch_fetch_{key}).reference.first() : "
                                  f"channel.value(file(params.{key}, checkIfExists: true))"))
            elif self._take_kinds.get(name) == "reference":
                out.append((name, f"channel.value(file(params.{key}, checkIfExists: true))"))
            else:
                out.append((name, f"channel.value([[id: 'study'], file(params.{key}, checkIfExists: true)])"))
        return out

    def module_dir(self, step: WorkflowStep) -> str:
        if step.kind == "check":
            return f"modules/local/bioplan/{step.id}"
        return module_path(self.knowledge.tools[step.tool])

    # ------------------------------------------------------------------ files
    def files(self, workflow: Workflow, options: EmitOptions = NO_OPTIONS) -> dict[str, str]:
        return self.files_and_uses(workflow, options)[0]

    def files_and_uses(self, workflow: Workflow, options: EmitOptions = NO_OPTIONS
                       ) -> tuple[dict[str, str], list[dict]]:
        """(the pipeline's files, what each process call passes: validate/nextflow_checks.py's `uses`)."""
        self.refuse_unsafe_names(workflow)
        escape.refuse_broken_slurm_settings(options)
        workflow = escape.mark_user_text(workflow)
        self._producers = {p.ref.path: s for s in workflow.steps for p in s.outputs}
        self._prepared = {}
        self._cluster = escape.mark_options(options)
        files: dict[str, str] = {}
        for s in workflow.steps:
            d = self.module_dir(s)
            files[f"{d}/main.nf"] = self.module_source(workflow, s)
            files[f"{d}/meta.yml"] = self.meta_yml(s)
            sw = next(x for x in workflow.software if x.env == s.env)
            deps = sw.conda
            tool = self.knowledge.tools.get(s.tool) if s.tool else None
            if tool is not None and any(x.endswith(".R") for x in tool.scripts) and not any(
                    "jsonlite" in d for d in deps):
                deps = (*deps, "conda-forge::r-jsonlite=1.8.9")  # bioplan_run.R reads params.json
            files[f"{d}/environment.yml"] = self.environment_yml(deps)
        main, wf, uses = self.workflow_files(workflow)
        files["main.nf"] = main
        if any(r.downloads for r in workflow.references):  # --fetch true: the download process and its script
            files["modules/local/fetch_reference/main.nf"] = (templates_dir() / "references" / "fetch_reference.nf"
                                                              ).read_text(encoding="utf-8")
            files["bin/fetch_reference.py"] = (templates_dir() / "references" / "fetch_reference.py").read_text(
                encoding="utf-8")
        files["workflows/bioplan.nf"] = wf
        files[UTILS_PIPELINE] = self.env.get_template("skeleton/nextflow/utils_pipeline.nf.j2").render(
            version=__version__, processes=self.cluster_processes(workflow))
        files.update(step_script_files(workflow.scripts, "bin"))  # with their helper modules
        for runner in ("bioplan_run.py", "bioplan_run.R"):
            files[f"bin/{runner}"] = (templates_dir() / "nextflow" / "bin" / runner).read_text(encoding="utf-8")
        ctx = dict(version=__version__, workflow=workflow, knowledge=self.knowledge,
                   request=escape.request_text(workflow.query), cluster=self._cluster, slurm_attempts=SLURM_ATTEMPTS,
                   intermediates=intermediate_outputs(self.knowledge, workflow),
                   unpublished=unpublished_endings(self.knowledge, workflow),
                   steps=[self.prepare(workflow, s) for s in workflow.steps])
        ctx.update(readme_dag_and_results(self.knowledge, workflow, ctx["steps"]))
        for name, rel in (("nextflow.config", "nextflow.config.j2"), ("conf/base.config", "base.config.j2"),
                          ("conf/modules.config", "modules.config.j2"), ("conf/test.config", "test.config.j2"),
                          ("README.md", "README.md.j2")):
            files[name] = self.env.get_template(f"skeleton/nextflow/{rel}").render(**ctx)
        files["nextflow_schema.json"] = self.params_schema(workflow)
        files["assets/schema_input.json"] = self.input_schema(workflow)
        files["assets/samplesheet.csv"] = self.samplesheet(workflow)
        return dict(sorted(files.items())), uses

    def meta_yml(self, step: WorkflowStep) -> str:
        """nf-core's meta.yml: name, description, at least three keywords, the tools under their package
        names (as the versions topic names them), every input and output with its datatype."""
        body: dict[str, Any]
        if step.kind == "check":
            body = {"name": step.id, "description": f"bioplan precondition: {step.constraint} before {step.guards}",
                    "keywords": ["bioplan", "precondition", "validation"], "tools": [{"python": {
                        "description": "bioplan check script", "homepage": "https://www.python.org",
                        "licence": ["PSF-2.0"]}}]}
        else:
            tool = self.knowledge.tools[step.tool]
            op = self.knowledge.operations[tool.implements]
            package = package_name(tool.software)
            keywords = {k.lower() for k in (package, tool.id, op.id.replace("_", " "), *op.aliases.en[:1])}
            body = {
                "name": tool.id,
                "description": " ".join(tool.description.split()),
                "keywords": sorted(keywords if len(keywords) >= 3 else keywords | {"bioinformatics"}),
                "tools": [{package: {"description": tool.name, "homepage": tool.homepage,
                                     **({"doi": tool.doi} if tool.doi else {}),
                                     **({"identifier": f"biotools:{tool.biotools}"} if tool.biotools else {})}}],
            }
        first: dict[str, IOPort] = {}  # port -> its first file: a pair's mates are one input channel
        for p in step.inputs:
            if p.datatype:
                first.setdefault(p.port, p)
        body["input"] = [{p.port: {"type": "file", "description": p.datatype,
                                   **({"ontologies": [{"edam": f"http://edamontology.org/{e}"}]}
                                      if (e := self._format_edam(p.format)) else {})}}
                         for p in first.values()]
        body["output"] = {p.port: {"type": "file", "description": p.datatype or p.port} for p in step.outputs}
        body["authors"] = ["bioplan"]
        return "---\n" + yaml_text.safe_dump(body, sort_keys=False, allow_unicode=True)

    def _format_edam(self, fmt: str) -> str | None:
        first = fmt.split("|")[0]
        f = self.knowledge.formats.get(first)
        return f.edam if f else None

    @staticmethod
    def environment_yml(deps: tuple[str, ...]) -> str:
        return "---\n" + yaml_text.safe_dump({"channels": ["conda-forge", "bioconda"], "dependencies": list(deps)},
                                             sort_keys=False)

    def script_params(self, tool: str) -> frozenset[str]:
        """The params a tool's module reads into its shell script (`tp.x`, `task.ext.tool_params?.x`)."""
        template = self.knowledge.tools[tool].templates.get("nextflow") if tool in self.knowledge.tools else None
        if not template or self.env.loader is None:
            return frozenset()
        return frozenset(_SCRIPT_PARAM.findall(self.env.loader.get_source(self.env, template)[0])) - {"extra"}

    def params_schema(self, workflow: Workflow) -> str:
        inputs = {"input": {"type": "string", "format": "file-path", "exists": True,
                            "schema": "assets/schema_input.json", "mimetype": "text/csv",
                            "description": "Sample sheet (CSV) with one row per sample."},
                  "outdir": {"type": "string", "format": "directory-path", "description": "Where results go."},
                  "publish_dir_mode": {"type": "string", "default": "copy",
                                       "enum": ["symlink", "rellink", "link", "copy", "copyNoFollow", "move"]}}
        if unpublished_endings(self.knowledge, workflow):
            inputs["save_intermediate_fastq"] = {
                "type": "boolean", "default": False,
                "description": "Publish the FASTQ files only later steps read too (merged lanes, trimmed reads); "
                               "they stay in work/ either way."}
        refs: dict[str, dict[str, Any]] = {c.key: {"type": "string", "format": "path",
                                                   "description": c.hint[:200],
                                                   **STAGED_NAME} for c in workflow.config_inputs}
        if workflow.references:
            refs["fetch"] = {"type": "boolean", "default": workflow.fetch_references,
                             "description": "Download the missing references (pinned URLs, provider checksums)."}
        tools = {}
        for tool, params in workflow.params.items():
            read = self.script_params(tool)
            for k, v in params.items():
                tools[f"{tool}_{k}"] = {**json_schema_type(v), "default": v} if v is not None else {"type": "string"}
                if k in read and isinstance(v, str):
                    tools[f"{tool}_{k}"].update(script_param_pattern(v))
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.org/bioplan/nextflow_schema.json",
            "title": "bioplan pipeline parameters",
            # nf-core's tools render a schema's descriptions as Markdown (`nf-core pipelines schema docs`, the
            # launch page): the request as the READMEs quote it, markup escaped and web addresses no links
            "description": escape.md(escape.request_text(workflow.query)),
            "type": "object",
            "$defs": {
                "input_output_options": {"title": "Input/output options", "type": "object",
                                         "required": ["outdir"] + (["input"] if workflow.has_samples else []),
                                         "properties": inputs},
                "reference_options": {"title": "Inputs and references", "type": "object", "properties": refs},
                "tool_options": {"title": "Tool parameters", "type": "object", "properties": tools},
                "max_job_request_options": MAX_JOB_REQUEST_OPTIONS,
            },
            "allOf": [{"$ref": "#/$defs/input_output_options"}, {"$ref": "#/$defs/reference_options"},
                      {"$ref": "#/$defs/tool_options"}, {"$ref": "#/$defs/max_job_request_options"}],
        }
        return json.dumps(schema, indent=4) + "\n"

    def input_schema(self, workflow: Workflow) -> str:
        # '.' and '..' name no sample (a module's `${prefix}` folder would be the task's own or its parent)
        props: dict[str, Any] = {"sample": {"type": "string",
                                            "pattern": r"^(?!\.\.?" + _END + r")[A-Za-z0-9._][A-Za-z0-9._+\-]*" + _END,
                                            "meta": ["id"],
                                            "errorMessage": "Sample names use letters, digits, '.', '_', '-', '+', "
                                                            "do not start with '-' or '+' and are not '.' or '..'"}}
        required = ["sample"]
        # the patient and status columns go into each sample's meta (meta.patient, meta.status)
        name = props["sample"]["pattern"]
        for col, schema in meta_column_schemas(workflow.meta_columns, name).items():
            props[col] = {**schema, "meta": [col]}
            required.append(col)
        for col in workflow.sample_columns[1:]:
            props[col] = {"type": "string", "format": "file-path", "exists": True, "pattern": STAGED_NAME["pattern"],
                          "errorMessage": f"{col}: the file must exist, its name of letters, digits, '.', '_', "
                                          "'-', '+', not starting with '-'"}
            if col != "fastq_2":
                required.append(col)
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                  "$id": "https://example.org/bioplan/assets/schema_input.json",
                  "title": "bioplan sample sheet", "description": "One row per sample.",
                  "type": "array",
                  "items": {"type": "object", "properties": props, "required": required},
                  "uniqueItems": True}
        return json.dumps(schema, indent=4) + "\n"

    @staticmethod
    def samplesheet(workflow: Workflow) -> str:
        cols = sheet_columns(workflow) or ["sample"]
        return escape.delimited([cols, *([row.get(c, "") for c in cols] for row in workflow.samples)], ",")


def unpublished_endings(knowledge: Knowledge, workflow: Workflow) -> dict[str, list[str]]:
    """{step id: file name endings of its intermediate reads}: FASTQ only later steps read (merged lanes,
    trimmed or host-depleted reads; `ir.intermediate_outputs`) stay in work/ unless
    --save_intermediate_fastq true, as nf-core publishes them only on request (save_merged_fastq,
    save_trimmed); an ending a kept output of the step shares is published."""
    intermediates = intermediate_outputs(knowledge, workflow)

    def endings(ports: Iterable[IOPort]) -> set[str]:
        # a folder's ending is its name after the sample's (`<sample>_trimmed_lanes`: codegen/lanes.py)
        return {e for p in ports if p.format in knowledge.formats for e in (
            [PurePosixPath(p.ref.path).name.replace("{sample}", "")] if p.ref.directory
            else knowledge.formats[p.format].extensions)}

    found = {}
    for step in workflow.steps:
        reads = [p for p in step.outputs if p.ref.path in intermediates and p.format in READ_FORMATS]
        dropped = endings(reads) - endings(p for p in step.outputs if p not in reads)
        if dropped:
            found[step.id] = sorted(dropped)
    return found


def grouped_channel(expr: str, key: str) -> Channel:
    """Per-sample items [meta, files] paired as nf-core/sarek pairs them: grouped on meta.patient, then one
    item per tumour of the patient, [meta of the pair (its id <tumour>_vs_<normal>, or the tumour's alone
    without a normal; its patient, tumour and normal sample ids), the pair's sample ids, their files], samples
    in id order. `key` is the IR's group key (`pair`), carried in the meta as the pair's id."""
    return Channel(
        f"{expr}\n        .map {{ meta, files -> [meta.patient, meta, files] }}"
        "\n        .groupTuple()"
        "\n        .flatMap { patient, metas, files ->"
        "\n                def items = [metas, files].transpose()"
        "\n                def normal = items.find { item -> item[0].status == 'normal' }"
        "\n                items.findAll { item -> item[0].status == 'tumour' }.collect { tumour ->"
        "\n                    def id = (normal ? \"${tumour[0].id}_vs_${normal[0].id}\" : tumour[0].id).toString()"
        "\n                    def pair = ([tumour] + (normal ? [normal] : [])).sort { item -> item[0].id }"
        f"\n                    def meta = [id: id, {key}: id, patient: patient, tumour: tumour[0].id, "
        "normal: normal ? normal[0].id : '']"
        "\n                    [meta, pair.collect { item -> item[0].id }, pair.collect { item -> item[1] }.flatten()]"
        "\n                }"
        "\n            }", "grouped")


def _checks_guarding(steps: list[WorkflowStep]) -> dict[str, list[WorkflowStep]]:
    """step id -> the checks it waits for (a check guards every step that reads the checked files)."""
    by_id = {s.id: s for s in steps}
    guarded_by: dict[str, list[WorkflowStep]] = {}
    for s in steps:
        for p in s.inputs:
            if p.port.startswith("check_") and p.datatype == "":
                guarded_by.setdefault(s.id, []).append(by_id[p.port])
    return guarded_by


def _target_emits(workflow: Workflow, outputs_by_path: dict[str, WorkflowStep]) -> list[str]:
    """The workflow's `emit:` lines: one per channel holding a target, in target order."""
    emits = []
    for t in workflow.targets:
        producer = outputs_by_path.get(t.path)
        if producer is not None:
            emit = _emit_name(t.path, producer)
            emits.append(f"    {producer.id}_{emit} = {producer.id.upper()}.out.{emit}")
    return list(dict.fromkeys(emits))


def _emit_name(path: str, producer: WorkflowStep) -> str:
    for p in producer.outputs:
        if p.ref.path == path:
            return p.port
    raise AssertionError(f"{path} is not an output of {producer.id}")


def readme_dag_and_results(knowledge, workflow: Workflow, steps: list) -> dict:
    """The README's Mermaid DAG and its table of results (published under results/<process>/)."""
    from bioplan.codegen.dag import final_results, result_description, to_mermaid

    alias = {p.step.id: p.alias for p in steps}
    results = [{"folder": f"results/{alias[r.step].lower()}/", "name": r.path.rsplit("/", 1)[-1],
                "process": alias[r.step], "per_sample": r.per_sample, "group": r.group,
                "what": result_description(knowledge, r)}
               for r in final_results(workflow)]
    return {"dag": to_mermaid(workflow), "results": results}
