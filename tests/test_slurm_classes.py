"""The reference classes beyond bulk DE on the local SLURM cluster (scripts/slurm-local.sh; marker
`slurm`, failed under CI=true when no cluster can be had): each pipeline compiled for the cluster's
partition, account and node, run with its emitted SLURM profile, and every job read back from
`sacct`: COMPLETED, asking exactly the CPUs, memory and time the emitted profile gives its step
(the rule's request capped by the profile's limits), never more than the node, named after its rule
(Snakemake: the job comment, with the sample's wildcards; Nextflow: the job name, with the sample's
tag), its log where users look (logs/ of the workflow; Nextflow: the task's .command.log). Trivial
steps (the software versions, `resources.local` tools) never reach the scheduler.

The runs start together (one fixture) and share the node, so the module takes as long as the
longest run, not the sum; they are compiled for one CPU per job (--max-threads 1, which the
profiles then cap every job at) so that two jobs share a 2-CPU node: the bulk DE runs of
tests/test_slurm.py show multi-CPU jobs. By default the RNA-seq FASTQ class (one sample per
condition) runs under Snakemake (per-sample jobs) and the single-cell class under Nextflow;
BIOPLAN_SLURM_ALL=1 runs every class under both engines, BIOPLAN_SLURM_RUNS=class:target,... the
runs named.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
import yaml

from bioplan.compile import compile_request
from conftest import PlanOnce, example_inputs, example_request
from test_slurm import (  # noqa: F401  (slurm_node is a fixture)
    ACCOUNT,
    PARTITION,
    SACCT_FIELDS,
    NextflowRun,
    SnakemakeRun,
    _run,
    mem_mb,
    minutes,
    nextflow_step_resources,
    rule_requests,
    sacct_jobs,
    slurm_node,
    stop_runs,
    write_test_profile,
)

pytestmark = pytest.mark.slurm

CLASSES = ("rnaseq_fastq", "variants", "single_cell", "metagenomics")
# the pairs run by default: a per-sample read pipeline under Snakemake (one job per sample and
# rule, checks, an index, a cohort count), a cohort one under Nextflow
DEFAULT_RUNS = (("rnaseq_fastq", "snakemake"), ("single_cell", "nextflow"))
# BIOPLAN_SLURM_RUNS=variants:snakemake,metagenomics:nextflow picks the runs by hand
RUNS = tuple(tuple(r.split(":", 1)) for r in os.environ["BIOPLAN_SLURM_RUNS"].split(",")) \
    if os.environ.get("BIOPLAN_SLURM_RUNS") else tuple((c, t) for c in CLASSES for t in ("snakemake", "nextflow")) \
    if os.environ.get("BIOPLAN_SLURM_ALL") == "1" else DEFAULT_RUNS
ENTRY = {"snakemake": "Snakefile", "nextflow": "main.nf"}


def _inputs(workspace: Path, name: str) -> list[str]:
    """The example's inputs; of the RNA-seq FASTQ example one sample per condition and no sheet (the
    same pipeline, 14 SLURM jobs instead of 22: each job starts its own Snakemake in the job)."""
    inputs = example_inputs(workspace, name)
    if name == "rnaseq_fastq":
        inputs = [i for i in inputs if not i.endswith("samples.tsv") and "_2_R" not in Path(i).name]
    return inputs


@pytest.fixture(scope="module")
def runs(slurm_node, workspace, knowledge, tmp_path_factory):
    """Every run of RUNS compiled for this node and started at once: {(class, target): (dir, run)}."""
    from e2e.e2e_support import few_fastqc_contaminants  # FastQC's contaminant list: one entry, not ~2 CPU-s a file

    base = tmp_path_factory.mktemp("classes")
    limits = {"max_threads": 1, "max_mem_mb": slurm_node["mem_mb"]}
    started = {}
    with PlanOnce():
        for name, target in RUNS:
            out = compile_request(example_request(name), _inputs(workspace, name),
                                  str(base / f"{name}_{target}" / ENTRY[target]), target=target, knowledge=knowledge,
                                  validate=False, partition=PARTITION, account=ACCOUNT, **limits).output_dir
            if target == "snakemake":
                if "fastqc" in yaml.safe_load((out / "config" / "config.yaml").read_text())["params"]:
                    few_fastqc_contaminants(out, base)  # as the e2e runs of the small example reads
                profile = write_test_profile(out, **{"slurm-init-seconds-before-status-checks": 2})
                started[name, target] = out, SnakemakeRun(out, profile, out / "run.log")
            else:
                started[name, target] = out, NextflowRun(out, base / ".nxf_home")
    yield started
    stop_runs([run for _, run in started.values()])  # a test that failed early leaves no run behind


def _profile_caps(workdir: Path) -> dict[str, int | None]:
    profile = yaml.safe_load((workdir / "profiles" / "slurm" / "config.yaml").read_text())
    caps = profile.get("resources") or {}
    return {"threads": profile.get("max-threads"), "mem_mb": caps.get("mem_mb"), "runtime": caps.get("runtime")}


def _capped(want: dict[str, int], caps: dict[str, int | None]) -> dict[str, int]:
    return {k: min(v, caps[k]) if caps.get(k) else v for k, v in want.items()}


def _within_node(job: dict[str, str], node: dict[str, int]) -> None:
    assert int(job["ReqCPUS"]) <= node["cpus"] and mem_mb(job["ReqMem"]) <= node["mem_mb"], job
    assert (job["Partition"], job["Account"]) == (PARTITION, ACCOUNT), job
    assert (job["State"], job["ExitCode"]) == ("COMPLETED", "0:0"), job


def _planned_jobs(log: str) -> dict[str, int]:
    """Snakemake's 'Job stats' table at the start of the run: rule -> jobs."""
    table = log.split("Job stats:", 1)[1].split("total", 1)[0]
    return {rule: int(count) for rule, count in re.findall(r"^(\w+)\s+(\d+)$", table, re.M)}


def _samples(workdir: Path) -> list[str]:
    sheet = workdir / "config" / "samples.tsv"
    if not sheet.exists():
        return []
    rows = [line.split("\t") for line in sheet.read_text().splitlines() if line.strip()]
    return sorted({r[rows[0].index("sample")] for r in rows[1:]}) if rows and "sample" in rows[0] else []


def _rule_logs(workdir: Path) -> dict[str, str]:
    """Each rule's log path pattern, from the emitted rule files."""
    logs = {}
    for smk in (workdir / "workflow" / "rules").glob("*.smk"):
        for rule, path in re.findall(r"^rule (\w+):\n(?:    .*\n|        .*\n)*?    log:\n        \"([^\"]+)\"",
                                     smk.read_text(), re.M):
            logs[rule] = path
    return logs


@pytest.mark.parametrize("name", [c for c, t in RUNS if t == "snakemake"])
def test_snakemake_class_runs_on_slurm(runs, name, slurm_node):
    workdir, run = runs[name, "snakemake"]
    code, text, run_id = run.finish()
    assert code == 0, text[-5000:]
    requests, caps = rule_requests(workdir), _profile_caps(workdir)
    logs, samples = _rule_logs(workdir), _samples(workdir)
    planned = _planned_jobs(text)
    jobs = sacct_jobs(run_id, run.since)
    by_rule: dict[str, list[dict[str, str]]] = {}
    for job in jobs:
        rule = next((r for r in sorted(requests, key=len, reverse=True)
                     if job["Comment"] == f"rule_{r}" or job["Comment"].startswith(f"rule_{r}_wildcards_")), None)
        assert rule, f"job {job['JobID']}'s comment {job['Comment']!r} names no rule of the workflow"
        by_rule.setdefault(rule, []).append(job)
    # every job Snakemake planned for a cluster rule ran as one SLURM job; no local rule reached SLURM
    ran = {r: len(js) for r, js in by_rule.items()}
    assert ran == {r: n for r, n in planned.items() if r in requests}, text[-3000:]
    assert any(r.startswith("versions_") for r in planned) and not any(r.startswith("versions_") for r in by_rule)
    for rule, rule_jobs in by_rule.items():
        want = _capped(requests[rule], caps)
        for job in rule_jobs:
            _within_node(job, slurm_node)
            assert job["JobName"] == run_id and run_id.startswith("bioplan_"), job  # the profile's job name prefix
            assert int(job["ReqCPUS"]) == want["threads"], (rule, job)
            assert mem_mb(job["ReqMem"]) == want["mem_mb"] and minutes(job["Timelimit"]) == want["runtime"], (rule, job)
            assert f"submitted with SLURM jobid {job['JobID']} " in text, rule
            wildcards = job["Comment"].removeprefix(f"rule_{rule}").removeprefix("_wildcards_")
            assert wildcards == "" or wildcards in samples, (rule, job["Comment"], samples)
            log = workdir / logs[rule].replace("{sample}", wildcards)
            assert log.is_file(), (rule, log)
        if "{sample}" in logs[rule]:  # a per-sample rule: one job per sample, named after it
            assert sorted(j["Comment"].rsplit("_wildcards_", 1)[1] for j in rule_jobs) == samples, rule
    assert len(by_rule) >= 3 and (not samples or any(len(js) == len(samples) > 1 for js in by_rule.values()))
    print(f"{name} snakemake on slurm: {len(jobs)} jobs in {run.seconds:.0f} s")


@pytest.mark.parametrize("name", [c for c, t in RUNS if t == "nextflow"])
def test_nextflow_class_runs_on_slurm(runs, name, slurm_node):
    from test_nextflow_run import read_trace

    pipeline, run = runs[name, "nextflow"]
    code, text = run.finish()
    log = pipeline / ".nextflow.log"
    assert code == 0, text[-5000:] + (log.read_text(errors="replace")[-4000:] if log.exists() else "")
    wanted = nextflow_step_resources(pipeline)
    block = _slurm_block(pipeline)
    local = {p.lower() for names in re.findall(r"withName: '([\w|]+)' \{\n\s+executor = 'local'", block)
             for p in names.split("|")}
    assert "process.resourceLimits = [cpus: params.max_cpus as int," in block, block
    cpus = re.search(r"^    max_cpus = (\d+)$", (pipeline / "nextflow.config").read_text(), re.M)
    assert cpus, "no params.max_cpus in nextflow.config"
    trace = read_trace(pipeline / "results" / "pipeline_info" / "execution_trace.txt")
    assert trace and all(row["status"] == "COMPLETED" for row in trace), trace
    on_slurm = [row for row in trace if row["process"].rsplit(":", 1)[-1].lower() not in local]
    ids = [row["native_id"] for row in on_slurm]
    fields = SACCT_FIELDS + ("WorkDir",)
    for _ in range(20):  # the end record reaches slurmdbd a moment after the job ends
        out = _run(["sacct", "-X", "-P", "-n", "-S", run.since, "-j", ",".join(ids), "-o", ",".join(fields)],
                   timeout=60)
        jobs = {row["JobID"]: row for row in (dict(zip(fields, line.split("|"))) for line in out.stdout.splitlines()
                                               if line.strip())}
        if len(jobs) == len(ids) and all(j["State"] == "COMPLETED" for j in jobs.values()):
            break
        time.sleep(0.5)
    for row in on_slurm:
        step = row["process"].rsplit(":", 1)[-1].lower()
        job = jobs[row["native_id"]]
        _within_node(job, slurm_node)
        want = wanted[step]
        assert int(job["ReqCPUS"]) == min(want["threads"], int(cpus[1])), (step, job)
        assert mem_mb(job["ReqMem"]) == want["mem_mb"] and minutes(job["Timelimit"]) == want["runtime"], (step, job)
        tag = re.search(r"\((.+)\)$", row["name"])
        assert job["JobName"].startswith(f"nf-{row['process'].replace(':', '_')}"), job
        if tag:  # the task's tag (the sample, or the check) in the job's name
            assert re.sub(r"\W", "_", tag[1]) in job["JobName"], (row, job)
        assert (Path(job["WorkDir"]) / ".command.log").is_file(), job
    ran_local = [row for row in trace if row not in on_slurm]
    assert not any(r["native_id"] in jobs for r in ran_local)
    print(f"{name} nextflow on slurm: {len(on_slurm)} jobs (+{len(ran_local)} local) in {run.seconds:.0f} s")


def _slurm_block(pipeline: Path) -> str:
    block = re.search(r"\n    slurm \{\n(.*?)\n    \}\n", (pipeline / "nextflow.config").read_text(), re.S)
    assert block, "no slurm profile in nextflow.config"
    return block[1]
