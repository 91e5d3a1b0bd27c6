"""Shared fixtures: the shipped knowledge, generated example data, compiled reference workflows.

Test tiers (markers in pyproject.toml):
- fast: `pytest -m "not e2e and not slurm"`: units, properties with few examples, compiles
  that need no real run; aimed at under a minute on 2 idle cores. A fast test that waits (wall
  clock beyond its CPU time, a loaded machine's stalls not counted) more than 2 s fails, naming
  the ways out (tests/wait_guard.py).
- e2e: runs of real tools and whole loops: emitted workflows run end to end (tests/e2e/),
  Nextflow runs and its Java parser, `snakemake` processes beyond a compile's own pre-check,
  wheels built and installed, the whole development set, the README's blocks. Whole modules
  say so with `pytestmark = pytest.mark.e2e`; the single integration tests of mixed modules
  are listed in INTEGRATION below, with the reason, and get the marker at collection, as do
  the tests named with a word of INTEGRATION_NAMES (lint and snakefmt runs) and those using a
  fixture of INTEGRATION_FIXTURES (the whole development set, Nextflow's parser on Java).
- slurm: needs a SLURM cluster (scripts/slurm-local.sh).
`.ci/run` runs every tier (CI=true: Hypothesis tests draw their full example counts, see
`examples()`), on two pytest-xdist workers (`-n 2`, the README's test command): the example data
is generated and the knowledge validated once per run (the workers share the run's folder, see
`_run_dir`), each worker copies the data into its own workspace and compiles `compiled_classes`
on first use, and `xdist_group()` keeps a module's tests, a named-tool case's, and the SLURM
cluster's on one worker. Compiles of one request and inputs for several targets or options share
one plan (`PlanOnce`); files read by many compiles are sniffed once (`SniffOnce`). Keeping the
fast tier fast: a compile in a test passes `validate=False` unless the test is about the
`snakemake -n` pre-check, and CLI errors are checked in process (click's CliRunner) unless the
test is about the installed entry point.
"""

from __future__ import annotations

import ast
import fcntl
import functools
import gc
import importlib.util
import itertools
import os
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import wait_guard

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
SLURM_LOCAL = ROOT / "scripts" / "slurm-local.sh"  # the local SLURM cluster of the `slurm` tests
NF_LINT = ROOT / "scripts" / "nf-lint.sh"  # Nextflow's strict parser (nf-lang) on Java

# Integration tests inside otherwise fast modules: node id prefix -> why it is an e2e run.
INTEGRATION = {
    "tests/test_wheel.py::": "builds a wheel and installs it into fresh virtualenvs",
    "tests/test_nextflow_run.py::": "runs Nextflow (stub and real runs)",
    "tests/test_signals.py::": "signals compiles whose Snakemake pre-check runs in a child process",
    "tests/test_precheck_plugins.py::": "starts Snakemake processes to watch which plugins they load",
    "tests/test_benchmarks.py::": "runs the compile and planner benchmarks",
    "tests/test_cluster_fit.py::test_the_start_check_reads_the_real_dag_without_a_cluster": "runs snakemake's DAG",
    "tests/test_cluster_fit.py::test_dry_run_lowers_requests_to_the_caps": "runs snakemake -n on a workflow",
    "tests/test_names.py::test_plan_and_compile_exit_only_0_or_2_on_odd_input_paths": "a CLI compile per odd path",
    "tests/test_names.py::test_compile_exits_only_0_or_2_on_odd_output_paths": "a CLI compile per odd path",
    "tests/test_injection.py::test_a_line_end_in_the_request_runs_nothing_in_the_snakemake_workflow":
        "runs the emitted Snakemake workflow",
    "tests/test_injection.py::test_the_nextflow_config_of_a_hostile_request_passes_the_strict_parser":
        "Nextflow's strict parser on Java",
    "tests/test_output_dir.py::test_two_concurrent_compiles_into_one_new_output": "two CLI compiles racing",
    "tests/test_output_dir.py::test_impossible_output_is_exit_2_naming_path_and_reason": "a CLI compile per path",
    "tests/test_output_dir.py::test_read_only_file_system_is_exit_2": "a CLI compile on a read-only mount",
    "tests/test_eval.py::test_dev_set_meets_the_committed_baseline": "compiles the whole development set",
    "tests/test_eval.py::test_compile_runs_snakemake_dry_run": "runs snakemake -n",
    "tests/test_nextflow.py::test_reference_pipelines_pass_the_strict_parser": "Nextflow's strict parser on Java",
    "tests/test_nextflow.py::test_a_broken_pipeline_fails_the_strict_parser": "Nextflow's strict parser on Java",
    "tests/test_nextflow.py::test_process_graph_equals_snakemake_rule_graph": "runs snakemake --rulegraph",
    "tests/test_examples_generate.py::test_generation_is_byte_identical": "generates every example twice",
    "tests/test_examples_generate.py::test_metagenomic_reads_and_planted_abundance": "simulates and classifies reads",
    "tests/test_emitted_practice.py::test_single_cell_qc_": "runs scanpy QC on the example cells",
    "tests/test_compile.py::test_hostile_names_compile_and_pass_checks": "snakemake --lint and snakefmt runs",
    "tests/test_references.py::test_genome_and_annotation_follow_organism_and_build":
        "compiles one workflow per organism and build",
    "tests/test_references.py::test_the_start_check_names_every_missing_reference_once":
        "runs snakemake -n on the workflow twice",
    "tests/test_reference_fetch.py::test_fetch_rules_download_verify_and_share_one_cache":
        "runs the fetch rules against a local HTTP server",
    "tests/test_reference_fetch.py::test_nextflow_fetch_process_downloads_verifies_and_stores_once":
        "runs the fetch process against a local HTTP server",
    "tests/test_reference_fetch.py::test_gencode_md5_and_msigdb_recorded_sha256":
        "runs the fetch rules against a local HTTP server",
    "tests/test_reference_fetch.py::test_a_checksum_mismatch_fails_the_rule_naming_the_file":
        "runs a fetch rule against a local HTTP server",
    "tests/test_reference_fetch.py::test_the_start_check_lets_fetch_true_download_what_is_missing":
        "runs snakemake -n on the workflow twice",
    "tests/test_compile.py::test_precheck_failure_falls_back_to_the_next_plan_once": "two real pre-checks",
    "tests/test_examples_generate.py::test_only_gives_the_same_bytes_as_a_full_run": "generates every example",
    "tests/test_provenance.py::test_version_command_prints_exactly_the_version": "runs each tool's version command",
    "tests/test_intermediates.py::test_snakemake_deletes_intermediates_unless_kept": "runs the emitted workflow",
    "tests/test_versions_table.py::test_snakemake_version_rule": "runs the emitted versions rules with snakemake",
    "tests/test_slurm.py::test_dry_run_with_the_slurm_profile_requests_the_rules_resources": "runs snakemake -n",
    "tests/test_slurm.py::test_profile_settings_exist_in_the_pinned_plugin":
        "imports the SLURM executor plugin, which asks the scheduler (9 s of retries where none answers)",
}
# Words of a test's name that make it an integration run, wherever it is.
INTEGRATION_NAMES = {"dry_run_lint_and_snakefmt": "snakemake -n, snakemake --lint and snakefmt on emitted workflows"}
# Fixtures that make a test an integration run: the whole development set compiled (`bioplan eval`),
# Nextflow's strict parser on Java (seconds per pipeline).
INTEGRATION_FIXTURES = {"dev_report", "nf_lint"}


# Every test under tests/e2e/ is an integration run (its modules also say so with `pytestmark`).
E2E_DIR = Path(__file__).resolve().parent / "e2e"


# Modules whose every test is an integration run (an INTEGRATION prefix that is the whole module).
E2E_MODULES = {Path(__file__).resolve().parents[1] / prefix.removesuffix("::")
               for prefix in INTEGRATION if prefix.endswith(".py::")}


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """tests/e2e/ and the modules whose every test is an integration run are not even imported when
    `-m` leaves out every e2e test (the fast tier: their imports and collection cost each xdist
    worker seconds for nothing: test_nextflow_run imports tests/e2e's run checks)."""
    if (collection_path == E2E_DIR or collection_path in E2E_MODULES) and not _may_select_e2e(
            config.getoption("markexpr", "")):
        return True
    return None


def _may_select_e2e(markexpr: str) -> bool:
    """Whether a test marked e2e can pass `-m markexpr`: the expression holds with e2e true for some
    truth of its other names (markers an e2e test may also carry)."""
    if not markexpr:
        return True
    from _pytest.mark.expression import Expression

    expression = Expression.compile(markexpr)
    names = sorted(set(re.findall(r"[A-Za-z_][\w.+-]*", markexpr)) - {"and", "or", "not", "e2e"})
    for truths in itertools.product((False, True), repeat=len(names)):
        marked = dict(zip(names, truths), e2e=True)
        if expression.evaluate(functools.partial(_holds, marked)):
            return True
    return False


def _holds(marked: dict[str, bool], name: str, /, **kwargs) -> bool:
    return marked.get(name, False)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers (and before xdist reads the groups)
def pytest_collection_modifyitems(config, items):
    grouped = config.pluginmanager.hasplugin("xdist")
    prefixes, e2e_dir = tuple(INTEGRATION), f"{E2E_DIR}{os.sep}"  # one startswith each, not a loop over Paths
    groups: dict[int, str] = {}  # each item's group worked out once (a worker sorts on them below)
    marks: dict[str, pytest.MarkDecorator] = {}  # one mark per group, not one per item
    for item in items:
        listed = item.nodeid.startswith(prefixes) or any(
            word in item.name for word in INTEGRATION_NAMES) or str(item.path).startswith(e2e_dir)
        if listed or INTEGRATION_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if grouped:
            group = groups[id(item)] = xdist_group(item)
            item.add_marker(marks.get(group) or marks.setdefault(group, pytest.mark.xdist_group(group)))
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the order groups are handed out
        items[:] = _integration_groups_first(items, groups or None)


def pytest_configure(config):
    """Python's cyclic garbage collector less often than its default (after 700 allocations, every
    10th of those a middle pass, every 100th a full pass over the whole heap): a worker holds the
    knowledge and the compiles of its tests, and the collector took 7 % of the named-tool compiles' CPU
    (1.5 of 20.9 CPU-s; 0.8 now); cycles still go, within 50,000 allocations."""
    gc.set_threshold(50_000, 20, 20)
    fast_tier = not _may_select_e2e(config.getoption("markexpr", ""))
    wait_guard.register(config, fast_tier=fast_tier)
    if fast_tier:
        _temp_in_memory(config)
    # A machine may set PYTHONDONTWRITEBYTECODE (this one does): then each test process parses and
    # compiles every test module (pytest's assertion rewriting) and every bioplan module again on
    # every run, 2.2 of the 4.5 CPU-s a worker spends collecting the fast tier. The test processes
    # keep Python's usual __pycache__/ (ignored by git); the environment variable stays, so the tools
    # and emitted workflows the tests start write no bytecode where they did not before.
    sys.dont_write_bytecode = False


# The fast tier's temporary folders (tmp_path, the workspace, the compiled workflows) in memory when the
# machine has a tmpfs with room: its tests write ~15,000 small files (every compile writes its whole
# tree), which on this machine's ext4 disk cost up to ~4 CPU-s of kernel time (the more, the busier the
# disk) and seconds of waiting for it, next to nothing on tmpfs (the three heaviest compile modules: 26.0
# -> 21.8 CPU-s with the disk busy, no difference with it idle).
# pytest's --basetemp or PYTEST_DEBUG_TEMPROOT, when given, choose instead; the e2e tiers (workflow
# runs, indexes, wheels) keep the disk.
MEMORY_TEMP = Path("/dev/shm")
MEMORY_TEMP_ROOM = 4 << 30  # bytes free on the tmpfs, well above a fast run's ~200 MB (3 runs are kept)


def _temp_in_memory(config, root: Path = MEMORY_TEMP) -> None:
    if config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT"):  # xdist workers get --basetemp
        return
    try:
        if not (os.access(root, os.W_OK | os.X_OK) and shutil.disk_usage(root).free >= MEMORY_TEMP_ROOM):
            return
    except OSError:
        return
    os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)  # read when pytest first makes its base folder


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Before pytest's own clean-up collects garbage five times over (to report exceptions raised in
    finalizers): one full collection here, then the survivors frozen, so that those five passes walk
    only what the finalizers of this one leave, not again the whole heap of a worker that holds the
    knowledge and every compile of its tests."""
    gc.collect()
    gc.freeze()


# Tests that use the one SLURM cluster (scripts/slurm-local.sh): never two at once.
SLURM_GROUP = "slurm"


def _integration_groups_first(items: list, groups: dict[int, str] | None = None) -> list:
    """The groups holding an integration run (minutes each: workflow runs, the SLURM cluster) first,
    the many short ones after them, so that no long group starts last and leaves a worker idle;
    otherwise collection order. The SLURM group goes first of all: its minutes are mostly waiting for
    the cluster's jobs, which the other worker's runs then fill (last, it leaves both cores idle)."""
    if groups is None:  # each item's group worked out once (the collection hook passes those it worked out)
        groups = {id(item): xdist_group(item) for item in items}
    slow = {groups[id(item)] for item in items if item.get_closest_marker("e2e") or item.get_closest_marker("slurm")}
    # stable: each group keeps its order
    return sorted(items, key=lambda item: (groups[id(item)] != SLURM_GROUP, groups[id(item)] not in slow))


# Modules that read the same costly thing, kept on one worker so it is made once: the package's
# source parsed (`parsed_source`, ~0.8 CPU-s a parse of the whole package); pandas imported (~0.6 CPU-s a
# process, with numpy): the fast tier's modules that read a table with it import it inside their tests, not
# at collection, so the other worker never loads it (a new user of pandas joins this group).
SHARED_GROUPS = {
    "tests/test_function_length.py": "package_source",
    "tests/test_import_graph.py": "package_source",
    "tests/test_knowledge_ids_in_code.py": "package_source",
    "tests/test_escaping.py": "pandas",
    "tests/test_escaping_properties.py": "pandas",
    "tests/test_escaping_tool_families.py": "pandas",
    "tests/test_real_data_round4b.py": "pandas",
    "tests/test_real_data_round7.py": "pandas",
}


def parsed_source(path: Path) -> ast.Module:
    """The syntax tree of a Python file, parsed once per test process and file version (path,
    modification time, size): the tests that check the package's source walk it, none changes it."""
    status = path.stat()
    return _parsed_source(str(path), status.st_mtime_ns, status.st_size)


@functools.cache
def _parsed_source(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), path)


def source_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `parsed_source(path)` in `ast.walk`'s order, listed once per test process and file
    version: the checks of the package's source (function lengths, the import graph, the ids in the code)
    each go through every node of every module, and a walk costs ~0.4 CPU-s over the package."""
    status = path.stat()
    return _source_nodes(str(path), status.st_mtime_ns, status.st_size)


@functools.cache
def _source_nodes(path: str, mtime_ns: int, size: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed_source(path, mtime_ns, size)))


def xdist_group(item) -> str:
    """The pytest-xdist worker group of a test (`-n 2 --dist loadgroup`, the README's test command):
    a group runs on one worker, in order. The tests of the SLURM cluster form one group (one cluster,
    and their jobs must not queue behind each other's); otherwise a module is one group, so its
    module fixtures (a workflow run, a wheel built in the checkout's build/) are made once, unless
    the module splits itself with an `xdist_group_of(item)` function (the named-tool cases: one
    group per case, whose compiles only its own tests read), or shares a group of SHARED_GROUPS."""
    if item.get_closest_marker("slurm") or "slurm_node" in getattr(item, "fixturenames", ()):
        return SLURM_GROUP
    module = item.nodeid.split("::", 1)[0]
    if module in SHARED_GROUPS:
        return SHARED_GROUPS[module]
    split = getattr(getattr(item, "module", None), "xdist_group_of", None)
    part = split(item) if split is not None else None
    return f"{module}:{part}" if part else module


def examples(full: int) -> int:
    """Hypothesis example count: `full` under CI (CI=true, .ci/run), a tenth (at least 10) in the
    fast tier, or BIOPLAN_PROPERTY_EXAMPLES when set."""
    if os.environ.get("BIOPLAN_PROPERTY_EXAMPLES"):
        return int(os.environ["BIOPLAN_PROPERTY_EXAMPLES"])
    return full if os.environ.get("CI") == "true" else max(10, full // 10)


# The five reference task classes, with the example each compiles from.
REFERENCE_CLASSES = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")


def _load_generator():
    spec = importlib.util.spec_from_file_location("bioplan_examples_generate", ROOT / "examples" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def skip_or_fail_in_ci(reason: str) -> None:
    """Skip a test whose tool is missing here; under CI (CI=true), where .ci/run installs every
    tool, the same gap fails the test instead of hiding it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run should have provided it)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def nf_lint():
    """Runs scripts/nf-lint.sh on pipeline directories or files; skipped without Java 17+
    (`bash scripts/nf-lint.sh --install` installs it and the parser)."""
    if shutil.which("java") is None:
        skip_or_fail_in_ci("no java on PATH for Nextflow's strict parser (bash scripts/nf-lint.sh --install)")
    ready = subprocess.run(["bash", str(NF_LINT), "--check"], capture_output=True, text=True, timeout=600)
    if ready.returncode != 0:
        skip_or_fail_in_ci(f"scripts/nf-lint.sh cannot run here: {ready.stderr.strip()}")

    def run(*paths: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(NF_LINT), *map(str, paths)], capture_output=True, text=True, timeout=600)

    return run


def _run_dir(tmp_path_factory) -> Path:
    """A folder of this run: shared by its pytest-xdist workers (each worker's base folder is a
    subfolder of the controller's), else the session's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def _run_lock(run_dir: Path, name: str):
    """One worker of the run at a time (the other waits for what the first one makes)."""
    with open(run_dir / f".{name}.lock", "w") as lock:
        with wait_guard.waited_for_the_run():
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    # tests never read a knowledge cache left by another checkout; the run's workers share one
    run_dir = _run_dir(tmp_path_factory)
    cache = run_dir / "cache"
    cache.mkdir(exist_ok=True)
    os.environ["BIOPLAN_CACHE_DIR"] = str(cache)
    kept = _kept_cache_dir(run_dir)
    if kept is not None:
        with _run_lock(run_dir, "kept_cache"):
            if not (cache / ".kept").exists():
                _prune_kept(kept)
                _copy_entries(kept, cache / "bioplan")
                (cache / ".kept").touch()
    yield
    if kept is not None:
        _copy_entries(cache / "bioplan", kept)


# Two caches outlive the run, in pytest's folder of this user's runs (pytest-of-<user>/, beside the
# numbered run folders it keeps three of): snakefmt's output per emitted text (codegen/snakemake.py
# `_FORMAT_KIND`: keyed by the text, the snakefmt, Black and shfmt versions and the formatting code)
# and Jinja's compiled templates (codegen/template_cache.py: a folder per environment code and Jinja
# version, each entry checked against its template's source). Both give a warm run the very bytes a
# cold run makes: an edited template, rule text or formatter is a miss, and a text snakefmt refuses is
# never remembered. The fast tier formats ~630 texts: the named-tool module alone, in one process, 17.3 ->
# 11.5 user CPU-s warm; the whole tier ~2-9 of its ~80-100 CPU-s (other modules compile the same cases).
# The knowledge, its indexes and their stamps stay the run's own (validated once per run).
KEPT_CACHES = ("snakefmt-", "templates-")
KEPT_CACHE_LIMIT = 5000  # entries; past it the kept cache starts afresh (old templates' texts pile up)


def _kept_cache_dir(run_dir: Path) -> Path | None:
    """pytest-of-<user>/bioplan-kept-cache when the run's folder is one of pytest's numbered ones
    (not a --basetemp given elsewhere)."""
    return run_dir.parent / "bioplan-kept-cache" if run_dir.parent.name.startswith("pytest-of-") else None


def _prune_kept(kept: Path) -> None:
    if kept.is_dir() and sum(1 for _ in kept.iterdir()) > KEPT_CACHE_LIMIT:
        shutil.rmtree(kept, ignore_errors=True)


def _copy_entries(source: Path, dest: Path) -> None:
    """The entries of KEPT_CACHES in `source` that `dest` lacks, hard-linked (same file system) or
    copied, each atomically; folders (the templates') entry by entry. Only costs time when it fails."""
    try:  # one listing of each folder (os.scandir: the kind of each entry without a stat of its own)
        with os.scandir(source) as listing:
            entries = [entry for entry in listing if entry.name.startswith(KEPT_CACHES)]
        dest.mkdir(mode=0o700, parents=True, exist_ok=True)
        present = set(os.listdir(dest))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir():
            _copy_entries_of(Path(entry.path), dest / entry.name)
        elif entry.name not in present:
            _link_or_copy(Path(entry.path), dest / entry.name)


def _copy_entries_of(source: Path, dest: Path) -> None:
    try:
        dest.mkdir(mode=0o700, exist_ok=True)
        present = set(os.listdir(dest))
        with os.scandir(source) as listing:
            entries = [entry for entry in listing if entry.name not in present and not entry.name.startswith(".")]
        for entry in entries:
            if entry.is_file():
                _link_or_copy(Path(entry.path), dest / entry.name)
    except OSError:
        pass


def _link_or_copy(path: Path, dest: Path) -> None:
    try:
        os.link(path, dest)
        return
    except FileExistsError:
        return
    except OSError:
        pass
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}")
    try:
        shutil.copy2(path, tmp)
        os.replace(tmp, dest)
    except OSError:
        tmp.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def knowledge(tmp_path_factory):
    """The shipped knowledge, validated by the first worker of the run and read from its cache by the others.
    Its lexicon and planning indexes too (each cached on disk beside it, built on first use): built under the
    same lock, the other worker reads them instead of building them at the same time (~2 CPU-s)."""
    from bioplan.knowledge.load import load_knowledge
    from bioplan.planner.index import planning_index
    from bioplan.request.lexicon import lexicon_index

    with _run_lock(_run_dir(tmp_path_factory), "knowledge"):
        loaded = load_knowledge()
        lexicon_index(loaded)
        planning_index(loaded)
        return loaded


@pytest.fixture(scope="session")
def workspace(tmp_path_factory) -> Path:
    """A directory with data/<class>/ (generated examples) beside out/ (compiled workflows). Each
    worker has its own copy (tests add files beside the examples) of the data generated once per run
    (the generator is deterministic)."""
    base = tmp_path_factory.mktemp("ws")
    shutil.copytree(_generated_examples(_run_dir(tmp_path_factory)), base / "data", symlinks=True)
    return base


def _generated_examples(run_dir: Path) -> Path:
    data, done = run_dir / "examples", run_dir / "examples.done"
    with _run_lock(run_dir, "examples"):
        if not done.exists():
            shutil.rmtree(data, ignore_errors=True)
            _load_generator().generate(data)
            done.touch()
    return data


@pytest.fixture(scope="session")
def dry_run_loop():
    """One Snakemake process per pytest worker for the `snakemake -n` runs of many workflows (helpers.DryRunLoop)."""
    from helpers import DryRunLoop

    loop = DryRunLoop()
    wait_guard.LIVE_CHILDREN.add(loop.proc.pid)  # the tests wait for its CPU (tests/wait_guard.py)
    yield loop
    loop.close()  # reaped: its CPU is now among the finished children's
    wait_guard.LIVE_CHILDREN.discard(loop.proc.pid)


class _LoopDryRun:
    """The dry run `bioplan compile` starts ahead (snakemake_checks._take_worker), served by `dry_run_loop`:
    the workflow's directory and Snakemake's arguments as compile's pre-check gives them, its exit code and
    output as the verdict."""

    def __init__(self, loop):
        self.loop = loop

    def run(self, workdir: Path, timeout: int = 600) -> tuple[int, str]:
        from bioplan.validate import snakemake_checks

        self.loop.submit(Path(workdir).resolve(), list(snakemake_checks._DRY_RUN_ARGS))
        code, output = self.loop.results()[0]
        return code, output.strip()


@pytest.fixture
def precheck_in_loop(dry_run_loop, monkeypatch):
    """compile's `snakemake -n` pre-check run in the worker's one Snakemake process instead of a new one per
    compile (~2 CPU-s each, most of it importing Snakemake), for modules whose tests pre-check several compiles."""
    from bioplan.validate import snakemake_checks

    monkeypatch.setattr(snakemake_checks, "_take_worker", lambda: _LoopDryRun(dry_run_loop))


class PlanOnce:
    """compile_request's planning done once per distinct request, inputs and options, while this is
    entered (`with plans:`): each compile of the same request and inputs (another target, other
    cluster limits or output paths) emits the plan the first one made. Planning is deterministic and
    its result frozen, so the second compile gets what it would have planned itself. The key holds
    each input's size and modification time, so an input changed in between is planned anew."""

    def __init__(self):
        self.plans: dict[tuple, Any] = {}
        self._patch: Any = None

    def __enter__(self) -> PlanOnce:
        import bioplan.compile

        self._patch = mock.patch.object(bioplan.compile, "plan_request", functools.partial(self.plan,
                                                                                          bioplan.compile.plan_request))
        self._patch.start()
        return self

    def __exit__(self, *exc) -> None:
        self._patch.stop()

    def plan(self, plan_request, query: str, inputs: list[str], knowledge=None, **options):
        key = (query, tuple(map(_stamp, inputs)), id(knowledge), repr(sorted(options.items())))
        if key not in self.plans:
            self.plans[key] = plan_request(query, inputs, knowledge, **options)
        return self.plans[key]


class SniffOnce:
    """Each input file read by the sniffers once while this is entered (`with sniffs:`), however many
    compiles name it (the named-tool cases all read the example's reads). Sniffing is deterministic
    and its findings frozen; a finding is kept with the file (real path, inode, size, modification
    time) and the fields of the readers' context it consulted (`_ReadContext`: the organism prefixes,
    format signatures, the datatypes the request expects, the other inputs), and is given again for the
    same file whenever those fields are equal: a FASTQ reader consults none, a FASTA one what the request
    expects (a FASTA a tree is built from is a sequence set, beside a kallisto request a transcriptome)."""

    def __init__(self):
        self.found: dict[tuple, list[tuple[dict[str, Any], Any]]] = {}
        self._patch: Any = None

    def __enter__(self) -> SniffOnce:
        from bioplan.request.sniffers import registry

        self._patch = mock.patch.object(registry, "guarded", functools.partial(self.sniff, registry.guarded))
        self._patch.start()
        return self

    def __exit__(self, *exc) -> None:
        self._patch.stop()

    def sniff(self, guarded, path: str, ctx):
        kept = self.found.setdefault((path, _stamp(path)), [])
        for consulted, found in kept:
            if all(getattr(ctx, name) == value for name, value in consulted.items()):
                return found
        reading = _ReadContext(ctx)
        found = guarded(path, reading)
        kept.append((reading.consulted, found))
        return found


class _ReadContext:
    """A sniffers' Context that notes the fields a reader consults, with their values. Reading a file
    inside a folder (`sniff`, through the dispatch) may consult any field: all of them are noted."""

    def __init__(self, ctx):
        self._ctx = ctx
        self.consulted: dict[str, Any] = {}

    def __getattr__(self, name: str):
        import dataclasses

        value = getattr(self._ctx, name)
        if name in ("sniff", "dispatch"):
            self.consulted.update((f.name, getattr(self._ctx, f.name)) for f in dataclasses.fields(self._ctx)
                                  if f.name != "dispatch")
        else:
            self.consulted[name] = value
        return value


@pytest.fixture(scope="module")
def sniffed_once():
    """The files a module's plans read, read once for the whole module (SniffOnce), for modules whose tests
    plan over the same example files and change no reader (`pytestmark = pytest.mark.usefixtures(...)`)."""
    with SniffOnce() as memo:
        yield memo


def _stamp(path: str) -> tuple:
    try:
        status = os.stat(path)
    except OSError:
        return (path,)
    return os.path.realpath(path), status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


class CompiledClasses:
    """The reference classes compiled from their examples, for either target, each on first use.

    Compiled without compile's `snakemake -n` pre-check (the emitted files are the same with it;
    the pre-check's own tests compile on their own) into workspace/compiled_<target>/<class>/: two
    levels below the workspace, as the golden files' relative input paths (../../data/<class>/)
    expect. The trees are shared by every module of the session (of each xdist worker) and are
    read-only: a test that writes into a workflow (placeholder references, a dry run's .snakemake/,
    a run's results) works on `copy()`; the session fails at its end when a shared tree changed."""

    def __init__(self, workspace: Path, knowledge):
        self.workspace, self.knowledge = workspace, knowledge
        self.results: dict[tuple[str, str], Any] = {}
        self.fingerprints: dict[tuple[str, str], dict[str, bytes]] = {}
        self.plans = PlanOnce()  # both targets of a class compile one plan

    def __getitem__(self, key: tuple[str, str]):
        if key not in self.results:
            from bioplan.compile import compile_request

            name, target = key
            out = self.workspace / f"compiled_{target}" / name
            with self.plans:
                self.results[key] = compile_request(example_request(name), example_inputs(self.workspace, name),
                                                    str(out), target=target, validate=False, knowledge=self.knowledge)
            self.fingerprints[key] = _tree_bytes(out)
        return self.results[key]

    def copy(self, key: tuple[str, str], tag: str) -> Path:
        """A private copy of one compiled workflow, at workspace/<tag>/<class>_<target>/: at the
        same depth, so its relative input paths still reach the example data. `tag` is unique per
        test (the test's name)."""
        name, target = key
        return Path(shutil.copytree(self[key].output_dir, self.workspace / tag / f"{name}_{target}"))

    def changed(self) -> list[str]:
        """The files of the shared trees that differ from what compile wrote, or were added or removed."""
        changed = []
        for key, before in self.fingerprints.items():
            after = _tree_bytes(self.results[key].output_dir)
            changed += [path for path in sorted(before.keys() | after.keys()) if before.get(path) != after.get(path)]
        return changed


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def compiled_classes(workspace, knowledge):
    """(class, target) -> CompileResult of a reference class (see CompiledClasses), once per session."""
    classes = CompiledClasses(workspace, knowledge)
    yield classes
    changed = classes.changed()
    assert not changed, f"tests wrote into the shared compiled workflows (use compiled_classes.copy): {changed[:10]}"


def example_request(name: str, lang: str = "en") -> str:
    fname = "request.txt" if lang == "en" else "request.zh.txt"
    return (ROOT / "examples" / name / fname).read_text(encoding="utf-8").strip()


def example_inputs(workspace: Path, name: str) -> list[str]:
    lines = (ROOT / "examples" / name / "inputs.txt").read_text(encoding="utf-8").splitlines()
    return [str(workspace / "data" / name / line) for line in lines if line.strip()]
