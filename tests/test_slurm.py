"""Cluster profiles. The Snakemake SLURM profile runs a compiled branch-join workflow on a real
single-node SLURM cluster (scripts/slurm-local.sh: slurmctld, slurmd, slurmdbd), checked
from `sacct`: every rule one job with its own CPUs, memory and time, COMPLETED, right results; a
failing step is retried with more memory and fails the run, named. The Nextflow `slurm` profile
runs the same workflow on the same cluster (every process one job in sacct, asking what the
Snakemake rule of its step asks); its values are parsed and it passes the strict parser.

The SLURM run (marker `slurm`) starts the cluster, or reuses one that is up (`.ci/run` starts it);
it needs root to start it and is skipped without root and without a running cluster (under
`CI=true` it fails instead).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bioplan.compile import compile_request
from conftest import ROOT, SLURM_LOCAL, example_inputs, skip_or_fail_in_ci

PARTITION, ACCOUNT = "debug", "ci"  # what scripts/slurm-local.sh creates
SHORT = "short"  # scripts/slurm-local.sh: the same node under a 30 min time limit

# The bulk DE example with the Python tools (pydeseq2, gseapy): checks -> DE -> filter -> id
# conversion -> KEGG + GO (branches) -> merge (join).
REQUEST = ("Mouse bulk RNA-seq raw counts: differential expression between treated and control using "
           "pydeseq2, then KEGG and GO enrichment with gseapy, merged into one table.")
TOOLS = {"differential_expression": "pydeseq2", "kegg_enrichment": "gseapy_enrich_kegg",
         "go_enrichment": "gseapy_enrich_go", "pathway_merge": "merge_pathway_tables"}

# Test-only changes to the emitted profiles/slurm/config.yaml (write_test_profile): the plugin
# checks job states 40 s after the start and after each finished job, and each check that sees
# no job finish waits 10 s longer than the last, which makes a chain of 8 short jobs take
# minutes; the tools are on PATH here (no conda, no apptainer); the failing run retries once,
# on one CPU. (The cap at this node's CPUs and memory comes from compiling with its limits.)
INIT_SECONDS = 2
# ... and the +10 s after each check that saw no job finish has no setting (the plugin's
# check_active_jobs, up to 180 s): SnakemakeRun starts snakemake with the plugin's next interval
# held at INIT_SECONDS (test only: how often the submitting snakemake asks sacct, nothing the
# jobs, their requests or their accounting see). A job that takes 15 s then costs 16 s, not 36.
STEADY_STATUS_CHECKS = f"""\
import sys
from snakemake_executor_plugin_slurm import Executor
Executor.next_seconds_between_status_checks = property(lambda self: {INIT_SECONDS}, lambda self, value: None)
from snakemake.cli import main
sys.argv[0] = "snakemake"
main()
"""
FAILING_RETRIES = 1  # the failing run: attempt 1, then once more with twice the memory
# seconds per snakemake run, only to bound a hang: each job starts its own Python and Snakemake,
# quick on idle cores but minutes on a loaded machine (a CI run at load 10 needed over 240 s)
RUN_TIMEOUT = 900


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def _cluster_up() -> bool:
    if shutil.which("sinfo") is None or shutil.which("sacct") is None:
        return False
    try:
        avail = _run(["sinfo", "-h", "-p", PARTITION, "-o", "%a"], timeout=30).stdout.split()
        return avail[:1] == ["up"] and _run(["sacct", "-n", "-X", "-j", "1"], timeout=30).returncode == 0
    except (subprocess.TimeoutExpired, OSError):
        return False


@pytest.fixture(scope="module")
def slurm_node():
    """The local cluster's node ({cpus, mem_mb}); started here (and stopped after) unless up."""
    started = False
    if not _cluster_up():
        if os.geteuid() != 0:
            skip_or_fail_in_ci("no SLURM cluster up, and starting one (bash scripts/slurm-local.sh up) needs root")
        proc = _run(["bash", SLURM_LOCAL, "up"], timeout=900)
        assert proc.returncode == 0, f"slurm-local.sh up failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        started = True
    line = _run(["scontrol", "-o", "show", "node"], timeout=30).stdout.splitlines()[0]
    fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
    yield {"cpus": int(fields["CPUTot"]), "mem_mb": int(fields["RealMemory"])}
    if started:
        _run(["bash", SLURM_LOCAL, "down"], timeout=300)


def _daemon_pids(status_output: str) -> dict[str, str]:
    return dict(re.findall(r"^(\w+): running.*\(pid (\d+)\)$", status_output, re.M))


@pytest.mark.slurm
def test_slurm_local_up_is_idempotent(slurm_node):
    """`up` on a running cluster restarts nothing, rewrites no config, and still proves a job
    reaches the accounting database; `status` names every daemon with its PID."""
    before = _run(["bash", SLURM_LOCAL, "status"], timeout=60)
    if before.returncode != 0:
        skip_or_fail_in_ci(f"the SLURM cluster that is up was not started by scripts/slurm-local.sh:\n{before.stdout}")
    if os.geteuid() != 0:
        skip_or_fail_in_ci("`slurm-local.sh up` needs root")
    pids = _daemon_pids(before.stdout)
    assert sorted(pids) == sorted(["munged", "mariadbd", "slurmdbd", "slurmctld", "slurmd"]), before.stdout
    again = _run(["bash", SLURM_LOCAL, "up"], timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "configs in /etc/slurm unchanged" in again.stdout, again.stdout
    assert " started (pid " not in again.stdout and "stopping" not in again.stdout, again.stdout
    assert re.search(r"check job \d+ COMPLETED \(squeue and sacct\)", again.stdout), again.stdout
    assert _daemon_pids(_run(["bash", SLURM_LOCAL, "status"], timeout=60).stdout) == pids


def rule_requests(workdir: Path, local: bool = False) -> dict[str, dict[str, int]]:
    """threads, mem_mb and runtime (at attempt 1) of every rule but local ones (with `local`: those
    too), read from the emitted rules."""
    requests = {}
    for smk in sorted((workdir / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", smk.read_text()):
            name = re.match(r"rule (\w+):", block.strip())
            if not name or ("\n    localrule: True" in block and not local):  # beside Snakemake, never a SLURM job
                continue
            threads = re.search(r"\n    threads: (\d+)", block)
            mem = re.search(r"mem_mb=lambda wildcards, attempt: (\d+) \* attempt", block)
            runtime = re.search(r"runtime=lambda wildcards, attempt: (\d+) \* attempt", block)
            assert threads and mem and runtime, f"rule {name.group(1)} lacks threads/mem_mb/runtime:\n{block}"
            requests[name.group(1)] = {"threads": int(threads.group(1)), "mem_mb": int(mem.group(1)),
                                       "runtime": int(runtime.group(1))}
    return requests


def check_groups(workdir: Path) -> dict[str, set[str]]:
    """Each group of the emitted rules (the checks of one step) and its rules."""
    groups: dict[str, set[str]] = {}
    for smk in (workdir / "workflow" / "rules").glob("*.smk"):
        for rule, group in re.findall(r"^rule (\w+):\n(?:    .*\n|        .*\n)*?    group:\n        \"(\w+)\"",
                                      smk.read_text(), re.M):
            groups.setdefault(group, set()).add(rule)
    return groups


def job_rules(comment: str, rules, groups: dict[str, set[str]]) -> list[str]:
    """The rules a SLURM job of the plugin ran, from its comment: 'rule_<rule>[_wildcards_<...>]', or a group
    job's 'rule_<group>_<its rules, sorted, joined by _>'."""
    for group, members in groups.items():
        if comment.startswith(f"rule_{group}_"):
            ran = [r for r in sorted(members) if f"_{r}_" in f"_{comment.removeprefix(f'rule_{group}')}_"]
            assert "_".join(ran) == comment.removeprefix(f"rule_{group}_"), (comment, members)
            return ran
    named = [r for r in rules if comment == f"rule_{r}" or comment.startswith(f"rule_{r}_wildcards_")]
    assert named, f"the comment {comment!r} names no rule"
    return [max(named, key=len)]


def start_rulegraph(workdir: Path) -> subprocess.Popen:
    """`snakemake --rulegraph` of the workflow, in the background (read by independent_of)."""
    return subprocess.Popen([sys.executable, "-m", "snakemake", "--rulegraph", "--cores", "1"], cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def independent_of(rulegraph: subprocess.Popen, rule: str) -> set[str]:
    """The rules that do not need `rule`'s output, directly or through others (snakemake's rule
    graph: an edge a -> b means b reads what a writes)."""
    dot, err = rulegraph.communicate(timeout=300)
    assert rulegraph.returncode == 0, err[-3000:]
    names = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)"', dot, re.M))
    edges = [(names[a], names[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.M)]
    downstream, frontier = {rule}, [rule]
    while frontier:
        current = frontier.pop()
        for a, b in edges:
            if a == current and b not in downstream:
                downstream.add(b)
                frontier.append(b)
    assert rule in names.values() and len(names) > len(downstream), dot
    return set(names.values()) - downstream


def write_test_profile(workdir: Path, **overrides) -> Path:
    """profiles/slurm_test: the emitted SLURM profile with the test-only changes above."""
    profile = yaml.safe_load((workdir / "profiles" / "slurm" / "config.yaml").read_text())
    profile.pop("software-deployment-method")
    profile.update(overrides)
    path = workdir / "profiles" / "slurm_test" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(profile, sort_keys=False))
    return path.parent


class SnakemakeRun:
    """`snakemake --profile <profile>` in the background, under a hard timeout.

    The jobs inherit this environment (the plugin submits with --export=ALL), so the tools of
    this Python's environment are put first on PATH, as an activated virtualenv would."""

    def __init__(self, workdir: Path, profile: Path, log: Path):
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        env.pop("SNAKEMAKE_PROFILE", None)
        self.log, self.started = log, time.time()
        self.since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started - 5))
        with log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", STEADY_STATUS_CHECKS, "--profile", str(profile.relative_to(workdir))],
                cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def finish(self) -> tuple[int, str, str]:
        """(exit code, output, SLURM run id)."""
        try:
            code = self.proc.wait(timeout=max(1.0, self.started + RUN_TIMEOUT - time.time()))
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)  # snakemake cancels its SLURM jobs
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            code = None
        text = self.log.read_text(errors="replace")
        run_id = re.search(r"SLURM run ID: (\S+)", text)
        if code is None:
            if run_id:
                _run(["scancel", "--name", run_id.group(1)], timeout=60)
            pytest.fail(f"snakemake did not finish in {RUN_TIMEOUT} s ({self.log}):\n{text[-5000:]}")
        assert run_id, f"no SLURM run ID in the snakemake output:\n{text[-5000:]}"
        self.seconds = time.time() - self.started
        return code, text, run_id.group(1)


SACCT_FIELDS = ("JobID", "JobName", "Comment", "State", "ReqCPUS", "AllocCPUS", "ReqMem", "Timelimit",
                "Partition", "Account", "ExitCode")


def sacct_jobs(run_id: str, since: str) -> list[dict[str, str]]:
    """The run's jobs as the accounting database has them (allocations only, not steps)."""
    for _ in range(20):  # the end record reaches slurmdbd a moment after the job ends
        out = _run(["sacct", "-X", "-P", "-n", "-S", since, "--name", run_id, "-o", ",".join(SACCT_FIELDS)],
                   timeout=60)
        assert out.returncode == 0, out.stderr
        rows = [dict(zip(SACCT_FIELDS, line.split("|"))) for line in out.stdout.splitlines() if line.strip()]
        if rows and all(r["State"] not in ("PENDING", "RUNNING", "COMPLETING") for r in rows):
            return rows
        time.sleep(0.5)
    return rows


def mem_mb(req_mem: str) -> int:
    value, unit = re.fullmatch(r"([\d.]+)([KMGT]?)[nc]?", req_mem).groups()
    return round(float(value) * {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[unit])


def minutes(limit: str) -> int:
    days, _, hms = limit.rpartition("-")
    h, m, s = (int(x) for x in hms.split(":"))
    return int(days or 0) * 1440 + h * 60 + m + (s > 0)


def check_job(job: dict[str, str], want: dict[str, int], attempt: int, cpus: int) -> None:
    rule = job["Comment"]
    assert int(job["ReqCPUS"]) == int(job["AllocCPUS"]) == min(want["threads"], cpus), (rule, job)
    assert mem_mb(job["ReqMem"]) == want["mem_mb"] * attempt, (rule, job)
    assert minutes(job["Timelimit"]) == want["runtime"] * attempt, (rule, job)
    assert (job["Partition"], job["Account"]) == (PARTITION, ACCOUNT), (rule, job)


# Test-only Nextflow settings (-c): its SLURM executor polls every 30 s and waits 270 s for the
# exit file of a job that left the queue; the trace gets each task's SLURM job id and request.
NF_TEST_CONFIG = """\
executor {
    pollInterval = '1 sec'
    queueStatInterval = '2 sec'
    submitRateLimit = '100/1s'
    exitReadTimeout = '60 sec'
}
trace.fields = 'task_id,name,process,native_id,status,exit,attempt,cpus,memory,time'
"""


class NextflowRun:
    """`nextflow run . -profile slurm -c slurm_test.config [args]` in the background (the tools on PATH, as
    SnakemakeRun; the jobs inherit it, SLURM's default --export=ALL), under the same hard timeout. With
    config=None, `nextflow run . -profile slurm [args]` as a user types it."""

    def __init__(self, pipeline: Path, nxf_home: Path, args: tuple[str, ...] = (),
                 config: str | None = NF_TEST_CONFIG):
        from test_nextflow_run import nextflow_bin  # here: the fast tier never imports it

        if config is not None:
            (pipeline / "slurm_test.config").write_text(config)
            args = ("-c", "slurm_test.config", *args)
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                   NXF_ANSI_LOG="false", NXF_HOME=str(nxf_home))
        self.log, self.started = pipeline / "run.log", time.time()
        self.since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started - 5))
        with self.log.open("w") as out:
            self.proc = subprocess.Popen([nextflow_bin(), "run", ".", "-profile", "slurm", *args], cwd=pipeline,
                                         env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def finish(self) -> tuple[int, str]:
        try:
            code = self.proc.wait(timeout=max(1.0, self.started + RUN_TIMEOUT - time.time()))
        except subprocess.TimeoutExpired:
            self.proc.terminate()  # Nextflow cancels its SLURM jobs on SIGTERM
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            pytest.fail(f"nextflow did not finish in {RUN_TIMEOUT} s:\n{self.log.read_text(errors='replace')[-5000:]}")
        self.seconds = time.time() - self.started
        return code, self.log.read_text(errors="replace")


def stop_runs(runs) -> None:
    """A test that failed early leaves no run behind (Snakemake and Nextflow cancel their SLURM jobs)."""
    for run in runs:
        if run.proc.poll() is None:
            run.proc.terminate()
            try:
                run.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                run.proc.kill()


def _start_snakemake_runs(base: Path, node: dict[str, int], workspace: Path, knowledge) -> dict:
    """The workflow compiled with the cluster's limits (the profile caps every job at this node), and a copy
    whose DE step rejects a config parameter, both started."""
    workdir = base / "wf"
    result = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(workdir / "Snakefile"),
                             knowledge=knowledge, partition=PARTITION, account=ACCOUNT,
                             max_threads=node["cpus"], max_mem_mb=node["mem_mb"])
    requests = rule_requests(workdir)
    test_settings = {"slurm-init-seconds-before-status-checks": INIT_SECONDS}
    # The failing copy (same depth, so the relative input paths hold): pydeseq2 is asked for a
    # level the condition column does not have. Retried with twice the memory and time if the
    # node has that memory, then the run fails with the rule named.
    failing = base / "wf_failing"
    shutil.copytree(workdir, failing)
    config = yaml.safe_load((failing / "config" / "config.yaml").read_text())
    config["params"]["pydeseq2"]["test_level"] = "no_such_level"
    (failing / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copytree(workdir, base / "wf_graph")  # for the rule graph, beside the runs (see below)
    de = requests["differential_expression"]
    retries = FAILING_RETRIES if de["mem_mb"] * (FAILING_RETRIES + 1) <= node["mem_mb"] else 0
    # one CPU, so that it runs beside the other run's jobs instead of queueing for the whole node
    failing_settings = dict(test_settings, retries=retries, **{"max-threads": 1})
    run_failing = SnakemakeRun(failing, write_test_profile(failing, **failing_settings), base / "failing.log")
    run = SnakemakeRun(workdir, write_test_profile(workdir, **test_settings), base / "run.log")
    # the rule graph meanwhile, of a copy the runs do not touch (same depth: the relative input paths hold)
    return {"result": result, "workdir": workdir, "requests": requests, "failing": failing, "retries": retries,
            "run": run, "run_failing": run_failing, "rulegraph": start_rulegraph(base / "wf_graph")}


def _start_killed_run(base: Path, node: dict[str, int], workspace: Path, knowledge) -> tuple[Path, dict, NextflowRun]:
    """The pipeline of test_nextflow_job_killed_by_slurm_is_retried_with_more_memory, started. One CPU per job:
    its DE job runs beside the other runs' jobs instead of waiting for the whole node (its memory and time are
    what the test reads)."""
    compiled = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(base / "nf" / "main.nf"),
                               target="nextflow", knowledge=knowledge, validate=False, partition=PARTITION,
                               account=ACCOUNT, max_threads=1, max_mem_mb=node["mem_mb"])
    want = nextflow_step_resources(compiled.output_dir)["differential_expression"]
    pipeline = base / "killed"
    (pipeline / "conf").mkdir(parents=True)
    shutil.copy(compiled.output_dir / "conf" / "base.config", pipeline / "conf" / "base.config")
    config = (compiled.output_dir / "nextflow.config").read_text()
    slurm = re.search(r"\n    slurm \{\n(.*?)\n    \}\n", config, re.S)
    caps = re.findall(r"^    max_(?:cpus|memory|time) = .*$", config, re.M)
    (pipeline / "nextflow.config").write_text(  # the params the profile's resourceLimits read, then the profile
        "params {\n" + "\n".join(caps) + "\n}\nincludeConfig 'conf/base.config'\nprofiles {\n    slurm {\n"
        + slurm[1] + "\n    }\n}\n")
    (pipeline / "main.nf").write_text(
        "process DIFFERENTIAL_EXPRESSION {\n    output:\n    path 'de.txt'\n    script:\n    \"\"\"\n"
        "    if [ ${task.attempt} -lt 2 ]; then kill -9 -- -\\$(ps -o pgid= \\$\\$ | tr -d ' '); fi\n"
        "    echo done > de.txt\n    \"\"\"\n}\n"
        "process FAILING_STEP {\n    memory '200 MB'\n    input:\n    path de\n    script:\n    \"\"\"\n"
        "    echo 'not a resource problem' >&2; exit 3\n    \"\"\"\n}\n"
        "workflow {\n    FAILING_STEP(DIFFERENTIAL_EXPRESSION())\n}\n")
    # -c: applied after the profile's polling settings. The killed job leaves no exit file, and Nextflow waits
    # exitReadTimeout after the job left the queue before it calls the task failed (and retries it): 1 s here, as
    # every other job's exit file is written (on this node's own disk) before its job ends
    config = (NF_TEST_CONFIG.replace("exitReadTimeout = '60 sec'", "exitReadTimeout = '1 sec'")
        + f"trace.enabled = true\ntrace.file = '{pipeline}/trace.txt'\n")
    return pipeline, want, NextflowRun(pipeline, base / ".nxf_home", config=config)


def _start_refused_run(base: Path, workspace: Path, knowledge) -> tuple[Path, NextflowRun]:
    """The run of test_nextflow_job_no_node_takes_is_refused_not_left_pending, started: `nextflow run . -profile
    slurm` as a user types it (no test config) of the pipeline compiled for partition `short`."""
    pipeline = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(base / "nf" / "main.nf"),
                               target="nextflow", knowledge=knowledge, validate=False, partition=SHORT,
                               account=ACCOUNT, read_sinfo=False).output_dir
    return pipeline, NextflowRun(pipeline, base / ".nxf_home", config=None)


@pytest.fixture(scope="module")
def bulk_runs(slurm_node, workspace, knowledge, tmp_path_factory):
    """The bulk DE runs of the tests below, started at once so that their waits overlap (each
    Snakemake job starts its own Python and Snakemake, Nextflow its JVM, and a 2-CPU job holds the
    whole node): the Snakemake workflow, its failing copy, the Nextflow pipeline (compiled without
    the node's limits, given as nf-core's --max_cpus and --max_memory on the command line), and the
    two-process pipeline whose DE job is killed."""
    base = tmp_path_factory.mktemp("bulk")
    started = time.time()
    snakemake = _start_snakemake_runs(base / "smk", slurm_node, workspace, knowledge)
    pipeline = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(base / "nf" / "main.nf"),
                               target="nextflow", knowledge=knowledge, validate=False, partition=PARTITION,
                               account=ACCOUNT, read_sinfo=False).output_dir
    caps = ("--max_cpus", str(slurm_node["cpus"]), "--max_memory", f"{slurm_node['mem_mb']}.MB")
    nextflow = NextflowRun(pipeline, base / ".nxf_home", caps)
    killed = _start_killed_run(base / "killed", slurm_node, workspace, knowledge)
    refused = _start_refused_run(base / "refused", workspace, knowledge)
    yield {"snakemake": snakemake, "pipeline": pipeline, "nextflow": nextflow, "killed": killed, "refused": refused,
           "started": started}
    stop_runs([snakemake["run"], snakemake["run_failing"], nextflow, killed[2], refused[1]])
    if snakemake["rulegraph"].poll() is None:
        snakemake["rulegraph"].kill()
        snakemake["rulegraph"].communicate()


@pytest.mark.slurm
def test_snakemake_slurm_profile_runs_on_a_real_cluster(bulk_runs, slurm_node, workspace):
    """Two runs at once (one would take too long after the other), beside the Nextflow run below: the
    workflow, and a copy whose DE step rejects a config parameter."""
    runs = bulk_runs["snakemake"]
    workdir, requests, run = runs["workdir"], runs["requests"], runs["run"]
    bound = {s.operation: s.tool for s in runs["result"].plan.steps}
    assert all(bound.get(op) == tool for op, tool in TOOLS.items()), f"the plan binds {bound}, not {TOOLS}"
    # the cluster jobs: two checks, DE, KEGG and GO (the filter, id conversion, merge and the software
    # versions are local rules)
    assert len(requests) >= 5 and max(r["threads"] for r in requests.values()) > 1

    # 1. The whole workflow through SLURM: every rule one job, with its own CPUs, memory and time, but the
    # two checks of the DE step: one job (their group), side by side, one CPU and its memory each.
    code, text, run_id = run.finish()
    assert code == 0, text[-5000:]
    groups = check_groups(workdir)
    assert groups == {"checks_differential_expression": {"check_raw_integer_counts", "check_replicates"},
                      "checks_kegg_enrichment": {"check_entrez_id"}}, groups
    by_rule: dict[str, list[dict[str, str]]] = {}
    jobs = sacct_jobs(run_id, run.since)
    for job in jobs:
        for rule in job_rules(job["Comment"], requests, groups):
            by_rule.setdefault(rule, []).append(job)
    assert sorted(by_rule) == sorted(requests), f"rules in sacct {sorted(by_rule)} vs workflow {sorted(requests)}"
    assert len(jobs) == len(requests) - 1, jobs  # the DE step's two checks in one job
    for rule, rule_jobs in by_rule.items():
        assert len(rule_jobs) == 1, rule_jobs
        job = rule_jobs[0]
        assert (job["State"], job["ExitCode"]) == ("COMPLETED", "0:0"), job
        together = job_rules(job["Comment"], requests, groups)
        check_job(job, {"threads": sum(requests[r]["threads"] for r in together),
                        "mem_mb": sum(requests[r]["mem_mb"] for r in together),
                        "runtime": max(requests[r]["runtime"] for r in together)}, attempt=1, cpus=slurm_node["cpus"])
        assert f"submitted with SLURM jobid {job['JobID']} " in text, rule

    # ... with the right results: every planted DE gene significant, only the planted sets enriched.
    truth = json.loads((workspace / "data" / "bulk_de" / "truth.json").read_text())
    import pandas as pd  # here: the fast tier collects this module without running a cluster

    table = pd.read_csv(next((workdir / "results" / "differential_expression").glob("*.tsv")), sep="\t")
    padj = dict(zip(table["gene_id"], table["padj"]))
    planted = [g["ensembl_gene_id"] for g in truth["de_up"] + truth["de_down"]]
    assert all(padj[g] < 0.05 for g in planted), {g: padj[g] for g in planted if not padj[g] < 0.05}
    merged = pd.read_csv(workdir / "results" / "pathway_merge" / "merged_pathways.tsv", sep="\t")
    assert set(merged.loc[merged["padj"] < 0.05, "term"]) == set(truth["planted_sets"]), merged

    # 2. The failing step: non-zero exit, the rule named, its log shown, nothing downstream.
    run_failing, retries, de = runs["run_failing"], runs["retries"], requests["differential_expression"]
    code, text, run_id = run_failing.finish()
    assert code != 0, text[-5000:]
    assert "Error in rule differential_expression" in text, text[-5000:]
    assert "'no_such_level' is not a non-reference level" in text, text[-5000:]  # the rule's log, shown
    jobs = sacct_jobs(run_id, run_failing.since)
    failed = sorted((j for j in jobs if j["Comment"] == "rule_differential_expression"), key=lambda j: int(j["JobID"]))
    assert len(failed) == retries + 1, jobs
    for attempt, job in enumerate(failed, start=1):
        assert job["State"] == "FAILED", job
        check_job(job, de, attempt=attempt, cpus=1)
    # what ran beside it is what does not need its output: the checks and the software versions
    # table (each package's version job and their merge), never a step downstream of DE
    ran = {r for j in jobs if j not in failed for r in job_rules(j["Comment"], requests, check_groups(runs["failing"]))}
    assert {"check_raw_integer_counts", "check_replicates"} <= ran, jobs
    assert ran <= independent_of(runs["rulegraph"], "differential_expression"), jobs
    print(f"slurm test: {time.time() - bulk_runs['started']:.0f} s (run {run.seconds:.0f} s, "
          f"failing run {run_failing.seconds:.0f} s)")


@pytest.mark.slurm
def test_nextflow_slurm_profile_runs_on_a_real_cluster(bulk_runs, slurm_node, workspace, knowledge, tmp_path):
    """`nextflow run . -profile slurm` (the tools on PATH; the jobs inherit it, SLURM's default
    --export=ALL) on the local cluster: every process one SLURM job, found in sacct by the job id
    Nextflow recorded, COMPLETED, asking the partition and account given at compile time and the
    same CPUs, memory and time as the Snakemake target's rule of the same step (capped at this
    node by resourceLimits: compiled without the node's limits, given as nf-core's --max_cpus and
    --max_memory on the command line); the results right."""
    from test_nextflow_run import read_trace  # here: the fast tier never imports it

    # the Snakemake target's rules, compiled with the node's limits: what each process must ask
    wanted = rule_requests(compile_request(REQUEST, example_inputs(workspace, "bulk_de"),
                                           str(tmp_path / "snakemake" / "Snakefile"), knowledge=knowledge,
                                           validate=False, partition=PARTITION, account=ACCOUNT, read_sinfo=False,
                                           max_threads=slurm_node["cpus"], max_mem_mb=slurm_node["mem_mb"]).output_dir)
    pipeline, run = bulk_runs["pipeline"], bulk_runs["nextflow"]
    code, text = run.finish()
    log = pipeline / ".nextflow.log"
    assert code == 0, text[-5000:] + (log.read_text(errors="replace")[-4000:] if log.exists() else "")
    trace = read_trace(pipeline / "results" / "pipeline_info" / "execution_trace.txt")
    assert trace and all(row["status"] == "COMPLETED" for row in trace), trace
    # the steps the Snakemake target runs as local rules run beside Nextflow (its local executor)
    local = set(nextflow_step_resources(pipeline)) - set(wanted)
    assert local == {"gene_filtering", "gene_id_conversion", "pathway_merge"}, local
    trace = [row for row in trace if row["process"].rsplit(":", 1)[-1].lower() not in local]
    ids = [row["native_id"] for row in trace]
    assert all(i.isdigit() for i in ids), trace  # SLURM job ids: the tasks were submitted, not run locally
    fields = ",".join(SACCT_FIELDS + ("WorkDir",))
    for _ in range(20):  # the end record reaches slurmdbd a moment after the job ends
        out = _run(["sacct", "-X", "-P", "-n", "-S", run.since, "-j", ",".join(ids), "-o", fields], timeout=60)
        jobs = {row["JobID"]: row for row in (dict(zip(SACCT_FIELDS + ("WorkDir",), line.split("|")))
                                               for line in out.stdout.splitlines() if line.strip())}
        if len(jobs) == len(ids) and all(j["State"] == "COMPLETED" for j in jobs.values()):
            break
        time.sleep(0.5)
    for row in trace:
        rule = row["process"].rsplit(":", 1)[-1].lower()
        job = jobs[row["native_id"]]
        assert (job["State"], job["ExitCode"]) == ("COMPLETED", "0:0"), job
        assert job["JobName"].startswith(f"nf-{row['process'].replace(':', '_')}"), job
        assert Path(job["WorkDir"]).is_relative_to(pipeline / "work"), job
        # the Snakemake rule of the same step asks for the same (Comment: the rule, as the plugin writes it)
        check_job(dict(job, Comment=rule), wanted[rule], attempt=1, cpus=slurm_node["cpus"])
    assert {row["process"].rsplit(":", 1)[-1].lower() for row in trace} == set(wanted)
    import pandas as pd

    truth = json.loads((workspace / "data" / "bulk_de" / "truth.json").read_text())
    merged = pd.read_csv(next((pipeline / "results" / "pathway_merge").glob("*merged_pathways.tsv")), sep="\t")
    assert set(merged.loc[merged["padj"] < 0.05, "term"]) == set(truth["planted_sets"]), merged
    print(f"nextflow slurm test: run {run.seconds:.0f} s")


@pytest.mark.slurm
def test_nextflow_job_no_node_takes_is_refused_not_left_pending(bulk_runs):
    """A job asking for more than its partition offers stays PENDING forever (SLURM's own answer, shown
    with sbatch): `nextflow run . -profile slurm` of a pipeline compiled for partition `short`
    without the partition's limits (the time placeholder, 72 h, caps nothing there) stops before any
    submission, naming each process above the 30 min limit and nf-core's --max_time that fixes it; no job
    of the run reaches SLURM. (The run starts with the bulk runs; the sbatch meanwhile.)"""
    job = _run(["sbatch", "--parsable", "-p", SHORT, "-A", ACCOUNT, "--time", "60", "-o", "/dev/null",
                "--wrap", "true"], timeout=60)  # -o: no slurm-<id>.out left in the folder the tests run from
    assert job.returncode == 0, job.stderr
    try:
        for _ in range(40):
            reason = _run(["squeue", "-h", "-j", job.stdout.strip(), "-o", "%T %r"], timeout=60).stdout.split()
            if reason[1:] == ["PartitionTimeLimit"]:
                break
            time.sleep(0.5)
        assert reason == ["PENDING", "PartitionTimeLimit"], reason
    finally:
        _run(["scancel", job.stdout.strip()], timeout=60)
    pipeline, run = bulk_runs["refused"]
    asked = nextflow_step_resources(pipeline)
    code, stdout = run.finish()
    assert code != 0, stdout[-4000:]
    assert f"ask for more than a node of SLURM partition '{SHORT}' offers" in stdout, stdout[-4000:]
    assert "the 30 min time limit" in stdout and "--max_time '30.min'" in stdout, stdout[-4000:]
    named = set(re.findall(r"^  (\w+): .*\d+ min > the 30 min time limit$", stdout, re.M))
    # every process SLURM runs whose time at the last of its 3 attempts is above 30 min (DE: 60 min at the first)
    over = {p.upper() for p, r in asked.items() if r["runtime"] * 3 > 30 and p in rule_requests_of_nextflow(pipeline)}
    assert "DIFFERENTIAL_EXPRESSION" in named and named == over, (named, over, stdout[-4000:])
    assert "Submitted process" not in stdout, stdout[-4000:]
    # of this run (its work directory: the other Nextflow runs share the cluster meanwhile)
    sacct = _run(["sacct", "-X", "-P", "-n", "-S", run.since, "-o", "JobName,WorkDir"], timeout=60).stdout.splitlines()
    assert not [line for line in sacct if line.startswith("nf-") and
                Path(line.split("|", 1)[1]).is_relative_to(pipeline)], sacct


def rule_requests_of_nextflow(pipeline: Path) -> set[str]:
    """The processes the slurm profile submits (every one but its local-executor steps)."""
    block = _nextflow_slurm_block(pipeline)
    local = {p.lower() for names in re.findall(r"withName: '([\w|]+)' \{\n\s+executor = 'local'", block)
             for p in names.split("|")}
    return set(nextflow_step_resources(pipeline)) - local


@pytest.mark.slurm
def test_nextflow_job_killed_by_slurm_is_retried_with_more_memory(bulk_runs, slurm_node):
    """The emitted conf/base.config's retry on SLURM: a job ended as a whole by the scheduler (as its
    cgroup does for memory: no exit status is left, Nextflow reads 2147483647) is resubmitted with
    twice the memory and time of its step, and the run goes on; a step that fails for another reason
    (exit status 3) runs once, is not retried, and fails the run. A two-process pipeline includes the
    emitted configs: one named as the DE step, whose first attempt kills its own job's processes, then
    one that exits 3 on the DE step's output."""
    from test_nextflow_run import read_trace

    pipeline, want, run = bulk_runs["killed"]
    code, text = run.finish()
    assert code != 0, text[-4000:]
    assert "terminated for an unknown reason" in text and "Execution is retried (1)" in text
    assert "Execution is retried (2)" not in text and "FAILING_STEP" in text, text[-4000:]
    trace = read_trace(pipeline / "trace.txt")
    failing = [r for r in trace if r["process"] == "FAILING_STEP"]
    assert [(r["attempt"], r["status"], r["exit"]) for r in failing] == [("1", "FAILED", "3")], trace  # not retried
    trace = [r for r in trace if r not in failing]
    assert [(r["attempt"], r["status"]) for r in trace] == [("1", "FAILED"), ("2", "COMPLETED")], trace
    fields = ("JobID", "State", "ReqCPUS", "ReqMem", "Timelimit", "Partition", "Account")
    for _ in range(20):
        out = _run(["sacct", "-X", "-P", "-n", "-j", ",".join(r["native_id"] for r in trace + failing), "-o",
                    ",".join(fields + ("ExitCode",))], timeout=60).stdout
        jobs = {row["JobID"]: row for row in (dict(zip(fields + ("ExitCode",), line.split("|")))
                                               for line in out.splitlines() if line)}
        if len(jobs) == 3 and jobs[trace[1]["native_id"]]["State"] == "COMPLETED" and \
                jobs[failing[0]["native_id"]]["State"] == "FAILED":
            break
        time.sleep(0.5)
    assert jobs[failing[0]["native_id"]]["ExitCode"] == "3:0", jobs  # one SLURM job, its own exit status
    for row in trace:
        job, attempt = jobs[row["native_id"]], int(row["attempt"])
        assert mem_mb(job["ReqMem"]) == min(want["mem_mb"] * attempt, slurm_node["mem_mb"]), job
        assert minutes(job["Timelimit"]) == want["runtime"] * attempt, job
        assert (job["Partition"], job["Account"]) == (PARTITION, ACCOUNT), job


# --- the emitted profiles' values (no cluster needed) -----------------------------------------

@pytest.fixture(scope="module")
def emitted(workspace, knowledge, tmp_path_factory):
    """The request compiled for both targets, with and without --partition/--account."""
    base = tmp_path_factory.mktemp("profiles")
    out = {}
    for target, entry in (("snakemake", "Snakefile"), ("nextflow", "main.nf")):
        for cluster in ("given", "placeholder"):
            # read_sinfo=False: the same files whether or not a SLURM cluster answers on this machine
            kw = {"partition": PARTITION, "account": ACCOUNT, "read_sinfo": False} if cluster == "given" else {}
            out[target, cluster] = compile_request(REQUEST, example_inputs(workspace, "bulk_de"),
                                                   str(base / target / cluster / entry), target=target,
                                                   knowledge=knowledge, validate=False, **kw).output_dir
    return out


def test_snakemake_slurm_profile_values(emitted):
    text = (emitted["snakemake", "given"] / "profiles" / "slurm" / "config.yaml").read_text()
    profile = yaml.safe_load(text)
    assert profile["executor"] == "slurm"
    assert profile["retries"] >= 1 and profile["jobs"] > 1 and profile["latency-wait"] >= 30
    # what a cluster admin accepts: submissions rate-limited (Snakemake's default is 100 a second)
    count, per = profile["max-jobs-per-timespan"].split("/")
    assert int(count) <= 10 and per == "1s"
    assert profile["software-deployment-method"] in ("conda", "apptainer")
    assert "# software-deployment-method: apptainer" in text  # the other choice, commented
    # Python string literals: Snakemake evaluates resource values (a partition named `all` or
    # `max` would otherwise become a builtin function)
    assert profile["default-resources"] == {"slurm_partition": '"debug"', "slurm_account": '"ci"'}
    # no resources in the profile: they come from the rules
    assert not {"mem_mb", "runtime", "threads", "cpus_per_task"} & set(profile["default-resources"])
    assert "set-threads" not in profile and "set-resources" not in profile


def test_profile_settings_exist_in_the_pinned_plugin(emitted):
    """Every `slurm-...` setting the profile writes or suggests in a comment is a setting of the
    executor plugin the profile and the `slurm` extra pin (Snakemake refuses an unknown one), and
    the installed plugin is that version."""
    from importlib.metadata import version

    from snakemake_executor_plugin_slurm import ExecutorSettings

    text = (emitted["snakemake", "given"] / "profiles" / "slurm" / "config.yaml").read_text()
    pinned = re.search(r"pip install snakemake-executor-plugin-slurm==([\d.]+)", text)
    assert pinned and version("snakemake-executor-plugin-slurm") == pinned[1]
    extra = (ROOT / "pyproject.toml").read_text()
    assert f'"snakemake-executor-plugin-slurm=={pinned[1]}"' in extra
    keys = set(re.findall(r"^#? ?slurm-([\w-]+):", text, re.M))
    assert {"init-seconds-before-status-checks", "logdir", "keep-successful-logs"} <= keys
    fields = {f.replace("_", "-") for f in ExecutorSettings.__dataclass_fields__}
    assert keys <= fields, keys - fields
    # the resources the profile names are the plugin's (qos included, commented)
    assert re.search(r"^  # qos: ", text, re.M)


def test_snakemake_slurm_profile_placeholders(emitted):
    text = (emitted["snakemake", "placeholder"] / "profiles" / "slurm" / "config.yaml").read_text()
    profile = yaml.safe_load(text)
    assert profile["executor"] == "slurm" and profile.get("default-resources") is None
    assert re.search(r"^  # slurm_partition: .*<partition>.*TODO", text, re.M)
    assert re.search(r"^  # slurm_account: .*<account>.*TODO", text, re.M)


def test_hostile_partition_stays_one_string(workspace, knowledge, tmp_path):
    partition = "it's\"x\"$(touch)`id`"  # no space: sbatch would split a line there (refused: test_escaping)
    for target, entry in (("snakemake", "Snakefile"), ("nextflow", "main.nf")):
        out = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(tmp_path / target / entry),
                              target=target, knowledge=knowledge, validate=False, partition=partition,
                              account="a'b\"c", read_sinfo=False).output_dir  # escaping, not the cluster's limits
        if target == "snakemake":
            resources = yaml.safe_load((out / "profiles" / "slurm" / "config.yaml").read_text())["default-resources"]
            assert eval(resources["slurm_partition"], {"__builtins__": {}}) == partition  # noqa: S307
            assert eval(resources["slurm_account"], {"__builtins__": {}}) == "a'b\"c"  # noqa: S307
        else:
            text = (out / "nextflow.config").read_text()
            assert "process.queue = 'it\\'s\"x\"$(touch)`id`'" in text
            assert "process.clusterOptions = '--account=a\\'b\"c'" in text


def test_default_profile_keys_do_not_shadow_the_slurm_profile(emitted):
    """Snakemake always applies profiles/default/ as the workflow profile, also with
    `--profile profiles/slurm`, and its keys win: they must not touch what the cluster needs."""
    wf = emitted["snakemake", "given"]
    default = yaml.safe_load((wf / "profiles" / "default" / "config.yaml").read_text())
    slurm = yaml.safe_load((wf / "profiles" / "slurm" / "config.yaml").read_text())
    assert not set(default) & set(slurm)
    assert not set(default) & {"cores", "jobs", "executor", "retries", "keep-going", "default-resources",
                               "set-threads", "max-threads", "software-deployment-method"}


def test_dry_run_with_the_slurm_profile_requests_the_rules_resources(emitted, tmp_path):
    """Without a cluster: the profile parses, profiles/default is applied as well, and the jobs
    carry each rule's own mem_mb/runtime and the partition and account."""
    wf = tmp_path / "wf"
    shutil.copytree(emitted["snakemake", "given"], wf)
    profile = write_test_profile(wf)  # no conda here
    proc = _run([sys.executable, "-m", "snakemake", "--profile", profile.relative_to(wf), "-n"], cwd=wf, timeout=300)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-3000:]
    assert "workflow specific profile profiles/default" in text
    # the DE step's two checks: one group job (the profile's group-components), their rules inside it
    group = re.search(r"\] Group job checks_differential_expression .*?\n(.*?)\n\[", text, re.S)
    assert group and text.count("Group job checks_differential_expression ") == 1, text[-3000:]
    assert re.findall(r"^    rule (\w+):", group[1], re.M) == ["check_raw_integer_counts", "check_replicates"]
    for rule, want in rule_requests(wf).items():
        block = re.search(rf"^( *)rule {rule}:\n(?:\1    .*\n)*?\1    resources: (.*)", text, re.M)
        assert block, rule
        resources = block.group(2).split(", ")
        assert {f"mem_mb={want['mem_mb']}", f"runtime={want['runtime']}", "slurm_partition=debug",
                "slurm_account=ci"} <= set(resources), (rule, resources)


def _nextflow_slurm_block(pipeline: Path) -> str:
    text = (pipeline / "nextflow.config").read_text()
    match = re.search(r"\n    slurm \{\n(.*?)\n    \}\n", text, re.S)
    assert match, "no slurm profile in nextflow.config"
    return match.group(1)


def _nf_settings(block: str) -> dict[str, str]:
    return dict(m.groups() for m in re.finditer(r"^        ([\w.]+) = (.+?)\s*(?://.*)?$", block, re.M))


def test_nextflow_slurm_profile_values(emitted):
    settings = _nf_settings(_nextflow_slurm_block(emitted["nextflow", "given"]))
    assert settings["process.executor"] == "'slurm'"
    assert settings["process.queue"] == "'debug'"
    assert settings["process.clusterOptions"] == "'--account=ci'"
    assert int(settings["executor.queueSize"]) >= 10
    assert re.fullmatch(r"'\d+ ?/ ?\d* ?(sec|s|min|m)'", settings["executor.submitRateLimit"]), settings
    # nf-core's options: resourceLimits from params.max_cpus, max_memory and max_time (--max_cpus N on the
    # command line), placeholders marked TODO when bioplan compile was not given the node's limits
    assert settings["process.resourceLimits"] == ("[cpus: params.max_cpus as int, memory: params.max_memory as "
                                                  "MemoryUnit, time: params.max_time as Duration]")
    params = (emitted["nextflow", "given"] / "nextflow.config").read_text().split("\nprofiles {")[0]
    assert re.search(r"^    max_cpus = 32\n    max_memory = '256.GB'\n    max_time = '72.h'$", params, re.M), params
    assert "// TODO: max_cpus, max_memory, max_time: placeholders" in params
    schema = json.loads((emitted["nextflow", "given"] / "nextflow_schema.json").read_text())
    assert set(schema["$defs"]["max_job_request_options"]["properties"]) == {"max_cpus", "max_memory", "max_time"}
    assert int(settings["process.maxRetries"]) >= 1
    assert "apptainer.cacheDir" in settings and "singularity.cacheDir" in settings
    # resources come by label and attempt from conf/base.config, capped by resourceLimits
    base = (emitted["nextflow", "given"] / "conf" / "base.config").read_text()
    assert "task.attempt" in base and "resourceLimits" in base
    # retried: killed by a signal (memory, time limit), or ended by SLURM as a whole (no exit status)
    assert "errorStrategy = { task.exitStatus in ((130..145) + 104 + 175 + 2147483647) ? 'retry' : 'finish' }" in base


def nextflow_step_resources(pipeline: Path) -> dict[str, dict[str, int]]:
    """cpus, memory (MB) and time (minutes) at attempt 1 of every process, from conf/base.config."""
    found = {}
    text = (pipeline / "conf" / "base.config").read_text()
    for name, body in re.findall(r"^    withName: '(\w+)' \{\n(.*?)\n    \}", text, re.M | re.S):
        cpus = re.search(r"cpus = \{ (\d+) \}", body)
        memory = re.search(r"memory = \{ (\d+)\.MB \* task\.attempt \}", body)
        hours_or_min = re.search(r"time = \{ (\d+)\.min \* task\.attempt \}", body)
        assert cpus and memory and hours_or_min, (name, body)
        found[name.lower()] = {"threads": int(cpus[1]), "mem_mb": int(memory[1]), "runtime": int(hours_or_min[1])}
    return found


def test_nextflow_processes_ask_what_the_snakemake_rules_ask(emitted):
    """One request, both targets: each Nextflow process asks (by name, over its nf-core label) for
    the CPUs, memory and time of the Snakemake rule of the same step, memory and time x attempt."""
    by_process = nextflow_step_resources(emitted["nextflow", "given"])
    rules = rule_requests(emitted["snakemake", "given"], local=True)
    assert by_process and {p: rules[p] for p in by_process} == by_process
    assert set(rules) - set(by_process) == {r for r in rules if r.startswith(("software_versions", "versions_"))}
    assert any(r["threads"] > 1 for r in by_process.values())


def test_failed_checks_are_not_retried(emitted):
    """The profile's `retries` resubmits a job with more memory and time; a precondition check fails on
    the data, the same at every attempt, so its rule says `retries: 0` (a rule's own retries win over
    the profile's, Snakemake's Rule.restart_times); the tools' rules keep the profile's."""
    rules = (emitted["snakemake", "given"] / "workflow" / "rules")
    blocks = {m[1]: m[0] for smk in rules.glob("*.smk")
              for m in re.finditer(r"^rule (\w+):\n(?:    .*\n|\n(?!rule ))*", smk.read_text(), re.M)}
    checks = {r for r in blocks if r.startswith("check_")}
    assert checks and all("\n    retries: 0\n" in blocks[r] for r in checks), checks
    assert not any("retries:" in b for r, b in blocks.items() if r not in checks)


def test_trivial_steps_stay_off_the_scheduler(emitted):
    """The steps of tools marked `resources.local` (the DE filter, the id conversion, the merge) and the
    software versions rules are Snakemake local rules, and the same steps run on
    Nextflow's local executor in its slurm profile only: no cluster job for seconds of work."""
    wf = emitted["snakemake", "given"]
    local = set(rule_requests(wf, local=True)) - set(rule_requests(wf))
    versions = {r for r in local if r.startswith(("software_versions", "versions_"))}
    assert versions and "software_versions" in versions
    assert local - versions == {"gene_filtering", "gene_id_conversion", "pathway_merge"}
    assert {"differential_expression", "check_replicates"} <= set(rule_requests(wf))
    block = _nextflow_slurm_block(emitted["nextflow", "given"])
    assert re.search(r"withName: 'GENE_FILTERING\|GENE_ID_CONVERSION\|PATHWAY_MERGE' \{\n"
                     r"\s+executor = 'local'", block), block
    text = (emitted["nextflow", "given"] / "nextflow.config").read_text()
    assert text.count("executor = 'local'") == 2  # the slurm profile's local steps, and the local profile


def test_nextflow_slurm_profile_placeholders(emitted):
    block = _nextflow_slurm_block(emitted["nextflow", "placeholder"])
    settings = _nf_settings(block)
    assert settings["process.executor"] == "'slurm'"
    assert "process.queue" not in settings and "process.clusterOptions" not in settings
    assert re.search(r"// process.queue = '<partition>'.*TODO", block)
    assert re.search(r"// process.clusterOptions = '--account=<account>'.*TODO", block)


@pytest.mark.slow
def test_nextflow_config_with_slurm_profile_passes_the_strict_parser(emitted, nf_lint):
    configs = [emitted["nextflow", cluster] / "nextflow.config" for cluster in ("given", "placeholder")]
    proc = nf_lint(*configs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "nf-lint: 2 file(s): OK" in proc.stdout, proc.stdout
