"""The target-neutral Workflow IR and the synthesize stage (Plan with tools -> Workflow).

Everything a generator needs is decided here, on the IR: file patterns,
per-sample (scatter) vs cohort (gather) vs reference steps, mates, params
backed by config, resources, software, logs, and precondition check steps that
run before the step they guard. Generators only lower this IR to their syntax.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from bioplan.errors import AmbiguousInputError, UnreadableInputError
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype
from bioplan.models import Plan, PlanStep, TaskSpec
from bioplan.request.text import require_utf8

# group: one job per tumour/normal pair of the sample sheet (the step's `group_by`, `pair`), reading the
# per-sample files of the pair's two samples: a tumour/normal cohort's somatic calling runs once per tumour
# against its patient's normal, as nf-core/sarek pairs them (a patient's primary and relapse: two pairs)
Scope = Literal["sample", "group", "cohort", "reference"]
# the sample sheet columns of a tumour/normal cohort (nf-core/sarek's patient and status), values not paths
PATIENT = "patient"
STATUS = "status"
# a group step's key: a tumour and its patient's normal, named `<tumour>_vs_<normal>` (nf-core/sarek's name;
# a tumour without a normal, run tumour-only, is named after the tumour). Each target derives the pairs from
# the sheet's patient and status columns (`pair_ids` is the same rule at compile time).
PAIR = "pair"


def pair_ids(samples: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """{pair id: (tumour, normal) or (tumour,)} of a cohort's samples (objects with .sample, .patient,
    .status), patients and tumours in sheet order."""
    normals = {s.patient: s.sample for s in samples if s.status == "normal"}
    return {(f"{s.sample}_vs_{normals[s.patient]}" if s.patient in normals else s.sample):
            ((s.sample, normals[s.patient]) if s.patient in normals else (s.sample,))
            for s in samples if s.status == "tumour"}
# the sample sheet column of a sample's lane (nf-core/sarek's `lane`): a sample of several lanes has one row per
# lane, and its lanes' FASTQ files are concatenated per mate before its first step, or aligned lane by lane
# where variants are called (codegen/lanes.py)
LANE = "lane"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FileRef(Frozen):
    """Where a file comes from: a step's output pattern, a config entry or a sample sheet column."""

    kind: Literal["result", "config_input", "config_reference", "samplesheet"]
    path: str = ""  # result pattern (may contain {sample}); config/sample sheet key otherwise
    per_sample: bool = False
    gathered: bool = False  # a list over all samples (expand) where the consumer is a cohort step
    directory: bool = False
    # a group step's output: one file per group (`pair`: {pair} in `path`)
    group: str | None = None
    # a sample sheet column read over every lane (row) of the sample, in lane order: only the lane
    # merging step, or a variant pipeline's aligner and its mates check, read so (codegen/lanes.py)
    lanes: bool = False


class IOPort(Frozen):
    name: str  # rule-level name: the op port, or port_1/port_2 for mates
    port: str  # the operation's port
    datatype: str
    format: str
    ref: FileRef


class WorkflowStep(Frozen):
    id: str  # rule / process name
    kind: Literal["tool", "check"]
    operation: str | None
    tool: str | None
    scope: Scope
    inputs: tuple[IOPort, ...]
    outputs: tuple[IOPort, ...]
    log: str
    benchmark: str | None
    threads: int
    mem_mb: int
    runtime: int
    # trivial (the tool's `resources.local`): beside the engine on the submit node, never a cluster job
    local: bool = False
    params: tuple[tuple[str, str], ...]  # name -> config dotted path ("params.pydeseq2.alpha") or "@samples"
    env: str  # conda env file name (envs/ in Snakemake, environment.yml beside a Nextflow module)
    container: str  # image reference (quay.io/biocontainers/fastp:0.23.4--h5f740d0_0); each target writes its form
    script: str | None = None  # check script for check steps
    constraint: str | None = None  # check steps: the constraint it checks
    guards: str | None = None  # check steps: the step id it runs before
    paired: bool = False
    # group steps: what the step iterates over (`pair`: each tumour with its patient's normal); its
    # per-sample inputs are the files of the pair's samples, its outputs and log carry {pair}
    group_by: str | None = None


class Software(Frozen):
    env: str
    conda: tuple[str, ...]
    container: str  # image reference, no engine prefix


class ConfigInput(Frozen):
    key: str
    datatype: str
    section: Literal["inputs", "references"]
    path: str  # relative to the workflow directory, or "" when the user must fill it in
    format: str | None
    hint: str


class ReferenceDownload(Frozen):
    """One pinned provider file a fetch rule downloads, and the checksum the provider publishes for it."""

    url: str
    checksum: Literal["bsd_sum", "md5", "recorded"]  # recorded: no published checksum, sha256 kept on first use
    checksum_url: str | None = None
    provider: str


class Reference(Frozen):
    """A file the workflow reads that the user did not pass: named in compile's output, config and README,
    checked before any job runs, and downloaded when the user asks (fetch)."""

    key: str  # config key under `references`
    datatype: str
    format: str
    path: str  # the default path written into config (relative to the workflow, or under the cache)
    why: str  # what it is, from the datatype's description
    read_by: tuple[str, ...]  # step ids that read it
    hint: str  # where to get it: the provider's exact file for the organism and build, else the datatype's source
    file_name: str | None = None  # the provider's file name (after unpacking), when known
    directory: bool = False
    downloads: tuple[ReferenceDownload, ...] = ()  # empty: the user supplies it
    unpack: Literal["none", "gunzip", "untar"] = "none"
    derive: Literal["none", "gene_id_mapping", "tx2gene"] = "none"


class Workflow(Frozen):
    name: str
    query: str
    layout: Literal["paired", "single"] | None
    organism: dict[str, Any] | None
    steps: tuple[WorkflowStep, ...]
    targets: tuple[FileRef, ...]
    config_inputs: tuple[ConfigInput, ...]
    params: dict[str, dict[str, Any]]  # tool id -> param -> default
    software: tuple[Software, ...]
    samples: tuple[dict[str, str], ...]  # rows of config/samples.tsv (empty: no per-sample inputs)
    sample_columns: tuple[str, ...]  # "sample", then the columns of input file paths
    condition_column: str | None
    scripts: tuple[str, ...]  # step scripts copied into scripts/
    has_samples: bool
    # the most one job may ask for on the cluster (one node; the partition's time limit), written
    # into both targets' SLURM profiles (None: a clearly marked placeholder)
    max_threads: int | None = None
    max_mem_mb: int | None = None
    max_runtime: int | None = None  # minutes
    # where the workflow differs from the request by the user's opt-in (--substitute,
    # --allow-partial), and the request's words nothing understood: the README says both
    deviations: tuple[str, ...] = ()
    unrecognized: tuple[str, ...] = ()
    # every file the workflow reads that the user did not pass (one source of truth: compile's output,
    # config, README, the start check and the fetch rules all come from here)
    references: tuple[Reference, ...] = ()
    genome_build: str | None = None
    genome_build_default: bool = False  # neither the request nor the inputs named it: the organism's default
    fetch_references: bool = False  # config `fetch:` (compile --fetch-references)
    reference_cache: str = "resources"  # where downloaded references go (compile --reference-cache)
    # sample sheet columns of values, not paths, written after "sample": those the group steps read
    # (`patient`, `status`: tumour or normal) and `lane` when a sample has several lanes (one row per lane)
    meta_columns: tuple[str, ...] = ()


CHECK_ENV = Software(
    env="bioplan_checks.yaml",
    # the env pins what the container carries (tests/test_emitted_practice.py checks every pair)
    conda=("conda-forge::python=3.12", "conda-forge::pandas=2.2.1"),
    container="quay.io/biocontainers/pandas:2.2.1",
)


def _ext(fmt: str) -> str:
    return {"fastq.gz": "fastq.gz", "fastq": "fastq", "fasta": "fa", "fasta.gz": "fa.gz"}.get(fmt, fmt)


def _rel(path: str, workdir: str | None) -> str:
    """`path` as the workflow names it: relative to its directory (absolute when far outside it), and
    never starting with '-' (a file of that name inside -o would reach tools as an option) nor with what a
    spreadsheet opening samples.tsv or samplesheet.csv runs as a formula ('=', '+', '@': a folder '=cmd'
    inside -o; CSV injection, refused in sample ids): such a path is written './-x', './=cmd/...'."""
    if workdir is None:
        rel = path
    else:
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, os.path.abspath(workdir))
        rel = absolute if rel.startswith(".." + os.sep + ".." + os.sep + ".." + os.sep) else rel
    return os.path.join(".", rel) if rel.startswith(("-", *SPREADSHEET_FORMULA_STARTS)) else rel


def _input_stems(step: PlanStep, ports: Mapping[str, Any], out_ports: Mapping[str, list[IOPort]]) -> dict[str, str]:
    """{input port: stem of the result file it reads} ('merged_pathways' for .../merged_pathways.tsv); a port
    reading an input or a reference keeps its own name."""
    stems = {port: port for port in ports}
    for port, source in step.sources.items():
        made = [p for p in out_ports.get(source, []) if p.datatype == step.inputs.get(port) and not p.ref.directory]
        if made:
            stems[port] = PurePosixPath(made[0].ref.path).name.split(".")[0]
    return stems


def _named_after_inputs(path: str, stems: Mapping[str, str]) -> str:
    """A tool's output path with `{port}` replaced by the stem of what that port reads: a CSV export of
    deseq2_results.tsv is deseq2_results.csv ({sample} stays for the workflow)."""
    for port, stem in stems.items():
        path = path.replace("{" + port + "}", stem)
    return path


def synthesize(knowledge: Knowledge, spec: TaskSpec, plan: Plan, workdir: str | None = None,
               cluster_limits: Mapping[str, int | None] | None = None, fetch_references: bool = False,
               reference_cache: str | None = None) -> Workflow:
    """Lower a bound plan to the Workflow IR. `workdir`: where the workflow will live (for relative paths).

    The work is done by the passes of codegen/passes.py, in the order `PASSES` lists."""
    from bioplan.codegen import passes

    options = passes.SynthesisOptions(
        workdir=workdir, cluster_limits=dict(cluster_limits or {}), fetch_references=fetch_references,
        reference_cache=reference_cache)
    return passes.synthesize(knowledge, spec, plan, options)


def _references(knowledge: Knowledge, spec: TaskSpec, steps: list[WorkflowStep], config_inputs: dict[str, ConfigInput],
                org_id: str | None, cache: str) -> tuple[Reference, ...]:
    """Every config reference (a file no input supplies), with the steps that read it and, for the
    organism and genome build, the provider's exact file, pinned URL and published checksum."""
    from bioplan.knowledge.references import load_catalog, provider_file

    catalog = load_catalog()
    organism = org_id or spec.constraints.get("genome_build_organism")
    build = spec.constraints.get("genome_build")
    chr_names = spec.constraints.get("reference_names") == "chr"
    converts = any(s.operation == "gene_id_conversion" for s in steps)
    namespace = "entrez" if converts or spec.gene_namespace == "entrez" else (spec.gene_namespace or "symbols")
    refs = []
    for key, c in sorted(config_inputs.items()):
        if c.section != "references":
            continue
        readers = tuple(s.id for s in steps if any(p.ref.kind == "config_reference" and p.ref.path == key
                                                   for p in s.inputs))
        operations = tuple(s.operation for s in steps if s.id in readers and s.operation)
        dtype = knowledge.datatypes[c.datatype]
        fmt = c.format or ""
        found = provider_file(catalog, c.datatype, fmt, organism, build, chr_names, operations, namespace)
        why = dtype.description.split(". ")[0].rstrip(".")
        directory = fmt in knowledge.formats and knowledge.formats[fmt].directory  # formats.yaml `directory`
        if found is None:
            refs.append(Reference(key=key, datatype=c.datatype, format=fmt, path=f"resources/{key}.{fmt}", why=why,
                                  read_by=readers, hint=c.hint, directory=directory))
            continue
        downloads = tuple(ReferenceDownload(url=s.url, checksum=s.checksum, checksum_url=s.checksum_url,
                                            provider=s.provider) for s in found.sources)
        where = f"{cache}/{_slug(found.sources[0].provider)}" if downloads else "resources"
        refs.append(Reference(key=key, datatype=c.datatype, format=fmt, path=f"{where}/{found.file_name}", why=why,
                              read_by=readers, hint=found.hint, file_name=found.file_name,
                              directory=directory or found.unpack == "untar", downloads=downloads,
                              unpack=found.unpack, derive=found.derive))
    return tuple(refs)


def _genome_build(spec: TaskSpec, org_id: str | None) -> tuple[str | None, bool]:
    """(build, whether it is the organism's default) the references follow."""
    from bioplan.knowledge.references import load_catalog

    said = spec.constraints.get("genome_build")
    if said:
        return said, False
    org = load_catalog().organisms.get(org_id or "")
    return (org.default_build, True) if org else (None, False)


# references whose right file depends on the step reading it (ontology/references.yaml picks the
# MSigDB collection by the consumer's analysis)
_PER_CONSUMER = frozenset({"gene_set_library"})

def _slug(provider: str) -> str:
    """A cache folder per provider release: 'Ensembl 112' -> ensembl-112, 'MSigDB 2024.1.Hs' -> msigdb-2024.1.hs."""
    words = re.split(r"[^a-z0-9.]+", provider.lower().split("(")[0])
    return "-".join(w for w in words if w)


_GENERIC_WORDS = {"enrichment", "analysis", "detection", "calling", "computation"}


def _keywords(operation: str) -> set[str]:
    return {w for w in operation.split("_") if w not in _GENERIC_WORDS and len(w) >= 2}


def _file_words(path: str) -> set[str]:
    words = set(re.split(r"[^a-z0-9]+", os.path.basename(path).lower()))
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _, line in zip(range(50), fh):
                name = line.split("\t", 1)[0].lower()
                words.update(re.split(r"[^a-z0-9]+", name)[:1])
                # MSigDB-style GOBP_/GOMF_/GOCC_ prefixes are GO sets
                if name.startswith(("gobp", "gomf", "gocc")):
                    words.add("go")
    except OSError:
        pass
    return words


def pick_for_consumer(candidates: list, operation: str):
    """The one input file meant for `operation` among several of the same datatype."""
    keys = _keywords(operation)
    scored = [(len(keys & _file_words(c.path)), c.path, c) for c in candidates]
    scored.sort(key=lambda x: (-x[0], x[1]))
    if scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        raise AmbiguousInputError(
            f"several inputs are {candidates[0].datatype!r} ({', '.join(c.path for c in candidates)}) "
            f"and none is clearly the one for {operation!r}",
            [f"name the file for {operation} so that it says {' or '.join(sorted(keys))} "
             f"(e.g. gene_sets_{sorted(keys)[0]}.gmt), or pass only one"],
            {"datatype": candidates[0].datatype, "files": [c.path for c in candidates], "operation": operation})
    return scored[0][2]


# Precondition checks stream their inputs once (check_paired_mates decompresses both mates side
# by side at tool speed, ~22 MB resident whatever the size: benchmarks/check_paired_mates.py), so
# memory is constant and the time limit grows with the checked files: 2 min per GB of gzipped
# input is ~7x the measured time on a loaded core (2 GB pair: 35 s).
CHECK_MEM_MB = 1000
CHECK_RUNTIME = 10  # minutes
CHECK_RUNTIME_PER_GB = 2


def _checked_gb(knowledge: Knowledge, spec: TaskSpec, checked: list[IOPort], scope: str) -> int:
    """Size of the input files one check job reads, whole GB rounded up: for a per-sample check the
    largest sample's files, else all files of the checked datatypes (0 when results are checked)."""
    sizes: dict[str | None, int] = {}
    for i in spec.inputs:
        if any(is_subtype(knowledge, i.datatype, p.datatype) for p in checked if p.datatype):
            try:
                size = os.path.getsize(i.path)
            except OSError:
                continue
            key = i.sample if scope == "sample" else None
            sizes[key] = sizes.get(key, 0) + size
    return -(-max(sizes.values(), default=0) // (1 << 30))


def _input_gb(spec: TaskSpec, step: PlanStep, per_sample: bool = False) -> int:
    """The GB a job of the step reads from the given files: all of them for a cohort job; for a
    per-sample job (one SLURM job per sample) the largest sample's own files (and those of no sample),
    not every sample's."""
    by_sample: dict[str | None, int] = {}
    for port, src in step.sources.items():
        if src.startswith("input:"):
            for i in spec.inputs:
                if i.datatype == step.inputs[port]:
                    with contextlib.suppress(OSError):  # a file gone since sniffing counts as empty
                        key = i.sample if per_sample else None
                        by_sample[key] = by_sample.get(key, 0) + os.path.getsize(i.path)
    shared = by_sample.pop(None, 0) if per_sample else 0  # a file of no sample (a GTF): every job reads it
    total = max(by_sample.values(), default=0) + shared
    return -(-total // (1 << 30))  # ceil to whole GB


def _sample_rows(knowledge: Knowledge, spec: TaskSpec, workdir: str | None):
    """Rows of config/samples.tsv from the per-sample input files (FASTQ mates, BAMs): one per sample, or
    one per lane of each sample when a sample has several (a `lane` value in every row then)."""
    per_sample = [i for i in spec.inputs if knowledge.datatypes[i.datatype].scope == "sample"]
    if not per_sample:
        return [], [], _condition_column(spec)
    rows: dict[tuple[str, str], dict[str, str]] = {}
    columns: list[str] = ["sample"]
    # a single-end workflow reads the `fastq` column: mate 1 files without their mate 2 (Illumina's
    # S1_L001_R1_001.fastq.gz alone) are its single-end reads
    single = spec.constraints.get("layout") == "single"
    for i in sorted(per_sample, key=lambda x: (x.sample or x.path, x.lane or "", x.mate or 0)):
        name = i.sample or os.path.basename(i.path)
        refuse_unusable_sample_name(name, i.path)
        if i.lane is not None:
            refuse_unusable_sample_name(i.lane, i.path, "lane")
        dtype = knowledge.datatypes[i.datatype]
        col = ("fastq" if i.mate is None or single else f"fastq_{i.mate}") if dtype.mates else i.datatype
        rows.setdefault((name, i.lane or ""), {"sample": name})[col] = _rel(i.path, workdir)
        if col not in columns:
            columns.append(col)
    if any(lane for _, lane in rows):
        rows = {key: {**row, LANE: key[1] or "1"} for key, row in rows.items()}
    return [rows[k] for k in sorted(rows)], columns, _condition_column(spec)


def refuse_unusable_sample_name(name: str, path: str, what: str = "sample") -> None:
    """A sample id is a folder name in every target (results/<step>/<sample>/...) and a value tools read:
    names that would leave the folder, or that no quoting keeps data in a tool's own syntax, are refused
    (the rest is quoted wherever it is written: codegen/escape.py, Snakemake's `:q`). A lane id is held
    to the same rules (a sample sheet value, read back by both targets)."""
    require_utf8(name, f"the {what} name {name!r} (taken from {os.path.basename(path)!r})")  # bytes, not text
    why = unusable_sample_name(name)
    if why is None:
        return
    raise UnreadableInputError(
        f"{path}: the {what} name {name!r} (taken from this input) cannot name a {what}: {why}",
        [f"to resolve, rename {os.path.basename(path)!r} so that the sample part of the name holds letters, digits "
         "and printable punctuation other than '\"' and '\\', does not start with '-' and is not '.' or '..' "
         "(e.g. sample1_R1.fastq.gz), or set the BAM read group's SM tag to such a name"],
        {"sample": name, "path": path})


def unusable_sample_name(name: str) -> str | None:
    """Why `name` cannot be a sample id, or None. Each reason is a way the name would stop being data."""
    if name.strip() in ("", ".", "..") or "/" in name:
        return "outputs are written to one folder per sample, and this name would leave it"
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        return (f"it holds the character {bad!r}, which ends a line or a field of the sample sheet, of tables' "
                "headers and of the SAM read-group header the aligners write")
    if "\\" in name or '"' in name:
        return ("it holds a '\\' or '\"': aligners read the read-group header with their own escapes and quotes "
                "(bwa mem -R turns '\\t' into a field separator, STAR's --outSAMattrRGline splits at '\"'), so such "
                "a name would add read-group fields")
    if name.startswith("-"):
        return "tools given the sample name as a value (labels, read groups) would read a leading '-' as an option"
    if name.startswith(SPREADSHEET_FORMULA_STARTS):
        return (f"a spreadsheet opening the sample sheet (samples.tsv, samplesheet.csv) would run a cell starting "
                f"with {name[0]!r} as a formula (CSV injection)")
    return None


# What a spreadsheet reads as the start of a formula in a CSV/TSV cell ('-' is refused above, tab and CR as
# non-printable): a sample id never starts with one
SPREADSHEET_FORMULA_STARTS = ("=", "+", "@")


def _condition_column(spec: TaskSpec) -> str | None:
    if spec.condition_column:
        return spec.condition_column
    return "condition" if any(i.datatype == "sample_metadata" for i in spec.inputs) else None


# EDAM formats of tables and text (TSV, CSV, plain text, JSON, Excel): the numbers a reader opens
# (a DE table, marker genes, a Kraken2 report), small beside the data they summarise, so kept
TABLE_EDAM_FORMATS = frozenset({"format_3475", "format_3752", "format_2330", "format_3464", "format_3620"})
# Variant calls (VCF, BCF) and alignments (BAM, CRAM) are records a user opens, filters and shares
# (an annotated VCF is what a variant workflow is for, even when a summary table is its target):
# never deleted as intermediates, indexed or not. So are sequences a step makes (FASTA: a sample's
# assembled contigs are what an assembly workflow is for, even when genes predicted on them are its target).
RECORD_EDAM_FORMATS = frozenset({"format_3016", "format_3020", "format_2572", "format_3462", "format_1929"})
KEPT_EDAM_FORMATS = TABLE_EDAM_FORMATS | RECORD_EDAM_FORMATS


# a folder of these is an intermediate like a file of them (a sample's trimmed lanes: codegen/lanes.py)
FASTQ_FOLDER_FORMATS = frozenset({"fastq", "fastq.gz"})


def intermediate_outputs(knowledge: Knowledge, workflow: Workflow) -> frozenset[str]:
    """Output paths of the workflow's intermediates: files only later steps read, safe to delete.

    An intermediate is a tool step's file output that no workflow target names and a later step
    reads (trimmed or host-depleted FASTQs, the .h5ad between single-cell steps, a converted
    annotation). Not intermediate: check sentinels (`ok` files gate steps and record what was
    checked); whatever a reference-scope step makes (aligner indexes, single-file ones like
    kallisto's too, databases, converted annotations: built once from references, reused by every
    sample and by the next run); directories, but for a folder of FASTQ (a sample's lanes trimmed apart,
    codegen/lanes.py); a file its step indexes beside it (a sorted BAM with
    its .bai, a bgzipped VCF with its .tbi: an indexed file is a deliverable one opens in a viewer);
    tables and text (TABLE_EDAM_FORMATS); variant calls and alignments (RECORD_EDAM_FORMATS).
    Decided from the IR alone, never per tool."""
    targets = {t.path for t in workflow.targets}
    read = {p.ref.path for s in workflow.steps for p in s.inputs if p.ref.kind == "result"}
    found = set(_compressed_copies(workflow) - targets)
    for step in workflow.steps:
        if step.kind != "tool" or step.scope == "reference":
            continue
        paths = [p.ref.path for p in step.outputs]
        for port in step.outputs:
            path = port.ref.path
            fmt = knowledge.formats.get(port.format)
            if (port.ref.kind != "result" or (port.ref.directory and port.format not in FASTQ_FOLDER_FORMATS)
                    or path in targets or path not in read
                    or any(other != path and other.startswith(path + ".") for other in paths)
                    or (fmt is not None and fmt.edam in KEPT_EDAM_FORMATS)):
                continue
            found.add(path)
    return frozenset(found)


def _compressed_copies(workflow: Workflow) -> set[str]:
    """Plain VCFs read only by the bgzip + tabix step after their producer (codegen/vcf_outputs.py):
    the compressed, indexed copy is the record the user keeps, so the plain one is an intermediate."""
    readers: dict[str, set[str]] = {}
    for s in workflow.steps:
        for p in s.inputs:
            if p.ref.kind == "result":
                readers.setdefault(p.ref.path, set()).add(s.tool or s.kind)
    return {path for path, tools in readers.items() if tools == {"tabix_bgziptabix"}}
