"""Snakemake generator: Workflow IR -> files of a Snakemake workflow.

The snakemake-workflows standardized layout, in the workflow directory (-o DIR, where Snakemake runs
and finds workflow/Snakefile by itself):
    workflow/Snakefile, workflow/rules/common.smk, workflow/rules/<step>.smk, workflow/envs/<tool>.yaml,
    workflow/scripts/, workflow/schemas/{config,samples}.schema.yaml,
    config/config.yaml, config/samples.tsv, config/README.md,
    profiles/{default,slurm}/config.yaml, README.md
The generator writes the workflow/ part with paths relative to workflow/ (rules/, envs/, ...), which
are also the paths rules use among themselves ("../envs/x.yaml" from rules/); `standard_layout`
places them.
Each `*_expr` method lowers one IR node to Python source for a rule; templates
receive only these prepared strings (StrictUndefined).
"""

from __future__ import annotations

import functools
import re
from io import StringIO
from pathlib import Path
from typing import Any

import jinja2

from bioplan import __version__, cache
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
from bioplan.codegen.ir import (
    CHECK_ENV,
    FileRef,
    IOPort,
    Workflow,
    WorkflowStep,
    intermediate_outputs,
)
from bioplan.codegen.qc_report import AGGREGATOR  # the QC report also shows the versions table
from bioplan.codegen.step_scripts import step_script_files
from bioplan.codegen.versions_table import MULTIQC_TABLE, TABLE, version_sources
from bioplan.errors import InvalidKnowledgeError, TargetUnsupportedError
from bioplan.paths import templates_dir

_VERSIONS_ENV = "software_versions.yaml"  # the gather rule's env: cat and cp


def q(text: str) -> str:
    """A Python string literal (the `py` context filter: every non-printable character escaped)."""
    return escape.py(text)


def _env(loader_root: Path) -> jinja2.Environment:
    return escape.template_environment(str(loader_root))


# Snakemake reads `{name}` in any input or output path as a wildcard, and has no escape for it
# (doubled braces are not literal braces in file patterns, only in shell commands).
_WILDCARD = re.compile(r"\{\s*[.\w]+\s*(?:,[^{}]*)?\}")


def refuse_wildcard_names(workflow: Workflow) -> None:
    """Braces in sample names (they become wildcard values inside patterns) and `{word}` in input
    paths (read as wildcards) are refused, naming each sample or file and what to rename."""
    samples, paths = user_names(workflow)
    refuse_names("snakemake", [s for s in samples if "{" in s or "}" in s], [p for p in paths if _WILDCARD.search(p)],
                 "Snakemake reads '{name}' in a file path as a wildcard and cannot escape braces in file patterns",
                 ["rename them without '{' and '}' (e.g. counts_sample.csv)"])


# The SLURM executor (snakemake-executor-plugin-slurm 2.8) names each job's input files in the job's command
# (`--wait-for-files <path> ...`, quoted as Python's repr quotes them) and the workflow's folder (`--snakefile`):
# profiles/slurm passes that command to sbatch as a script, where a path holding a "'" is in double quotes, and
# '$(...)' and backticks in them are commands (an input folder "it's$(touch PWNED)" ran touch in each job reading a
# file of it), and a path holding both quotes is in single quotes with a \' the shell reads as the quote's end;
# `snakemake --executor slurm` without the profile puts the whole command inside sbatch --wrap="...", where '$(...)'
# and backticks in any path are commands on the submitting host. Such paths are refused for the Snakemake target.
SLURM_PATH_SYNTAX, SLURM_PATH_QUOTES = "$`", "'\""


def slurm_unquotable(path: str) -> bool:
    """Whether a job's command, as the SLURM executor quotes `path` in it, would run part of the path as shell code."""
    return any(c in path for c in SLURM_PATH_SYNTAX) or all(q in path for q in SLURM_PATH_QUOTES)


def refuse_slurm_unquotable_paths(workflow: Workflow) -> None:
    """Input and reference paths a job's command names that the SLURM executor's quoting turns into shell code."""
    _, paths = user_names(workflow)
    paths += [r.path for r in workflow.references]
    bad = list(dict.fromkeys(p for p in paths if slurm_unquotable(p)))
    refuse_names("snakemake", [], bad,
                 "run on SLURM, each job's command names its input files in quotes where '$(...)' and backticks are "
                 "commands (sbatch --wrap=\"...\" without profiles/slurm; a path holding a \"'\" with it), and a path "
                 "holding both quotes ends the quote",
                 ["to resolve, rename the file or folder without '$' and '`', and without either quote if it "
                  "holds both"])


def refuse_slurm_unquotable_folder(folder: str) -> None:
    """The workflow's folder (-o), which every SLURM job's command names (`--snakefile <folder>/workflow/Snakefile`,
    its temporary folder), quoted as its input files are: refused where that quoting turns it into shell code."""
    if slurm_unquotable(folder):
        raise TargetUnsupportedError(
            f"-o {folder!r}: run on SLURM, each job's command names the workflow's folder in quotes where '$(...)' "
            "and backticks are commands (sbatch --wrap=\"...\" without profiles/slurm; a path holding a \"'\" with "
            "it), and a path holding both quotes ends the quote",
            ["to resolve, write the workflow into a folder whose path holds no '$' or '`', and not both quotes"],
            {"path": folder})


# A tool param a rule's shell command reads unquoted (`{params.min_qual}` beside `{params.x:q}`): the config's
# value becomes shell words there, so the config schema holds a string value to one plain word (numbers and
# booleans are typed already). `extra` is the one param meant to carry several options.
_UNQUOTED_PARAM = re.compile(r"\{params\.(\w+)\}")
# (\Z, not $: Python's $ also matches before a final line break, and Snakemake validates with Python's re)
SHELL_WORD_PATTERN = r"^[A-Za-z0-9_.+:,=@%/-]*\Z"
# A sample name of config/samples.tsv (edited by hand after compiling): no character that would leave its
# folder, end a line or field, open a wildcard, add read-group fields or start a spreadsheet formula
# (codegen/ir.py unusable_sample_name), or that the SLURM logs or the HTML reports read as syntax ('%', '<', '>':
# codegen/names.py ID_SYNTAX; '$' and '`': the SLURM executor's --wrap; ',': a SLURM job's --target-jobs), nor a "'"
# at its start or end (stripped from that target: slurm_target_stripped)
SAMPLE_NAME_PATTERN = (r"^(?![-=+@'])(?!\.\.?$)"
                       r'[^/\\"{}<>%$`,\x00-\x1f\x7f-\x9f\u2028\u2029]+(?<!\')\Z')

# A file path of samples.tsv: rules pass it quoted, but a leading '-' would still read as an option, and a leading
# '=', '+' or '@' is a formula to a spreadsheet opening the sheet (any other character is a file name's: the compile
# writes what it was given, './' before those, see codegen/ir.py _rel), nor '$', '`' or both quotes (the SLURM
# executor names each job's files in its command: slurm_unquotable)
SHEET_PATH_PATTERN = r"^(?![-=+@])(?![\s\S]*[$`])(?![\s\S]*'[\s\S]*\")(?![\s\S]*\"[\s\S]*')"


def config_path_schema(what: str) -> dict[str, Any]:
    """The schema of a path in config.yaml (an input, a reference, the sample sheet), held to what the sample sheet's
    paths are held to: edited after compiling, a path holding "'" and "$(...)" was a command in every SLURM job naming
    it (`--wait-for-files`, Python's quotes), one starting with '-' an option to the tool reading `{input.x:q}`."""
    return {"type": "string", "minLength": 1, "pattern": SHEET_PATH_PATTERN,
            "description": f"path to the {what} file (not starting with - = + or @: ./-x; no $ ` and not both "
                           "' and \")"}


def shell_word_params(template_source: str) -> frozenset[str]:
    """The params a Snakemake template's shell command reads unquoted, `extra` aside."""
    return frozenset(_UNQUOTED_PARAM.findall(template_source)) - {"extra"}


def container_uri(image: str) -> str:
    """Snakemake's `container:` takes a URI: the IR's image reference pulled from a Docker registry."""
    return f"docker://{image}"


def check_group(workflow: Workflow, step: WorkflowStep) -> str | None:
    """A precondition check's group: the checks of one step are one cluster job (the SLURM profile's
    `group-components` says how many), side by side on one CPU each, unless a job has one CPU
    (--max-threads 1): then each stays its own job."""
    if step.kind != "check" or not step.guards or (workflow.max_threads or 2) < 2:
        return None
    return f"checks_{step.guards}"


class PreparedStep:
    """The `step` object a tool template sees (see templates/README.md)."""

    log_path: str  # set with the other prepared values

    def __init__(self, **values: Any):
        self.__dict__.update(values)

    def script(self, name: str) -> str:
        return q(f"../scripts/{name}")

    def aux_log(self, name: str) -> str:
        """Log path for a template's second rule (e.g. a database build): beside the step's log."""
        stem = self.log_path.removesuffix(".log")
        return q(f"{stem}.{name}.log")


class SnakemakeGenerator:
    """The Generator of the Snakemake target (codegen/generator.py)."""

    name = "snakemake"
    target = name
    entry_file = "workflow/Snakefile"
    precheck_name = "snakemake -n"
    executable_dirs: tuple[str, ...] = ()  # scripts run through `script:` or an interpreter

    def __init__(self, knowledge):
        self.knowledge = knowledge
        self.env = _env(templates_dir())

    # ------------------------------------------------------------ the Generator protocol
    def emit(self, workflow: Workflow, options: EmitOptions) -> Emitted:
        refuse_wildcard_names(workflow)
        refuse_slurm_unquotable_paths(workflow)
        return Emitted(self.files(workflow, options))

    def precheck(self, staged: Path, workflow: Workflow, output_dir: Path):
        from bioplan.validate.snakemake_precheck import precheck

        return precheck(staged, workflow, output_dir)

    # every SLURM job's command names the workflow's folder (refuse_slurm_unquotable_folder)
    refuse_output_folder = staticmethod(refuse_slurm_unquotable_folder)

    # ------------------------------------------------------------ lowering of IR nodes
    def ref_expr(self, ref: FileRef, consumer_scope: str, group_by: str | None = None) -> str:
        """A file as a rule's input reads it: a group step (one job per patient) reads the per-sample files
        of its group's samples through input functions of rules/common.smk; a cohort step every sample's
        and every group's files."""
        if ref.kind == "result":
            if ref.per_sample and consumer_scope == "group" and group_by:
                return f"group_expand({q(ref.path)}, {q(group_by)})"
            if ref.per_sample and consumer_scope != "sample":
                return f"expand({q(ref.path)}, sample=SAMPLES)"
            if ref.group and consumer_scope != "group":
                return f"expand({q(ref.path)}, {ref.group}=GROUPS[{q(ref.group)}])"
            return q(ref.path)
        if ref.kind == "config_input":
            return f'config["inputs"][{q(ref.path)}]'
        if ref.kind == "config_reference":
            return f'config["references"][{q(ref.path)}]'
        if ref.kind == "samplesheet":
            if ref.lanes:  # every lane's file of the sample, in sheet order (codegen/lanes.py)
                return f"sample_lane_files({q(ref.path)})"
            if consumer_scope == "sample":
                return f"sample_file({q(ref.path)})"
            if consumer_scope == "group" and group_by:
                return f"group_sample_files({q(ref.path)}, {q(group_by)})"
            return f"all_sample_files({q(ref.path)})"
        raise AssertionError(ref.kind)

    def output_expr(self, port: IOPort, intermediate: bool = False) -> str:
        path = q(port.ref.path)
        if port.ref.directory:  # a folder of FASTQ only later steps read is an intermediate too (ir.py)
            return f"intermediate(directory({path}))" if intermediate else f"directory({path})"
        # intermediate(): temp() unless config keep_intermediates (rules/common.smk)
        return f"intermediate({path})" if intermediate else path

    def param_expr(self, step: WorkflowStep, value: str) -> str:
        if value.startswith("params."):
            _, tool, name = value.split(".", 2)
            return f'config["params"][{q(tool)}][{q(name)}]'
        if value == "@samples":
            return f"group_samples({q(step.group_by)})" if step.group_by else "SAMPLES"
        if value == "@group_normal":  # the patient's normal sample, from the sample sheet's status column
            return f"group_normal({q(step.group_by or '')})"
        if value == "@datatypes":
            mapping = {p.name: p.datatype for p in step.inputs if p.datatype}
            return "{" + ", ".join(f"{q(k)}: {q(v)}" for k, v in sorted(mapping.items())) + "}"
        if value == "@condition_column":
            return 'config["condition_column"]'
        if value == "@lanes":  # the sample's lane names, in sheet order (codegen/lanes.py)
            return "sample_lanes()"
        return q(value)

    def prepare(self, workflow: Workflow, step: WorkflowStep) -> PreparedStep:
        tool = self.knowledge.tools[step.tool] if step.tool else None
        intermediates = intermediate_outputs(self.knowledge, workflow)
        inputs = [(p.name, self.ref_expr(p.ref, step.scope, step.group_by)) for p in step.inputs]
        if step.tool == AGGREGATOR and version_sources(self.knowledge, workflow):
            inputs.append(("software_versions", q(MULTIQC_TABLE)))  # its Software Versions section
        return PreparedStep(
            rule=step.id,
            inputs=inputs,
            outputs=[(p.name, self.output_expr(p, p.ref.path in intermediates)) for p in step.outputs],
            log=q(step.log),
            log_path=step.log,
            benchmark=q(step.benchmark) if step.benchmark else None,
            conda=q(f"../envs/{step.env}"),
            container=q(container_uri(step.container)),
            threads=step.threads,
            local=step.local,
            resources=[
                ("mem_mb", f"lambda wildcards, attempt: {step.mem_mb} * attempt"),
                ("runtime", f"lambda wildcards, attempt: {step.runtime} * attempt"),
            ],
            params=[(name, self.param_expr(step, value)) for name, value in step.params],
            paired=step.paired,
            gathered=[p.name for p in step.inputs if p.ref.gathered],
            tool=tool,
            organism=workflow.organism,
            check_script=q(f"../scripts/{step.script}") if step.script else None,
            constraint=step.constraint,
            guards=step.guards,
            group=check_group(workflow, step),
        )

    def template_name(self, step: WorkflowStep) -> str:
        """The step's template: the tool's Snakemake template, or the shared one of precondition checks."""
        if step.kind == "check" or step.tool is None:
            return "snakemake/_check.smk.j2"
        return self.knowledge.tools[step.tool].templates["snakemake"]

    def rule_source(self, workflow: Workflow, step: WorkflowStep) -> str:
        template = self.env.get_template(self.template_name(step))
        return template.render(step=self.prepare(workflow, step)).strip() + "\n"

    # ------------------------------------------------------------ files
    def files(self, workflow: Workflow, options: EmitOptions = NO_OPTIONS) -> dict[str, str | bytes]:
        escape.refuse_broken_slurm_settings(options)
        workflow = escape.mark_user_text(workflow)
        files: dict[str, str | bytes] = {}
        rule_files: dict[str, list[str]] = {}
        for step in workflow.steps:
            owner = step.guards or step.id
            rule_files.setdefault(owner, []).append(self.rule_source(workflow, step))
        order = [s.id for s in workflow.steps if s.kind == "tool"]
        for owner in order:
            files[f"rules/{owner}.smk"] = format_snakefile("\n\n".join(rule_files[owner]), f"rules/{owner}.smk")
        downloads = [r for r in workflow.references if r.downloads]
        if downloads:  # download rules for the references a provider publishes (run with fetch: true)
            files["rules/references.smk"] = format_snakefile(self.reference_rules(downloads), "rules/references.smk")
            files["scripts/fetch_reference.py"] = (templates_dir() / "references" / "fetch_reference.py").read_text(
                encoding="utf-8")
            files["envs/fetch_reference.yaml"] = self.conda_env(CHECK_ENV.conda[:1])  # the standard library only
        versions_rules = []
        if version_sources(self.knowledge, workflow):
            files["rules/software_versions.smk"] = format_snakefile(self.versions_rules(workflow),
                                                                    "rules/software_versions.smk")
            files[f"envs/{_VERSIONS_ENV}"] = self.conda_env(CHECK_ENV.conda)  # what its container carries
            versions_rules = ["rules/software_versions.smk"]
        files["Snakefile"] = format_snakefile(self.snakefile(workflow, order, versions_rules), "Snakefile")
        files["rules/common.smk"] = format_snakefile(self.common(workflow), "rules/common.smk")
        for sw in workflow.software:
            files[f"envs/{sw.env}"] = self.conda_env(sw.conda)
        files.update(step_script_files(workflow.scripts, "scripts"))  # with their helper modules
        files["schemas/config.schema.yaml"] = self.config_schema(workflow)
        files["config/config.yaml"] = self.config(workflow)
        if workflow.has_samples:
            files["schemas/samples.schema.yaml"] = self.samples_schema(workflow)
            files["config/samples.tsv"] = self.samples_tsv(workflow)
        files["profiles/default/config.yaml"] = self.profile_default(workflow)
        files["profiles/slurm/config.yaml"] = self.profile_slurm(workflow, options)
        # the SLURM run's fit check and pending watcher (rules/common.smk starts them)
        files["scripts/slurm_guard.py"] = (templates_dir() / "cluster" / "slurm_guard.py").read_text(encoding="utf-8")
        files["README.md"] = self.readme(workflow)
        files["config/README.md"] = self.config_readme(workflow, files["config/config.yaml"])
        return dict(sorted(standard_layout(files).items()))

    def render_skeleton(self, name: str, **values: Any) -> str:
        return self.env.get_template(f"skeleton/snakemake/{name}").render(
            version=__version__, request=escape.request_text(values["workflow"].query), **values)

    def snakefile(self, workflow: Workflow, order: list[str], extra_rules: list[str]) -> str:
        fetch_rules = ["rules/references.smk"] if any(r.downloads for r in workflow.references) else []
        return self.render_skeleton("Snakefile.j2", workflow=workflow,
                                    rule_files=[f"rules/{o}.smk" for o in order] + extra_rules + fetch_rules)

    def versions_rules(self, workflow: Workflow) -> str:
        """One rule per package running its version command in its tool's env, and the table of them."""
        sources = [{"slug": s.slug, "package": q(s.package), "command": q(s.command), "output": q(s.output),
                    "log": q(f"logs/versions/{s.package}.log"), "conda": q(f"../envs/{s.env}"),
                    "container": q(container_uri(s.container))}
                   for s in version_sources(self.knowledge, workflow)]
        return self.env.get_template("skeleton/snakemake/software_versions.smk.j2").render(
            sources=sources, table=q(TABLE), multiqc_table=q(MULTIQC_TABLE), conda=q(f"../envs/{_VERSIONS_ENV}"),
            container=q(container_uri(CHECK_ENV.container)))

    def reference_rules(self, downloads: list) -> str:
        return self.env.get_template("skeleton/snakemake/references.smk.j2").render(
            downloads=downloads, args={r.key: fetch_arguments(r) for r in downloads},
            container=container_uri(CHECK_ENV.container))

    def final_targets(self, workflow: Workflow) -> list[str]:
        versions = [q(TABLE)] if version_sources(self.knowledge, workflow) else []
        return [self.ref_expr(t, "cohort") for t in workflow.targets] + versions

    def common(self, workflow: Workflow) -> str:
        return self.render_skeleton("common.smk.j2", workflow=workflow, targets=self.final_targets(workflow))

    def conda_env(self, deps: tuple[str, ...]) -> str:
        body = {"channels": ["conda-forge", "bioconda", "nodefaults"], "dependencies": list(deps)}
        return yaml_text.safe_dump(body, sort_keys=False)

    def config(self, workflow: Workflow) -> str:
        return self.render_skeleton("config.yaml.j2", workflow=workflow)

    def config_schema(self, workflow: Workflow) -> str:
        inputs = {c.key: config_path_schema(c.key) for c in workflow.config_inputs if c.section == "inputs"}
        refs = {c.key: config_path_schema(c.key) for c in workflow.config_inputs if c.section == "references"}
        params = {tool: {"type": "object", "properties": self.param_schemas(tool, p), "required": sorted(p)}
                  for tool, p in workflow.params.items()}
        schema: dict[str, Any] = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "bioplan workflow configuration",
            "type": "object",
            "properties": {
                "inputs": {"type": "object", "properties": inputs, "required": sorted(inputs)},
                "references": {"type": "object", "properties": refs, "required": sorted(refs)},
                "request": {"type": "string", "description": "the request this workflow was compiled from"},
                "params": {"type": "object", "properties": params, "required": sorted(params)},
            },
            "required": ["inputs", "references", "params"],
        }
        if workflow.references:  # download the missing references (rules/references.smk)
            schema["properties"]["fetch"] = {"type": "boolean", "default": False}
        schema["properties"]["keep_intermediates"] = {
            "type": "boolean", "default": False,
            "description": "keep files only later steps read (else deleted once they have: temp())"}
        if workflow.has_samples:
            schema["properties"]["samples"] = config_path_schema("sample sheet")
            schema["required"].append("samples")
        if workflow.condition_column:
            schema["properties"]["condition_column"] = {"type": "string", "minLength": 1}
            schema["required"].append("condition_column")
        return yaml_text.safe_dump(schema, sort_keys=False)

    def param_schemas(self, tool: str, params: dict[str, Any]) -> dict[str, Any]:
        """Each param's JSON Schema: its default's type; a string the rule's shell reads unquoted is one word."""
        template = self.knowledge.tools[tool].templates.get("snakemake") if tool in self.knowledge.tools else None
        source = self.env.loader.get_source(self.env, template)[0] if template and self.env.loader else ""
        words = shell_word_params(source)
        schemas = {}
        for name, value in params.items():
            schemas[name] = json_schema_type(value)
            if name in words and schemas[name].get("type", "string") == "string":
                schemas[name] = {**schemas[name], "pattern": SHELL_WORD_PATTERN,
                                 "description": "one word: the rule's shell command reads it unquoted"}
        return schemas

    def samples_schema(self, workflow: Workflow) -> str:
        props: dict[str, Any] = {"sample": {
            "type": "string", "minLength": 1, "pattern": SAMPLE_NAME_PATTERN,
            "description": "sample name: no / \" \\ { } < > % $ ` , or controls, no leading - = + @ ', "
                           "no trailing '"}}
        props.update(meta_column_schemas(workflow.meta_columns, SAMPLE_NAME_PATTERN))
        for col in workflow.sample_columns[1:]:
            props[col] = {"type": "string", "minLength": 1, "pattern": SHEET_PATH_PATTERN,
                          "description": f"path to the {col} file (not starting with - = + or @: ./-x; no $ ` "
                                         "and not both ' and \")"}
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "one row per sample",
            "type": "object",
            "properties": props,
            "required": sheet_columns(workflow),
        }
        return yaml_text.safe_dump(schema, sort_keys=False)

    def samples_tsv(self, workflow: Workflow) -> str:
        columns = sheet_columns(workflow)
        rows = [[row.get(c, "") for c in columns] for row in workflow.samples]
        return escape.delimited([columns, *rows], "\t")

    def profile_default(self, workflow: Workflow) -> str:
        return self.render_skeleton("profile_default.yaml.j2", workflow=workflow)

    def profile_slurm(self, workflow: Workflow, options: EmitOptions) -> str:
        return self.render_skeleton("profile_slurm.yaml.j2", workflow=workflow, cluster=escape.mark_options(options))

    def config_readme(self, workflow: Workflow, config_text: str | bytes) -> str:
        """config/README.md: what every key of config/config.yaml means (codegen/config_doc.py)."""
        from bioplan.codegen.config_doc import config_keys

        text = config_text.decode("utf-8") if isinstance(config_text, bytes) else config_text
        return self.render_skeleton("config_README.md.j2", workflow=workflow,
                                    keys=config_keys(self.knowledge, workflow, text))

    def readme(self, workflow: Workflow) -> str:
        from bioplan.codegen.dag import final_results, result_description, to_mermaid

        results = [{"path": r.path, "step": r.step, "per_sample": r.per_sample, "group": r.group,
                    "what": result_description(self.knowledge, r)} for r in final_results(workflow)]
        return self.render_skeleton("README.md.j2", workflow=workflow, knowledge=self.knowledge,
                                    dag=to_mermaid(workflow), results=results,
                                    intermediates=intermediate_outputs(self.knowledge, workflow))


# What stays at the top of the workflow directory; everything else goes under workflow/.
_TOP_LEVEL_DIRS = ("config/", "profiles/")
_TOP_LEVEL_FILES = ("README.md",)


def standard_layout(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    """The snakemake-workflows layout: config/, profiles/ and README.md at the top, the Snakefile,
    rules, envs, scripts and schemas under workflow/."""
    return {(rel if rel in _TOP_LEVEL_FILES or rel.startswith(_TOP_LEVEL_DIRS) else f"workflow/{rel}"): content
            for rel, content in files.items()}


def _shfmt_on_path() -> None:
    """snakefmt formats shell blocks with `shfmt` (the pinned shfmt-py wheel puts it beside
    this Python); make it findable when the virtualenv is not activated."""
    import os
    import shutil
    import sys

    if shutil.which("shfmt") is None:
        here = str(Path(sys.executable).parent)
        os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")


def format_snakefile(source: str, name: str) -> str:
    """Format like `snakefmt` does (sorted directives, Black, shfmt for shell blocks).

    Templates already follow snakefmt's layout; this settles what they cannot know,
    such as where a long config lookup must wrap. A template that emits invalid
    Snakemake fails here, naming the file.
    """
    try:
        return _snakefmt(source)
    except Exception as exc:  # snakefmt raises many kinds; all mean the template emitted bad code
        raise InvalidKnowledgeError([f"templates: the emitted {name} is not valid Snakemake: {exc}"]) from exc


@functools.lru_cache(maxsize=2048)
def _snakefmt(source: str) -> str:
    """snakefmt's output for one source text, once per process: a function of the text alone, and the
    same rule text (FastQC's, MultiQC's, the versions rules) recurs across the compiles of one
    process (`bioplan eval`, the test suite); Black is most of an emit. Across processes (each
    `bioplan compile`, the test workers) the on-disk cache remembers it (`_FORMAT_KIND`)."""
    key = cache.content_key([_formatter_fingerprint().encode(), source.encode()])
    remembered = cache.read(_FORMAT_KIND, key, str)
    if remembered is not None:
        return remembered
    from snakefmt import DEFAULT_LINE_LENGTH
    from snakefmt.parser.parser import Snakefile

    _shfmt_on_path()
    formatter = _formatter_class()(Snakefile(StringIO(source)), line_length=DEFAULT_LINE_LENGTH,
                                   sort_directives=True, format_shell=True)
    formatted = formatter.get_formatted()  # a text snakefmt refuses raises: never remembered
    cache.write(_FORMAT_KIND, key, formatted)
    return formatted


# snakefmt's output per source text in the on-disk cache (bioplan/cache.py: one file per key, written
# atomically, read only from files and folders no other user can write): a cold compile formats ~10
# files, ~0.1 s each (Black per directive, an shfmt process per shell block), and the same text recurs
# in the next `bioplan compile` of the same request or tool. The key is the text and everything else
# the output is a function of (`_formatter_fingerprint`).
_FORMAT_KIND = "snakefmt"


@functools.cache
def _formatter_fingerprint() -> str:
    """What snakefmt's output depends on besides the text: the snakefmt, Black and shfmt-py versions, the
    shfmt binary found on PATH (its path, size and modification time: the one snakefmt runs), and the
    source of this module (the options above and the Black memo)."""
    import os
    import shutil
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "absent"

    _shfmt_on_path()
    shfmt = shutil.which("shfmt")
    stat = os.stat(shfmt) if shfmt else None
    binary = f"{os.path.realpath(shfmt)}:{stat.st_size}:{stat.st_mtime_ns}" if shfmt and stat else "absent"
    versions = [f"{name}={installed(name)}" for name in ("snakefmt", "black", "shfmt-py")]
    return "\0".join([*versions, binary, cache.source_fingerprint((__name__,))])


# Black's output per piece of code snakefmt hands it (a directive's value, a run: block), shared by
# every file this process formats: a rule file holds ~17 such pieces, and across the files of one
# compile, and the compiles of one process, three in four recur (`threads: 1`, log paths, the same
# tool's shell command): Black was most of a first emit.
_BLACK_MEMO_SIZE = 20_000
_BLACK_MEMO: cache.Memo[tuple, str] = cache.Memo(_BLACK_MEMO_SIZE)


@functools.cache
def _formatter_class() -> type:
    from snakefmt.formatter import Formatter

    class MemoFormatter(Formatter):
        """snakefmt's Formatter with Black's result remembered per input: `run_black_format_str` is a
        function of its arguments, whether the code may be nested (what it reads of the parser's state)
        and the Black mode (fixed here); a failure (invalid code) is never remembered."""

        def run_black_format_str(self, string: str, target_indent: int, extra_spacing: int = 0,
                                 no_nesting: bool = False) -> str:
            nestable = bool(self.from_python or self.syntax.accepts_python_code)
            key = (string, target_indent, extra_spacing, no_nesting, nestable, self.black_mode.line_length)
            formatted = _BLACK_MEMO.get(key)
            if formatted is None:
                formatted = super().run_black_format_str(string, target_indent, extra_spacing, no_nesting)
                _BLACK_MEMO.keep(key, formatted)
            return formatted

    return MemoFormatter
