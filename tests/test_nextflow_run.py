"""The emitted Nextflow pipelines executed, not only parsed (issue 17).

For the five reference classes, with the Nextflow runtime of scripts/install-nextflow.sh and the
tools on PATH (`-profile local`: neither conda nor containers):
- `nextflow run . -stub-run` completes;
- a real run on the example data passes the science asserts of the Snakemake e2e tests
  (tests/e2e/test_examples_run.py, called on a Snakemake-shaped view of the published results);
- the executed task graph equals the Snakemake rule graph: the processes that ran and their task
  counts (trace) are the Snakemake rules and jobs, the process edges of the run's DAG are the
  rule graph's edges, and no task started before a task of each step it depends on had finished;
- pipeline_info/software_versions.yml names every tool of every process that ran, with a version.

Without a runtime or a tool the tests skip with the install command; under CI=true they fail.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, deque
from datetime import datetime
from pathlib import Path

import pytest
import yaml

import nextflow_jvm
from bioplan.codegen.provenance import package_name
from bioplan.knowledge.load import load_knowledge
from conftest import REFERENCE_CLASSES, ROOT, PlanOnce, skip_or_fail_in_ci
from helpers import RULEGRAPH_ARGS, DryRunLoop, rule_graph_edges

sys.path.insert(0, str(Path(__file__).resolve().parent / "e2e"))
import e2e_support  # noqa: E402
import test_examples_run as snakemake_e2e  # noqa: E402  (its science asserts, reused)

NXF_VERSION = "25.04.4"  # scripts/install-nextflow.sh
INSTALL_HINT = "install it with `bash scripts/install-nextflow.sh .venv/bin` (see docs/nextflow-runtime.md)"
NEXTFLOW_TIMEOUT = 1200
# Parameters a run of an example sets (none: the examples run with their defaults, as in the
# Snakemake e2e tests).
RUN_PARAMS: dict[str, list[str]] = {}
# The environment a real run of an example adds: the metagenomics run under OMP_NUM_THREADS=1, as many clusters and
# job environments set it (kraken2's database build refused its threads above it, exit 64, until
# kraken2_build_db.sh gave the build its own; Snakemake sets it per job, Nextflow passes the user's through).
RUN_ENV: dict[str, dict[str, str]] = {"metagenomics": {"OMP_NUM_THREADS": "1"}}
# The trace columns the graph check reads (-c adds them to the pipeline's trace file).
TRACE_CONFIG = "trace.fields = 'task_id,hash,name,process,tag,status,exit,submit,start,complete'\n"
VERSION = re.compile(r"^[0-9]+(\.[0-9]+)+[a-z]?$")
# The real run that renders the HTML report and timeline the emitted nextflow.config enables (~2.5 CPU-s of
# Nextflow's templates a run; the class with the most processes)
REPORTS_CLASS = "rnaseq_fastq"


def nextflow_bin() -> str:
    """The Nextflow launcher: $BIOPLAN_NEXTFLOW, .venv/bin, the install prefix, then PATH."""
    prefix = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bioplan" / f"nextflow-{NXF_VERSION}"
    candidates = [os.environ.get("BIOPLAN_NEXTFLOW", ""), str(ROOT / ".venv" / "bin" / "nextflow"),
                  str(prefix / "bin" / "nextflow"), shutil.which("nextflow") or ""]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    skip_or_fail_in_ci(f"no Nextflow runtime; {INSTALL_HINT}")


def run_nextflow(workdir: Path, *args: str, reports: bool = False,
                 extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`nextflow run . -profile local ARGS` in workdir; the HTML report, timeline and DAG only with reports=True
    (nextflow_jvm.without_reports: no test but the real runs' reads them). The tasks' JVMs (FastQC, snpEff,
    Picard, ...) start with e2e_support.QUICK_JVM, as in the Snakemake runs, unless the environment sets
    JAVA_TOOL_OPTIONS (Nextflow's own JVM already runs with those options)."""
    env = {**e2e_support.QUICK_JVM, **e2e_support.env(), **(extra_env or {})}
    env["NXF_ANSI_LOG"] = "false"
    env.setdefault("NXF_HOME", str(workdir / ".nxf_home"))  # no state shared with the user's ~/.nextflow
    try:  # the serial collector and a class-data-sharing archive; its own process group
        return nextflow_jvm.run([nextflow_bin(), "run", ".", "-profile", "local", *args], cwd=workdir, env=env,
                                timeout=NEXTFLOW_TIMEOUT, stderr=subprocess.STDOUT, reports=reports)
    except subprocess.TimeoutExpired as timed_out:
        pytest.fail(f"nextflow run did not finish in {NEXTFLOW_TIMEOUT} s in {workdir}\n"
                    + _hang_report(workdir, timed_out.output or ""))


def _hang_report(workdir: Path, stdout: str) -> str:
    """What a hung run was doing: its output, the log's tail, and each task that began and never ended
    (its script and the tail of its stderr)."""
    log = workdir / ".nextflow.log"
    parts = [stdout[-3000:], log.read_text(errors="replace")[-4000:] if log.exists() else "(no .nextflow.log)"]
    for begin in sorted(workdir.glob("work/*/*/.command.begin")):
        task = begin.parent
        if not (task / ".exitcode").exists():
            script = (task / ".command.sh").read_text(errors="replace")[-1500:]
            err_file = task / ".command.err"
            err = err_file.read_text(errors="replace")[-1500:] if err_file.exists() else ""
            parts.append(f"task never ended: {task}\n{script}\n--- stderr ---\n{err}")
    return "\n".join(parts)


def run_ok(workdir: Path, *args: str, reports: bool = False,
           extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    proc = run_nextflow(workdir, *args, reports=reports, extra_env=extra_env)
    log = workdir / ".nextflow.log"
    tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    assert proc.returncode == 0, f"nextflow failed in {workdir}:\n{proc.stdout[-6000:]}\n{tail}"
    return proc


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    base = tmp_path_factory.mktemp("nf_run")
    e2e_support.generate(base, *REFERENCE_CLASSES)
    return base


# Each example planned once in a test process: its stub, real and validation runs and the
# Snakefile of the graph check emit the one plan (planning is deterministic).
PLANS = PlanOnce()


def compile_nextflow(base: Path, name: str, where: str) -> Path:
    from bioplan.compile import compile_request

    data = base / "data"
    out = base / where / name
    with PLANS:
        compile_request(e2e_support.request(name), e2e_support.inputs(data, name), str(out / "main.nf"),
                        target="nextflow", force=True)
    return out


# --------------------------------------------------------------------------- stub runs
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_stub_run_completes(base, name):
    nextflow_bin()
    # the versions topic runs each tool's version command, also in a stub run
    e2e_support.require_tools(name)
    workdir = compile_nextflow(base, name, "stub")
    run_ok(workdir, "-stub-run", *RUN_PARAMS.get(name, []))
    trace = read_trace(workdir / "results" / "pipeline_info" / "execution_trace.txt")
    assert trace and all(row["status"] in ("COMPLETED", "CACHED") for row in trace)


def test_sample_sheet_and_parameters_are_checked_by_nf_schema_before_any_task(base):
    """validateParameters() (nf-schema, built from source by the installer) holds every parameter to
    nextflow_schema.json first, the sample sheet included (its input parameter names the sheet's schema),
    and names every failure at once: a sample id that tools would read as an option and a text where the
    schema wants an integer are both refused with the schema's messages, and nothing runs. One launch
    for both refusals (each message is asserted on its own)."""
    nextflow_bin()
    workdir = compile_nextflow(base, "rnaseq_fastq", "sheet")
    schema = json.loads((workdir / "nextflow_schema.json").read_text())
    assert schema["$defs"]["tool_options"]["properties"]["featurecounts_strandedness"]["type"] == "integer"
    header, first, *rest = (workdir / "assets" / "samplesheet.csv").read_text().splitlines()
    bad = workdir / "bad_samplesheet.csv"
    bad.write_text("\n".join([header, "-x" + first[first.index(","):], *rest]) + "\n")
    proc = run_nextflow(workdir, "-stub-run", "--input", str(bad), "--featurecounts_strandedness", "reverse")
    assert proc.returncode != 0
    assert "Validation of pipeline parameters failed" in proc.stdout, proc.stdout[-3000:]
    assert "do not start with '-'" in proc.stdout, proc.stdout[-3000:]
    assert "--featurecounts_strandedness (reverse)" in proc.stdout and "[integer]" in proc.stdout, proc.stdout[-3000:]
    assert not list((workdir / "work").glob("*/*")), "a task ran before the sample sheet and parameters were checked"


# --------------------------------------------------------------------------- real runs
class Run:
    """A real run of one example: its pipeline, the example's truth, what the run recorded."""

    def __init__(self, base: Path, name: str):
        e2e_support.require_tools(name)
        nextflow_bin()
        self.name = name
        self.workdir = compile_nextflow(base, name, "real")
        extra = self.workdir / "trace_fields.config"
        extra.write_text(TRACE_CONFIG)
        self.dag = self.workdir / "dag.dot"
        # one class with the emitted config's HTML report and timeline (every other run goes without them)
        run_ok(self.workdir, "-c", str(extra), "-with-dag", str(self.dag), *RUN_PARAMS.get(name, []),
               reports=name == REPORTS_CLASS, extra_env=RUN_ENV.get(name))
        self.results = self.workdir / "results"
        self.truth = e2e_support.truth(base / "data", name)
        self.trace = read_trace(self.results / "pipeline_info" / "execution_trace.txt")
        self.view = snakemake_view(self.results, base / "view" / name)


@pytest.fixture(scope="module")
def runs(base):
    cache: dict[str, Run] = {}

    def get(name: str) -> Run:
        if name not in cache:
            cache[name] = Run(base, name)
        return cache[name]

    return get


def read_trace(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def snakemake_view(results: Path, view: Path) -> Path:
    """The published results under the Snakemake target's names, as symlinks in view/results/.

    Nextflow publishes results/<step>/<id>.<name>, where <id> is the meta id: `study` or
    `all_samples` for study-level results (Snakemake: results/<step>/<name>) and a sample name for
    per-sample ones (Snakemake: results/<step>/<sample>/<sample>.<name>). Folders are kept."""
    for step in sorted(p for p in results.iterdir() if p.is_dir() and p.name != "pipeline_info"):
        for item in sorted(step.iterdir()):
            ident, dot, rest = item.name.partition(".")
            if not dot or item.is_dir():
                target = view / "results" / step.name / item.name
            elif ident in ("study", "all_samples"):
                target = view / "results" / step.name / rest
            else:
                target = view / "results" / step.name / ident / item.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(item.resolve())
    return view


SCIENCE = {
    "bulk_de": ["test_bulk_de_planted_genes_are_significant", "test_bulk_de_planted_sets_are_enriched"],
    "rnaseq_fastq": ["test_rnaseq_reads_align", "test_rnaseq_counts_recover_planted_fold_changes",
                     "test_rnaseq_multiqc_report_aggregates_every_qc_tool"],
    "variants": ["test_variants_every_variant_gets_its_consequence", "test_variants_summary_counts_match_the_vcf",
                 "test_variants_vcf_is_bgzipped_and_indexed", "test_variants_multiqc_reports_snpeff"],
    "single_cell": ["test_single_cell_clusters_recover_cell_types",
                    "test_single_cell_markers_and_enriched_sets_per_cluster"],
    "metagenomics": ["test_metagenomics_planted_taxa_detected",
                     "test_metagenomics_planted_difference_is_differential",
                     "test_metagenomics_multiqc_reports_kraken2"],
}


# Tests of the Snakemake e2e file that check Snakemake's own behaviour, not the science.
SNAKEMAKE_ONLY = {
    # temp() intermediates; a Nextflow run keeps them in work/ (README: nextflow clean)
    "test_rnaseq_trimmed_reads_deleted_after_alignment",
    # the flat {package: version} table of the Snakemake rules (test_versions_are_the_tools_own checks
    # Nextflow's {process: {package: version}} and MultiQC's section of it)
    "test_rnaseq_software_versions_are_the_installed_tools",
    # the same for every class: Nextflow's table is test_versions_file_lists_every_tool_with_a_real_version
    "test_every_example_writes_the_versions_table_of_its_packages",
}


def test_every_science_assert_of_the_snakemake_e2e_tests_is_reused():
    tests = {n for n in dir(snakemake_e2e) if n.startswith("test_")}
    assert tests - SNAKEMAKE_ONLY == {n for names in SCIENCE.values() for n in names}


@pytest.mark.e2e
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_real_run_passes_the_science_asserts(runs, name):
    run = runs(name)
    for assert_name in SCIENCE[name]:
        getattr(snakemake_e2e, assert_name)((run.view, run.truth))


@pytest.mark.e2e
def test_real_run_renders_the_emitted_reports(runs):
    """The emitted nextflow.config's HTML execution report and timeline (nf-core's, on by default) are written
    by a real run and name every process that ran (the other tests' runs leave them off: nextflow_jvm)."""
    run = runs(REPORTS_CLASS)
    ran = {row["process"] for row in run.trace}
    for report in ("execution_report.html", "execution_timeline.html"):
        text = (run.results / "pipeline_info" / report).read_text()
        assert {process for process in ran if process not in text} == set(), report


# --------------------------------------------------------------------------- executed task graph
def dag_process_edges(dot: str) -> set[tuple[str, str]]:
    """Process -> process edges of Nextflow's DAG (dot), through its operator and channel nodes."""
    labels = dict(re.findall(r'^(v\d+) \[label="([^"]+)"\]', dot, re.M))
    processes = {v: label.split(":")[-1].lower() for v, label in labels.items()}
    succ: dict[str, set[str]] = {}
    for a, b in re.findall(r"^(v\d+) -> (v\d+)", dot, re.M):
        succ.setdefault(a, set()).add(b)
    edges = set()
    for start, producer in processes.items():
        seen, queue = set(), deque(succ.get(start, ()))
        while queue:
            node = queue.popleft()
            if node in seen:
                continue
            seen.add(node)
            if node in processes:
                edges.add((producer, processes[node]))
            else:
                queue.extend(succ.get(node, ()))
    return {(a, b) for a, b in edges if a != b}


@pytest.fixture(scope="module")
def dry_runs():
    """One Snakemake process for the module's `snakemake -n` and `--rulegraph` (helpers.DryRunLoop)."""
    loop = DryRunLoop()
    yield loop
    loop.close()


def snakemake_graph(loop: DryRunLoop, workdir: Path, steps: set[str]) -> tuple[Counter, set[tuple[str, str]]]:
    """Jobs per rule of `snakemake -n` (without the `all` target) and the step edges of
    `snakemake --rulegraph` (helpers.rule_graph_edges), both run in the loop's process."""
    loop.submit(workdir, ["-n", "--cores", "1"])
    loop.submit(workdir, RULEGRAPH_ARGS)
    (dry_code, dry_out), (graph_code, graph_out) = loop.results()
    assert dry_code == 0, dry_out
    assert graph_code == 0, graph_out
    stats = dry_out.split("Job stats:", 1)[1]
    jobs = Counter()
    for rule, count in re.findall(r"^(\w+)\s+(\d+)$", stats, re.M):
        if rule not in ("all", "total"):
            jobs[rule] = int(count)
    return jobs, rule_graph_edges(graph_out, steps)


def _time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f")


@pytest.mark.e2e
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_executed_task_graph_equals_the_snakemake_rule_graph(runs, base, dry_runs, name):
    from bioplan.compile import compile_request

    run = runs(name)
    # without compile's `snakemake -n` pre-check: snakemake_graph dry-runs the Snakefile itself
    with PLANS:
        compiled = compile_request(e2e_support.request(name), e2e_support.inputs(base / "data", name),
                                   str(base / "smk" / name / "Snakefile"), force=True, validate=False)
    steps = {step.id for step in compiled.workflow.steps}
    jobs, rule_edges = snakemake_graph(dry_runs, compiled.output_dir, steps)

    assert all(row["status"] == "COMPLETED" for row in run.trace), run.trace
    tasks = Counter(row["process"].split(":")[-1].lower() for row in run.trace)
    assert set(tasks) == steps
    # one task per Snakemake job of the same step (a step's auxiliary rules, such as a database
    # build, run inside its process)
    assert {s: tasks[s] for s in steps} == {s: jobs[s] for s in steps}

    assert dag_process_edges(run.dag.read_text()) == rule_edges

    # the gating really held: each step began only after a task of every step it reads had ended
    first_start = {}
    first_end = {}
    for row in run.trace:
        step = row["process"].split(":")[-1].lower()
        first_start[step] = min(first_start.get(step, _time(row["start"])), _time(row["start"]))
        first_end[step] = min(first_end.get(step, _time(row["complete"])), _time(row["complete"]))
    for producer, consumer in rule_edges:
        assert first_start[consumer] >= first_end[producer], (producer, consumer)


# --------------------------------------------------------------------------- versions
def module_tools(pipeline: Path) -> dict[str, set[str]]:
    """{step: tools its process reports in software_versions.yml}, from the emitted sources: on the
    versions topic, or (MultiQC, which reads the topic) on its versions emit that main.nf mixes in."""
    workflow = (pipeline / "workflows" / "bioplan.nf").read_text()
    tools = {}
    for alias, module in re.findall(r"^include \{ \w+ as (\w+) \} from '\.\./(modules/[^']+)'", workflow, re.M):
        source = (pipeline / f"{module}.nf").read_text()
        tools[alias.lower()] = set(re.findall(r"val\('([^']+)'\), eval\(.*emit: versions_", source))
    return tools


@pytest.mark.e2e
@pytest.mark.parametrize("name", REFERENCE_CLASSES)
def test_versions_file_lists_every_tool_with_a_real_version(runs, name):
    run = runs(name)
    versions = yaml.safe_load((run.results / "pipeline_info" / "software_versions.yml").read_text())
    assert VERSION.match(versions.pop("Workflow")["Nextflow"])
    ran = {row["process"].split(":")[-1].lower() for row in run.trace}
    expected = module_tools(run.workdir)
    assert {step.lower() for step in versions} == ran
    for step, tools in versions.items():
        assert set(tools) == expected[step.lower()] and tools, (step, tools)
        for tool, version in tools.items():
            assert VERSION.match(str(version)), f"{step}: {tool} version {version!r}"
    # keyed by the package (bioconda's name), as nf-core does, never by bioplan's tool ids
    knowledge = load_knowledge()
    packages = {package_name(t.software) for t in knowledge.tools.values()} | {"python"}
    reported = {tool for tools in versions.values() for tool in tools}
    assert reported <= packages, reported - packages
    assert not reported & (set(knowledge.tools) - packages), reported & set(knowledge.tools)


# the package each example's steps report, with the version the tool on PATH prints (a Debian or
# PyPI build here; the pins of the envs and containers elsewhere)
REPORTED = {
    "rnaseq_fastq": {"READ_QC": "fastqc", "READ_TRIMMING": "fastp", "READ_ALIGNMENT": "star",
                     "READ_COUNTING": "subread", "QC_REPORT_AGGREGATION": "multiqc"},
    "metagenomics": {"HOST_READ_REMOVAL": "bowtie2", "DIFFERENTIAL_ABUNDANCE": "scipy"},
    "variants": {"VARIANT_ANNOTATION_BGZIP": "tabix"},
}


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(REPORTED))
def test_versions_are_the_tools_own(runs, name):
    """FastQC, fastp (stderr), Bowtie2 (after its path), MultiQC: the version the tool itself prints;
    the differential-abundance step reports SciPy, whose statistics it runs, not scanpy."""
    run = runs(name)
    versions = yaml.safe_load((run.results / "pipeline_info" / "software_versions.yml").read_text())
    for process, package in REPORTED[name].items():
        assert list(versions[process]) == [package], (process, versions[process])
    if name == "metagenomics":
        import scipy

        assert versions["DIFFERENTIAL_ABUNDANCE"]["scipy"] == scipy.__version__
    if name == "rnaseq_fastq":
        fastqc = subprocess.run(["fastqc", "--version"], capture_output=True, text=True, env=e2e_support.env())
        assert fastqc.stdout.strip() == f"FastQC v{versions['READ_QC']['fastqc']}"
        for package in ("star", "fastp", "fastqc", "subread", "multiqc"):
            process = next(p for p, tool in REPORTED[name].items() if tool == package)
            assert versions[process][package] == snakemake_e2e._installed_version(package), (process, package)
        # MultiQC's Software Versions section: every other process's versions, read from the topic
        # (its own is mixed in after it, so it never waits on itself)
        (shown_file,) = run.results.rglob("multiqc_data/multiqc_software_versions.txt")
        section = shown_file.read_text()
        shown = {cell.lower() for row in csv.reader(section.splitlines(), delimiter="\t") for cell in row}
        assert {"fastqc", "fastp", "star", "subread"} <= shown, section
