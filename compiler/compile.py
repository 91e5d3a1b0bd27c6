"""The library API: the stages in their fixed order.

    plan_request:    parse -> sniff -> spec -> search/rank -> bind      (bioplan plan)
    compile_request: plan_request -> synthesize -> emit -> pre-check -> atomic write (bioplan compile)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bioplan import __version__
from bioplan.errors import (
    BioplanError,
    InvalidKnowledgeError,
    OutputExistsError,
    TargetUnsupportedError,
    UnreadableInputError,
    ValidationFailedError,
)
from bioplan.knowledge.load import load_knowledge
from bioplan.knowledge.models import Knowledge
from bioplan.models import InputProfile, Plan, PlanResult, Pruned, SniffedFile
from bioplan.planner.bind import bind_plan
from bioplan.planner.plan import search_plans
from bioplan.progress import slow_step
from bioplan.request.parse import parse_request
from bioplan.request.sniff import sniff_inputs
from bioplan.request.spec import build_spec
from bioplan.validate.snakemake_checks import CheckResult, validate_workflow

if TYPE_CHECKING:
    from bioplan.codegen.ir import Workflow

TARGETS = ("snakemake", "nextflow")
ENTRY_FILE = {"snakemake": "Snakefile", "nextflow": "main.nf"}


def organism_prefixes(knowledge: Knowledge) -> dict[str, str]:
    return {c.ensembl_prefix: c.id for c in knowledge.constraints.values() if c.ensembl_prefix}


def declared_file(knowledge: Knowledge, path: str, datatype: str) -> SniffedFile:
    """An input whose datatype the user declared (--input-type PATH=DATATYPE) instead of sniffing."""
    if datatype not in knowledge.datatypes:
        from rapidfuzz import process

        near = process.extractOne(datatype, sorted(knowledge.datatypes), score_cutoff=60)
        raise UnreadableInputError(
            f"--input-type {path}={datatype}: unknown datatype {datatype!r}",
            [f"did you mean {near[0]!r}?" if near else "datatype ids are listed in ontology/datatypes.yaml"],
            {"path": path})
    if not os.path.exists(path):
        raise UnreadableInputError(f"{path}: file not found", ["check the path"], {"path": path})
    name = os.path.basename(path).lower()
    fmt = next((f.id for f in sorted(knowledge.formats.values(), key=lambda f: -max((len(e) for e in f.extensions), default=0))
                if any(name.endswith(e) for e in f.extensions)), "txt")
    return SniffedFile(path=path, datatype=datatype, format=fmt, evidence=("declared with --input-type",))


def sniff_with_declarations(knowledge: Knowledge, inputs: list[str], declared: dict[str, str]) -> InputProfile:
    sniffed = sniff_inputs([p for p in inputs if p not in declared], organism_prefixes(knowledge))
    files: list[SniffedFile] = []
    for p in inputs:
        if p in declared:
            files.append(declared_file(knowledge, p, declared[p]))
            continue
        # a folder of per-sample folders stands for several inputs; parts of a 10x triple for none
        inside = os.path.join(p, "")
        files += [f for f in sniffed.files if (f.path == p or f.path.startswith(inside)) and f not in files]
    return InputProfile(files=tuple(files), warnings=sniffed.warnings)


def plan_request(query: str, inputs: list[str], knowledge: Knowledge | None = None, top_k: int = 3,
                 max_hops: int = 8, declared: dict[str, str] | None = None, substitute: bool = False,
                 allow_partial: bool = False) -> PlanResult:
    knowledge = knowledge or load_knowledge()
    request = parse_request(query, knowledge)
    declared = dict(declared or {})
    inputs = list(inputs) + [p for p in declared if p not in inputs]
    profile = sniff_with_declarations(knowledge, inputs, declared)
    spec = build_spec(request, profile, knowledge, max_hops=max_hops, substitute=substitute,
                      allow_partial=allow_partial)
    result = search_plans(knowledge, spec, top_k=top_k)
    bound: list[Plan] = []
    pruned: list[Pruned] = list(result.pruned)
    first_error: BioplanError | None = None
    for plan in result.plans:
        try:
            b, tool_pruned = bind_plan(knowledge, spec, plan)
        except BioplanError as exc:  # a plan no tool combination runs is dropped, with its reason
            first_error = first_error or exc
            pruned.append(Pruned(kind="plan", id="+".join(s.id for s in plan.steps), reason=exc.message))
            continue
        bound.append(b)
        pruned.extend(p for p in tool_pruned if p not in pruned)
    if not bound:
        raise first_error  # type: ignore[misc]
    bound = [p.model_copy(update={"rank": i + 1}) for i, p in enumerate(bound)]
    return result.model_copy(update={"plans": tuple(bound), "pruned": tuple(dict.fromkeys(pruned))})


@dataclass
class CompileResult:
    output_dir: Path
    snakefile: Path
    files: list[str]
    plan: Plan
    result: PlanResult
    checks: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def emit_files(knowledge: Knowledge, result: PlanResult, plan: Plan, target: str, workdir: Path,
               cluster: dict[str, str | None] | None = None) -> tuple[Workflow, dict]:
    # the generators load only when a workflow is emitted: `bioplan plan` never pays for them
    from bioplan.codegen.ir import synthesize
    from bioplan.codegen.nextflow import NextflowGenerator
    from bioplan.codegen.snakemake import SnakemakeGenerator
    from bioplan.validate.nextflow_checks import check_pipeline

    if target not in TARGETS:
        raise TargetUnsupportedError(f"unknown target {target!r}", [f"use one of: {', '.join(TARGETS)}"])
    cluster = cluster or {}
    workflow = synthesize(knowledge, result.spec, plan, workdir=str(workdir),
                          slurm_partition=cluster.get("partition"), slurm_account=cluster.get("account"))
    if target == "nextflow":
        generator = NextflowGenerator(knowledge)
        files = generator.files(workflow)
        problems = check_pipeline(files, generator.uses)
        if problems:  # a template or the wiring is wrong: never write a pipeline that would not run
            raise InvalidKnowledgeError([f"nextflow: {p}" for p in problems])
        return workflow, files
    return workflow, SnakemakeGenerator(knowledge).files(workflow)


def _write_tree(root: Path, files: dict) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
        # Nextflow puts bin/ on the PATH of every task: its scripts must be executable
        path.chmod(0o755 if rel.startswith("bin/") else 0o644)


def _precheck(stage: Path, workflow: Workflow) -> CheckResult:
    """`snakemake -n` on a scratch copy where references the user must still supply exist as empty files."""
    scratch = Path(tempfile.mkdtemp(prefix=".bioplan-check-", dir=stage.parent))
    try:
        shutil.copytree(stage, scratch, dirs_exist_ok=True)
        import yaml

        config = yaml.safe_load((scratch / "config" / "config.yaml").read_text())
        for key, path in (config.get("references") or {}).items():
            p = scratch / path
            if not p.exists():
                p.parent.mkdir(parents=True, exist_ok=True)
                directory = any(s for s in workflow.config_inputs if s.key == key and s.format in (
                    "kraken2_db", "dmp", "hisat2_index", "star_index", "bwa_index", "bowtie2_index", "salmon_index"))
                p.mkdir(exist_ok=True) if directory else p.touch()
        return validate_workflow(scratch, ("dry_run",))[0]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def compile_request(query: str, inputs: list[str], output: str, target: str = "snakemake", force: bool = False,
                    validate: bool = True, top_k: int = 3, max_hops: int = 8,
                    knowledge: Knowledge | None = None, declared: dict[str, str] | None = None,
                    partition: str | None = None, account: str | None = None, substitute: bool = False,
                    allow_partial: bool = False) -> CompileResult:
    knowledge = knowledge or load_knowledge()
    if target not in TARGETS:
        raise TargetUnsupportedError(f"unknown target {target!r}", [f"use one of: {', '.join(TARGETS)}"])
    entry = ENTRY_FILE[target]
    out = Path(output)
    out_dir = out if (output.endswith(os.sep) or out.is_dir()) else out.parent
    entry_name = entry if out_dir == out else out.name
    if entry_name != entry:
        raise TargetUnsupportedError(
            f"-o {output}: the {target} target writes a file named {entry!r}",
            [f"use -o {out_dir / entry}"])
    out_dir = out_dir if str(out_dir) else Path(".")
    result = plan_request(query, inputs, knowledge, top_k=top_k, max_hops=max_hops, declared=declared,
                          substitute=substitute, allow_partial=allow_partial)

    tried: list[str] = []
    created = _make_parents(out_dir.resolve().parent)
    try:
        return _compile_plans(knowledge, result, out_dir, target, force, validate, tried,
                              {"partition": partition, "account": account})
    except BaseException:
        for d in reversed(created):  # a failed compile leaves no trace, not even empty directories
            try:
                d.rmdir()
            except OSError:
                pass
        raise


def _make_parents(directory: Path) -> list[Path]:
    missing = []
    d = directory
    while not d.exists():
        missing.append(d)
        d = d.parent
    for d in reversed(missing):
        d.mkdir()
    return list(reversed(missing))


def _compile_plans(knowledge: Knowledge, result: PlanResult, out_dir: Path, target: str, force: bool,
                   validate: bool, tried: list[str], cluster: dict[str, str | None]) -> CompileResult:
    for plan in result.plans[:2]:  # the best plan, and the next-ranked one if it fails its pre-check
        workflow, files = emit_files(knowledge, result, plan, target, out_dir, cluster)
        clashes = sorted(rel for rel in files if (out_dir / rel).exists())
        if clashes and not force:
            raise OutputExistsError(
                f"{out_dir} already holds files bioplan would overwrite: {', '.join(clashes[:5])}"
                + (" ..." if len(clashes) > 5 else ""),
                ["pass --force to overwrite them, or choose another -o directory"], {"files": clashes})
        stage = Path(tempfile.mkdtemp(prefix=".bioplan-stage-", dir=out_dir.resolve().parent))
        try:
            _write_tree(stage, files)
            checks: list[CheckResult] = []
            if validate and target == "snakemake":
                with slow_step("checking the emitted workflow with snakemake -n"):
                    check = _precheck(stage, workflow)
                checks.append(check)
                if not check.ok:
                    tried.append(f"plan {plan.rank}: snakemake -n failed:\n{check.output[-2000:]}")
                    continue
            _install(stage, out_dir, files)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        notes = [f"plan {plan.rank} was used after plan 1 failed its pre-check"] if tried else []
        return CompileResult(out_dir, out_dir / ENTRY_FILE[target], sorted(files), plan, result, checks,
                             notes + tried)
    raise ValidationFailedError(
        "the emitted workflow failed `snakemake -n` for the best plan and the next-ranked one:\n"
        + "\n".join(t[-1500:] for t in tried),
        ["this is a bug in bioplan's knowledge or templates; please report it with the request",
         "use --no-validate to write the workflow anyway and inspect it"],
        {"attempts": tried})


def _install(stage: Path, out_dir: Path, files: dict) -> None:
    """Move the staged tree into place: a fresh directory by one rename, else file by file."""
    if not out_dir.exists():
        os.replace(stage, out_dir)
        stage.mkdir()  # the caller removes it
        return
    for rel in files:
        dest = out_dir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / rel, dest)


def version() -> str:
    return __version__
