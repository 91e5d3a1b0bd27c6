"""The library API: the stages in their fixed order.

    plan_request:    parse -> sniff -> spec -> search/rank -> bind      (bioplan plan)
    compile_request: plan_request -> synthesize -> emit -> pre-check -> atomic write (bioplan compile)

Emit and pre-check belong to the target's Generator (codegen/generator.py): this module looks it up
by name in the registry (which imports a generator's module only when a workflow is emitted, so
`bioplan plan` never pays for Jinja and the templates) and never branches on a target.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bioplan import __version__
from bioplan.cache import sha256
from bioplan.codegen import DEFAULT_TARGET, target_names
from bioplan.errors import (
    BioplanError,
    InvalidKnowledgeError,
    InvalidOptionError,
    OutputExistsError,
    OutputUnwritableError,
    TargetUnsupportedError,
    UnreadableInputError,
    ValidationFailedError,
)
from bioplan.knowledge.load import load_knowledge
from bioplan.knowledge.models import Format, Knowledge
from bioplan.knowledge.queries import exact_makers
from bioplan.models import DEFAULT_MAX_HOPS, InputProfile, Plan, PlanResult, Pruned, Request, SniffedFile, TaskSpec
from bioplan.planner.bind import bind_plan
from bioplan.planner.plan import search_plans
from bioplan.progress import slow_step
from bioplan.request.parse import parse_request
from bioplan.request.passes.honesty import settings_after_binding
from bioplan.request.sniff import sniff_inputs
from bioplan.request.spec import build_spec
from bioplan.signals import deferred_signals

if TYPE_CHECKING:
    from bioplan.codegen.generator import Generator
    from bioplan.codegen.ir import Workflow
    from bioplan.validate.check_result import CheckResult  # a compile's checks: not imported by `bioplan plan`


def generator_class(target: str) -> type[Generator]:
    """`codegen.generator.generator_class`, imported on first use: `bioplan plan` loads no generator code."""
    from bioplan.codegen import generator

    return generator.generator_class(target)


def make_generator(target: str, knowledge: Knowledge) -> Generator:
    return generator_class(target)(knowledge)


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
    # the longest matching extension; among formats sharing it, one the datatype lists (a .tsv ASV table is
    # tsv, not the PLINK phenotype table's plink_pheno), then not one recognised as another datatype's (a
    # DADA2 training FASTA for a FASTA declared as the SortMeRNA rRNA database)
    own = set(knowledge.datatypes[datatype].formats)

    def rank(f: Format) -> tuple[int, int, int]:
        other = f.sniff is not None and f.sniff.datatype != datatype
        return -max((len(e) for e in f.extensions if name.endswith(e)), default=0), int(f.id not in own), int(other)

    fmt = next((f.id for f in sorted(knowledge.formats.values(), key=rank)
                if any(name.endswith(e) for e in f.extensions)), "txt")
    return SniffedFile(path=path, datatype=datatype, format=fmt, evidence=("declared with --input-type",))


def expected_inputs(knowledge: Knowledge, request: Request | None) -> tuple[dict[str, str], ...]:
    """What the request expects among its inputs, in two levels: the datatypes the requested operations
    read, then the datatypes it names; each with the reason said in the evidence. They settle an input
    whose content allows several readings (`sniff_inputs`)."""
    if request is None:
        return ()
    reads: dict[str, str] = {}
    for op in (knowledge.operations[o] for o in request.operations if o in knowledge.operations):
        for port in (p for p in op.inputs.values() if not p.optional and p.datatype in knowledge.datatypes):
            what = knowledge.datatypes[port.datatype].label.lower()
            reads.setdefault(port.datatype, f"the requested {op.label.lower()} reads a {what}")
            # one step upstream: read alignment reads a genome index, made from a reference genome
            for maker in (knowledge.operations[m] for m in exact_makers(knowledge).get(port.datatype, ())):
                for up in (p for p in maker.inputs.values() if not p.optional and p.datatype in knowledge.datatypes):
                    reads.setdefault(up.datatype, f"the requested {op.label.lower()} reads a {what}, made from a "
                                     f"{knowledge.datatypes[up.datatype].label.lower()}")
    named = {d: f"the request names a {knowledge.datatypes[d].label.lower()}"
             for d in request.datatypes if d in knowledge.datatypes}
    return reads, named


def sniff_with_declarations(knowledge: Knowledge, inputs: list[str], declared: dict[str, str],
                            request: Request | None = None) -> InputProfile:
    sniffed = sniff_inputs([p for p in inputs if p not in declared], organism_prefixes(knowledge), knowledge.formats,
                           expected_inputs(knowledge, request))
    files: list[SniffedFile] = []
    # the files taken so far, by path: an equal file has the same path (`f not in files` over the whole
    # list was quadratic: a folder of 3,000 quantifier runs compared files 4.5 million times, 65 s)
    taken: dict[str, list[SniffedFile]] = {}

    def take(f: SniffedFile) -> None:
        if f not in taken.setdefault(f.path, []):
            taken[f.path].append(f)
            files.append(f)

    # the sniffed files (their places) under each path and each folder prefix ('a/', 'a/b/') of their paths:
    # each input's files are looked up, not searched for (a scan per input was quadratic: 4,000 FASTQ pairs
    # given one by one compared 64 million paths, 26 s)
    under: dict[str, list[int]] = {}
    for i, f in enumerate(sniffed.files):
        for key in (f.path, *(f.path[:j + 1] for j, c in enumerate(f.path) if c == "/")):
            under.setdefault(key, []).append(i)
    for p in inputs:
        if p in declared:
            files.append(declared_file(knowledge, p, declared[p]))
            taken.setdefault(p, []).append(files[-1])
            continue
        # a folder of per-sample folders stands for several inputs; parts of a 10x triple for none
        inside = os.path.join(p, "")
        for i in sorted({*under.get(p, ()), *under.get(inside, ())}):
            take(sniffed.files[i])
    for f in sniffed.files:  # the FASTQ files a sample sheet names
        take(f)
    return InputProfile(files=tuple(files), warnings=sniffed.warnings)


# the progress line (on stderr, only when it takes over a second) of planning, in `plan` and `compile`
PLANNING = "planning (reading the request, sniffing the inputs, searching the plans)"


def plan_request(query: str, inputs: list[str], knowledge: Knowledge | None = None, top_k: int = 3,
                 max_hops: int = DEFAULT_MAX_HOPS, declared: dict[str, str] | None = None, substitute: bool = False,
                 allow_partial: bool = False) -> PlanResult:
    knowledge = knowledge or load_knowledge()
    request = parse_request(query, knowledge)
    declared = dict(declared or {})
    inputs = list(inputs) + [p for p in declared if p not in inputs]
    profile = sniff_with_declarations(knowledge, inputs, declared, request)
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
    _refuse_interleaved_reads(profile, bound[0])
    spec = _warn_unused_inputs(knowledge, result.spec, bound[0])
    spec = _warn_assumed_settings(knowledge, spec, bound[0])
    spec = settings_after_binding(knowledge, spec, bound[0])
    # the notes added against the bound plan (settings set or not honoured, assumed settings) reach the report
    warnings = result.warnings + tuple(w for w in spec.warnings if w not in result.warnings)
    return result.model_copy(update={"plans": tuple(bound), "pruned": tuple(dict.fromkeys(pruned)), "spec": spec,
                                     "warnings": warnings})


# steps that read each FASTQ file as it is, whatever its layout (FastQC reports an interleaved file as one)
_ANY_LAYOUT = ("read_qc",)


def _refuse_interleaved_reads(profile: InputProfile, plan: Plan) -> None:
    """An interleaved FASTQ (mates alternating in one file) where a step reads the reads as mates: every step's
    template reads a pair as two files, so the file would be run as single-end reads. Refused saying how to split."""
    from bioplan.request.sniffers.base import unreadable

    readers = [s.operation for s in plan.steps if s.operation not in _ANY_LAYOUT
               and any(src == "input:raw_reads" for src in s.sources.values())]
    for f in profile.files:
        if readers and f.datatype == "raw_reads" and f.fact("interleaved", False):
            raise unreadable(f.path, f"holds interleaved paired-end reads (mate 1 and mate 2 alternate in one file), "
                             f"which {readers[0].replace('_', ' ')} would read as single-end reads: bioplan's steps "
                             "read a pair as two files",
                             ["split it into its mates and give both files (seqtk seq -1 FILE > NAME_R1.fastq; "
                              "seqtk seq -2 FILE > NAME_R2.fastq)"],
                             expected="paired FASTQ as two files", override=False)


def _warn_unused_inputs(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> TaskSpec:
    """An input the best plan reads nowhere is said to be unused (a protein FASTA beside 'align to the genome':
    the plan takes the genome from the config, never silently)."""
    from bioplan.planner.plan import inputs_read

    read = inputs_read(knowledge, spec, plan)
    notes = [f"{i.path} ({i.datatype}) is not used: no step of the plan reads "
             f"{knowledge.datatypes[i.datatype].label.lower()}" for i in spec.inputs
             if i.datatype in knowledge.datatypes and i.datatype not in read
             and not any(w.startswith(f"{i.path} (") for w in spec.warnings)]
    return spec.model_copy(update={"warnings": spec.warnings + tuple(notes)}) if notes else spec


def _warn_assumed_settings(knowledge: Knowledge, spec: TaskSpec, plan: Plan) -> TaskSpec:
    """A tool whose settings follow a study fact neither the request nor the files settle runs with its
    defaults; where those are the settings of one constraint (minimap2's map-ont preset: Oxford Nanopore
    reads, `params_when`), the spec says that it assumed it and which words in the request change it."""
    notes = []
    for tool in (knowledge.tools[t] for t in dict.fromkeys(s.tool for s in plan.steps if s.tool in knowledge.tools)):
        kinds = {knowledge.constraints[c].kind for c in tool.params_when if c in knowledge.constraints}
        for kind in sorted(kinds):
            group = [c for c in tool.params_when if knowledge.constraints[c].kind == kind]
            if any(c in spec.constraint_ids for c in group):
                continue
            assumed = [c for c in group if all(tool.params.get(p) == v for p, v in tool.params_when[c].items())]
            if not assumed:
                continue
            con = knowledge.constraints[assumed[0]]
            settings = ", ".join(f"{p} {v}" for p, v in tool.params_when[con.id].items())
            others = [knowledge.constraints[c] for c in group if c != con.id]
            words = " or ".join(f'"{o.aliases.en[0]}"' if o.aliases.en else o.label for o in others)
            shown = f"; the files do not show their {con.decided_by.fact.replace('_', ' ')}" if con.decided_by else ""
            notes.append(f"{tool.name} assumes {con.label} ({settings}): the request does not say which{shown}; "
                         f"if the data are {' or '.join(o.label for o in others)}, say {words} in the request")
    return spec.model_copy(update={"warnings": spec.warnings + tuple(notes)}) if notes else spec


@dataclass
class CompileResult:
    output_dir: Path
    snakefile: Path
    files: list[str]
    plan: Plan
    result: PlanResult
    checks: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    workflow: Workflow | None = None  # the IR that was written (its references: compile's output)


def emit_files(knowledge: Knowledge, result: PlanResult, plan: Plan, target: str, workdir: Path,
               cluster: dict[str, Any] | None = None) -> tuple[Workflow, dict]:
    return _emit(make_generator(target, knowledge), knowledge, result, plan, workdir, cluster)


def _emit(generator: Generator, knowledge: Knowledge, result: PlanResult, plan: Plan, workdir: Path,
          cluster: dict[str, Any] | None) -> tuple[Workflow, dict]:
    from bioplan.codegen.crate import CRATE_FILE, crate_metadata
    from bioplan.codegen.generator import EmitOptions
    from bioplan.codegen.ir import synthesize

    cluster = cluster or {}
    workflow = synthesize(knowledge, result.spec, plan, workdir=str(workdir),
                          cluster_limits=cluster.get("limits"), fetch_references=bool(cluster.get("fetch")),
                          reference_cache=cluster.get("reference_cache"))
    if workflow.max_mem_mb is not None:  # a step that needs more memory than a node has is refused here
        from bioplan.codegen.cluster_fit import refuse_misfits

        refuse_misfits(workflow, cluster.get("mem_source") or "--max-mem-mb")
    emitted = generator.emit(workflow, EmitOptions(partition=cluster.get("partition"),
                                                   account=cluster.get("account")))
    if emitted.problems:  # a template or the wiring is wrong: never write a workflow that would not run
        raise InvalidKnowledgeError([f"{generator.name}: {p}" for p in emitted.problems])
    files = dict(emitted.files)
    # every workflow, whatever its language, is described as a Workflow RO-Crate beside its files
    files[CRATE_FILE] = crate_metadata(knowledge, workflow, files, generator.name, generator.entry_file)
    return workflow, dict(sorted(files.items()))


def _write_tree(root: Path, files: dict) -> None:
    made: set[Path] = set()  # each folder made once (mkdir of an existing folder raises and catches: ~40 a compile)
    for rel, content in files.items():
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)
        path.chmod(0o644)


def _make_executable(root: Path, files: dict, executable_dirs: tuple[str, ...]) -> None:
    """What the target runs as programs (Nextflow's bin/, on the PATH of every task) is executable."""
    for rel in files:
        if rel.startswith(executable_dirs):
            (root / rel).chmod(0o755)


# The cluster's per-job limits (bioplan compile --max-threads/--max-mem-mb/--max-runtime): the
# IR field, the flag, what it is, and an example for the hint.
CLUSTER_LIMITS = (("max_threads", "--max-threads", "the CPUs of one node", 32),
                  ("max_mem_mb", "--max-mem-mb", "the memory of one node in MB", 192000),
                  ("max_runtime", "--max-runtime", "the partition's time limit in minutes", 2880))


def cluster_limits(max_threads: int | str | None = None, max_mem_mb: int | str | None = None,
                   max_runtime: int | str | None = None) -> dict[str, int | None]:
    """The limits as positive whole numbers (None: not given); anything else is an InvalidOptionError."""
    given = {"max_threads": max_threads, "max_mem_mb": max_mem_mb, "max_runtime": max_runtime}
    limits: dict[str, int | None] = {}
    for key, flag, meaning, example in CLUSTER_LIMITS:
        value = given[key]
        text = str(value).strip()
        if value is None:
            limits[key] = None
        elif not isinstance(value, bool) and text.isascii() and text.isdigit() and int(text) > 0:
            limits[key] = int(text)
        else:
            raise InvalidOptionError(
                f"{flag} {value!r}: {meaning} must be a positive whole number",
                [f"to resolve, give {flag} as a number such as {example} (`sinfo -o \"%P %c %m %l\"` shows each "
                 "partition's CPUs, memory in MB and time limit per node)", f"or leave {flag} out: the SLURM "
                 "profiles then mark the line to fill in, and the run checks the partition before submitting"],
                {"option": flag, "value": str(value)})
    return limits


def _limits_of_partition(limits: dict[str, int | None], partition: str | None,
                         read_sinfo: bool) -> tuple[dict[str, int | None], list[str]]:
    """With --partition and SLURM's sinfo here: the limits held to the partition's nodes, the missing
    ones taken from them (codegen/cluster_fit.py); else the limits as given."""
    if not partition or not read_sinfo:
        return limits, []
    from bioplan.codegen.cluster_fit import fit_to_partition, partition_limits, sinfo_lines, unknown_partition

    text, why_not = sinfo_lines()
    if text is None:
        return limits, [f"the limits were not checked against partition {partition!r}: {why_not}"] if why_not else []
    offered = partition_limits(partition, text)
    if offered is None:
        unknown = unknown_partition(partition, text)
        if unknown is not None:  # sinfo lists partitions, not this one
            raise unknown
        return limits, [f"sinfo on this machine lists no partition {partition!r}: the limits were not checked "
                        "against it"]
    fitted, note = fit_to_partition(limits, partition, offered)
    return fitted, [note]


def compile_request(query: str, inputs: list[str], output: str, target: str = DEFAULT_TARGET, force: bool = False,
                    validate: bool = True, top_k: int = 3, max_hops: int = DEFAULT_MAX_HOPS,
                    knowledge: Knowledge | None = None, declared: dict[str, str] | None = None,
                    partition: str | None = None, account: str | None = None, substitute: bool = False,
                    allow_partial: bool = False, max_threads: int | str | None = None,
                    max_mem_mb: int | str | None = None, max_runtime: int | str | None = None,
                    fetch_references: bool = False, reference_cache: str | None = None,
                    read_sinfo: bool = True, planned: PlanResult | None = None) -> CompileResult:
    """Plan the request (unless `planned`, plan_request's result for this very query, inputs and options,
    is given: a caller that planned already, such as a test grouping the dev set's plans, plans once) and
    write the workflow of its best plan that passes the pre-check into `output`."""
    limits = cluster_limits(max_threads, max_mem_mb, max_runtime)  # a bad value fails before any work
    limits, cluster_notes = _limits_of_partition(limits, partition, read_sinfo)
    if reference_cache is not None:  # one folder whatever directory the workflow runs from
        reference_cache = os.path.abspath(os.path.expanduser(reference_cache))
    entry = generator_class(target).entry_file  # an unknown target fails before any work
    knowledge = knowledge or load_knowledge()
    out_dir = output_directory(output, target, entry)
    out_real = _writable_output_dir(out_dir)  # before planning: a bad -o fails at once
    _refuse_shadowing_entry(out_dir, out_real, entry)
    result = planned
    if result is None:
        with slow_step(PLANNING):
            result = plan_request(query, inputs, knowledge, top_k=top_k, max_hops=max_hops, declared=declared,
                                  substitute=substitute, allow_partial=allow_partial)

    tried: list[str] = []
    created: list[Path] = []
    try:
        with _output_errors(out_dir):
            created = _make_parents(out_real.parent)
        with _output_lock(out_dir, out_real):
            return _compile_plans(knowledge, result, out_dir, out_real, target, force, validate, tried,
                                  {"partition": partition, "account": account, "limits": limits,
                                   "fetch": fetch_references, "reference_cache": reference_cache,
                                   "notes": cluster_notes, "mem_source": None if max_mem_mb is not None else
                                   f"the largest node of partition {partition!r} per sinfo"})
    except BaseException:
        for d in reversed(created):  # a failed compile leaves no trace, not even empty directories
            with suppress(OSError):  # not empty: a concurrent compile wrote into it
                d.rmdir()
        raise


def output_directory(output: str, target: str, entry: str) -> Path:
    """The workflow directory -o names. `-o DIR` is the directory, and so are `-o DIR/<entry>` (the
    target's entry file inside it: DIR/workflow/Snakefile, DIR/main.nf) and `-o DIR/<entry's name>`
    (DIR/Snakefile: Snakemake run in DIR finds workflow/Snakefile by itself). Another target's entry
    file name is refused: `-o wf/main.nf` with the Snakemake target is a mistake, not a folder name."""
    if not output or "\0" in output or output == "-":
        raise OutputUnwritableError(f"-o {output!r}: not a path",
                                    ["give the workflow's directory, e.g. -o out/my_workflow"], {"path": output})
    out = Path(output)
    generator_class(target).refuse_output_folder(os.path.abspath(output))
    if output.endswith(os.sep) or os.path.isdir(out):  # isdir: no OSError
        return out
    entry_parts = Path(entry).parts
    if out.parts[-len(entry_parts):] == entry_parts:
        return Path(*out.parts[:-len(entry_parts)]) if len(out.parts) > len(entry_parts) else Path(".")
    if out.name == Path(entry).name:
        return out.parent
    others = {Path(generator_class(t).entry_file).name: t for t in target_names() if t != target}
    if out.name in others:
        raise TargetUnsupportedError(
            f"-o {output}: {out.name!r} is the {others[out.name]} target's entry file; the {target} target "
            f"writes {entry!r} inside the workflow's directory",
            [f"use -o {out.parent} (the directory), or pass --target {others[out.name]}"])
    return out


def _refuse_shadowing_entry(out_dir: Path, out_real: Path, entry: str) -> None:
    """An entry file of the same name at the top of -o where the target's entry lies deeper (an older
    layout's Snakefile beside a new workflow/Snakefile) would be the one the engine runs: refused, even
    with --force, since bioplan does not write that file and so would never replace it."""
    top = out_real / Path(entry).name
    if Path(entry).parent != Path(".") and os.path.lexists(top):
        raise OutputExistsError(
            f"{out_dir / Path(entry).name} exists: run in {out_dir}, it would be used instead of the {entry} "
            "bioplan writes",
            ["remove it (and the folders an older bioplan wrote beside it: rules/, envs/, scripts/, schemas/), "
             "or choose another -o directory"], {"path": str(out_dir / Path(entry).name)})


# Kernel interfaces, not storage: writing "files" there is never what -o means.
_PSEUDO_FILESYSTEMS = (Path("/proc"), Path("/sys"))


def _unwritable(out_dir: Path, path: Path | str, reason: str, hints: list[str] | None = None) -> OutputUnwritableError:
    return OutputUnwritableError(
        f"cannot write the workflow into {out_dir}: {path}: {reason}",
        hints or ["choose an -o directory on a writable file system"],
        {"path": str(path), "reason": reason})


def _writable_output_dir(out_dir: Path) -> Path:
    """The real path of `out_dir` once it is known that the workflow and its sibling staging directory
    can be written there; else OutputUnwritableError naming the path and the reason."""
    try:
        out_real = out_dir.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise _unwritable(out_dir, out_dir, getattr(exc, "strerror", None) or str(exc)) from None
    if out_real == Path(out_real.anchor):  # `-o /Snakefile`: bioplan's folders (config/, workflow/) at the root
        raise _unwritable(out_dir, out_real, "the file system's root, not a workflow's directory",
                          ["give the workflow a directory of its own, e.g. -o out/my_workflow"])
    for pseudo in _PSEUDO_FILESYSTEMS:
        if out_real == pseudo or pseudo in out_real.parents:
            raise _unwritable(out_dir, out_real, f"under {pseudo}, a kernel interface, not storage for files")
    too_long = [part for part in out_real.parts if len(os.fsencode(part)) > 255]
    if too_long:
        raise _unwritable(out_dir, out_real, f"a folder name of {len(os.fsencode(too_long[0]))} bytes (at most 255)",
                          ["choose shorter folder names for -o"])
    # the nearest existing ancestor must be a directory (not a file, /dev/null, ...) we may write in
    for d in (out_real, *out_real.parents):
        if not os.path.lexists(d):
            continue
        if not d.is_dir():
            kind = "a regular file, not a directory" if d.is_file() else "not a directory"
            raise _unwritable(out_dir, d, kind,
                              ["choose an -o whose directories are directories (or do not exist yet)"])
        # the workflow is staged beside -o and moved in: both -o and its parent are written
        for needed in ((d,) if d != out_real else (d, d.parent)):
            if not os.access(needed, os.W_OK | os.X_OK):
                raise _unwritable(out_dir, needed, _access_reason(needed))
        break
    return out_real


def _access_reason(path: Path) -> str:
    try:
        vfs = os.statvfs(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    if vfs.f_flag & os.ST_RDONLY:
        return "read-only file system"
    return "permission denied"


@contextmanager
def _output_errors(out_dir: Path) -> Iterator[None]:
    """File system errors while creating, staging or installing the output: exit 2 naming the path."""
    try:
        yield
    except OSError as exc:
        path = exc.filename or out_dir
        raise _unwritable(out_dir, path, exc.strerror or str(exc)) from None


def _make_parents(directory: Path) -> list[Path]:
    missing = []
    d = directory
    while not os.path.lexists(d):
        missing.append(d)
        d = d.parent
    made = []
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:  # a concurrent compile made it: not ours to remove
            continue
        made.append(d)
    return list(reversed(made))


@contextmanager
def _output_lock(out_dir: Path, out_real: Path) -> Iterator[None]:
    """An exclusive lock on a sibling lock file, held from the clash check until the files are installed:
    of two compiles into one -o, one proceeds and the other stops with output_exists (never a mixed tree)."""
    lock = out_real.parent / _lock_name(out_real.name)
    with _output_errors(out_dir):
        fd = _acquire_lock(lock, out_dir)
    try:
        yield
    finally:
        with suppress(OSError):
            os.unlink(lock)  # removed while still held: a compile that opened it before retries on a new file
        os.close(fd)


def _lock_name(name: str) -> str:
    """`.<name>.bioplan.lock`, or a digest of the name where that would exceed a file name's 255 bytes."""
    if len(name.encode("utf-8", "surrogateescape")) > 200:
        name = sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return f".{name or 'root'}.bioplan.lock"


def _acquire_lock(lock: Path, out_dir: Path) -> int:
    import fcntl  # only a compile locks its output (not imported by `bioplan plan`)

    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputExistsError(
                f"another bioplan compile is writing to {out_dir} right now",
                ["wait for it to finish (then pass --force to replace its files), or choose another -o directory"],
                {"path": str(out_dir), "lock": str(lock)}) from None
        try:
            current = os.stat(lock, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        held = os.fstat(fd)
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)  # the previous holder removed the file after we opened it: lock the new one


def _compile_plans(knowledge: Knowledge, result: PlanResult, out_dir: Path, out_real: Path, target: str,
                   force: bool, validate: bool, tried: list[str], cluster: dict[str, Any]) -> CompileResult:
    generator = make_generator(target, knowledge)
    for plan in result.plans[:2]:  # the best plan, and the next-ranked one if it fails its pre-check
        with slow_step(f"writing the workflow for plan {plan.rank} (rendering and formatting its files)"):
            workflow, files = _emit(generator, knowledge, result, plan, out_dir, cluster)
        _refuse_symlinks_out(out_dir, out_real, files)
        _refuse_overwriting_inputs(out_dir, out_real, files, [i.path for i in result.spec.inputs])
        # lexists: a dangling symlink where a file goes is a clash too
        clashes = sorted(rel for rel in files if os.path.lexists(out_real / rel))
        if clashes and not force:
            raise OutputExistsError(
                f"{out_dir} already holds files bioplan would overwrite: {', '.join(clashes[:5])}"
                + (" ..." if len(clashes) > 5 else ""),
                ["pass --force to overwrite them, or choose another -o directory"], {"files": clashes})
        with _output_errors(out_dir):
            stage = Path(tempfile.mkdtemp(prefix=".bioplan-stage-", dir=out_real.parent))
        try:
            with _output_errors(out_dir):
                _write_tree(stage, files)
                _make_executable(stage, files, generator.executable_dirs)
            checks: list[CheckResult] = []
            if validate and generator.precheck_name:
                with slow_step(f"checking the emitted workflow with {generator.precheck_name}"):
                    check = generator.precheck(stage, workflow, out_real)
                if check is not None:
                    checks.append(check)
                    if not check.ok:
                        tried.append(f"plan {plan.rank}: {generator.precheck_name} failed:\n{check.output[-2000:]}")
                        continue
            _refuse_symlinks_out(out_dir, out_real, files)  # again: the pre-check took a while
            with _output_errors(out_dir), deferred_signals():
                _install(stage, out_real, files)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        notes = list(cluster.get("notes", ()))
        notes += [f"plan {plan.rank} was used after plan 1 failed its pre-check"] if tried else []
        return CompileResult(out_dir, out_dir / generator.entry_file, sorted(files), plan, result, checks,
                             notes + tried, workflow)
    raise ValidationFailedError(
        f"the emitted workflow failed `{generator.precheck_name}` for the best plan and the next-ranked one:\n"
        + "\n".join(t[-1500:] for t in tried),
        ["this is a bug in bioplan's knowledge or templates; please report it with the request",
         "use --no-validate to write the workflow anyway and inspect it"],
        {"attempts": tried}, listed=True)  # the pre-check's own output, line by line


def _refuse_symlinks_out(out_dir: Path, out_real: Path, files: dict) -> None:
    """Never write through a symlinked folder inside -o that leads out of it (`rules -> ../elsewhere`),
    not even with --force: bioplan writes only inside -o. (A symlink where a file goes is replaced,
    not followed, and only with --force.)"""
    # each file's folder once, then its parents (a few folders hold the ~40 files); as text, in the order
    # of their parts (how Paths sort), one Path only for a link
    folders = sorted(_folders_and_parents({os.path.dirname(rel) for rel in files}), key=lambda f: f.split("/"))
    for folder in folders:
        if not os.path.islink(os.path.join(out_real, folder)):
            continue
        path = out_real / folder
        target = path.resolve()
        if target != out_real and out_real not in target.parents:
            raise _unwritable(
                out_dir, path, f"a symbolic link to {os.readlink(path)}, outside {out_dir}",
                [f"bioplan writes only inside -o and never through a link that leaves it (not even with --force): "
                 f"remove or replace the link {path}, or choose another -o directory"])


def _folders_and_parents(folders: set[str]) -> set[str]:
    """The folders (relative, '/'-separated, '' for the top) and every parent of each, without the top."""
    every: set[str] = set()
    for folder in folders:
        while folder and folder not in every:
            every.add(folder)
            folder = os.path.dirname(folder)
    return every


def _refuse_overwriting_inputs(out_dir: Path, out_real: Path, files: dict, inputs: list[str]) -> None:
    """An input inside -o where bioplan writes a file of its own (a sample sheet at proj/config/samples.tsv):
    never replaced, not even with --force, since the workflow would then read bioplan's file as the input."""
    given = {}
    for path in inputs:
        try:
            given[Path(path).resolve()] = path
        except (OSError, RuntimeError):
            continue
    by_text = {str(real): path for real, path in given.items()}
    resolved: dict[str, str] = {}
    # a new -o (nothing at it yet, not even a link) holds no link: each file's path resolves to itself,
    # lexically (out_real is resolved), as `Path.resolve` resolves the missing components of a path
    fresh = not os.path.lexists(out_real)
    hit = sorted(by_text[target] for rel in files if (target := (
        os.path.normpath(os.path.join(out_real, rel)) if fresh else _resolved_inside(out_real, rel, resolved)))
        in by_text)
    if hit:
        raise OutputExistsError(
            f"bioplan would overwrite its own input {', '.join(hit)}: {out_dir} gets a file of that name",
            ["move the input elsewhere (e.g. into data/) and pass its new path, or choose another -o directory"],
            {"inputs": hit})


def _resolved_inside(out_real: Path, rel: str, folders: dict[str, str]) -> str:
    """`str((out_real / rel).resolve())`, each folder resolved once (`folders`: folder -> its resolved path):
    in a resolved folder a name that is no symbolic link resolves to itself (one lstat instead of one per
    component of the whole path, and no pathlib objects: ~3 ms of every compile before)."""
    folder, name = os.path.split(os.path.join(out_real, rel))
    if name in ("", ".", ".."):
        return str((out_real / rel).resolve())
    real = folders.get(folder)
    if real is None:
        real = folders[folder] = str(Path(folder).resolve())
    path = os.path.join(real, name)
    return str((out_real / rel).resolve()) if os.path.islink(path) else path


def _install(stage: Path, out_real: Path, files: dict) -> None:
    """Move the staged tree into place: a fresh directory by one rename, else file by file."""
    if not os.path.lexists(out_real):
        # mkdtemp made the stage private (0700); the new -o gets the mode any new directory gets
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(stage, 0o777 & ~umask)
        os.rename(stage, out_real)
        stage.mkdir()  # the caller removes it
        return
    root = os.open(out_real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for rel in files:
            parts = Path(rel).parts
            folder = _open_folder_inside(root, out_real, parts[:-1])
            try:
                os.replace(stage / rel, parts[-1], dst_dir_fd=folder)
            finally:
                os.close(folder)
    finally:
        os.close(root)


def _open_folder_inside(root: int, out_real: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of the folder `parts` under -o (`root`), made where missing and opened one component
    at a time relative to the one before: a component swapped for a symbolic link after the last check
    (`_refuse_symlinks_out`) is followed only when the folder it opens lies inside -o, so no file is ever
    installed outside it, whatever changes under -o while bioplan writes."""
    fd = os.dup(root)
    try:
        for part in parts:
            with suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as exc:  # a link: ELOOP, or ENOTDIR with O_DIRECTORY (Linux)
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or \
                        not stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode):
                    raise
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
                if not _folder_inside(inner, out_real, part):
                    os.close(inner)
                    raise OSError(errno.ELOOP, f"a symbolic link leading out of {out_real} appeared while "
                                               "bioplan installed the workflow; nothing was written through it",
                                  str(out_real / part)) from None
            os.close(fd)
            fd = inner
        return fd
    except BaseException:
        os.close(fd)
        raise


def _folder_inside(fd: int, out_real: Path, part: str) -> bool:
    """Whether the opened folder `fd` is -o or lies inside it (its real path, from /proc on Linux)."""
    try:
        real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc: the folder's device and inode against each folder of -o's tree
        opened = os.fstat(fd)
        return any(os.stat(d).st_ino == opened.st_ino and os.stat(d).st_dev == opened.st_dev
                   for d, _, _ in os.walk(out_real))
    return real == out_real or out_real in real.parents


def version() -> str:
    return __version__
