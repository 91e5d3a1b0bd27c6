"""Cluster runs never hang (issue 16): the cluster's limits reach both targets' SLURM profiles,
a SLURM run checks every rule against the partition before submitting, and a job SLURM keeps
PENDING for a reason that never clears stops the run with the rule, the job id and the reason.

The emitted workflow's guard (templates/cluster/slurm_guard.py, emitted as
scripts/slurm_guard.py) is tested on canned `sinfo`/`squeue` output, then on the local SLURM
cluster of tests/test_slurm.py (marker `slurm`: skipped without a cluster and without root to
start one, failed under CI=true).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from click.testing import CliRunner

from bioplan.cli import main
from bioplan.compile import cluster_limits, compile_request
from bioplan.errors import ClusterTooSmallError, InvalidOptionError
from conftest import ROOT, PlanOnce, example_inputs, example_request
from test_slurm import (  # noqa: F401  (slurm_node is a fixture)
    ACCOUNT,
    INIT_SECONDS,
    PARTITION,
    REQUEST,
    SnakemakeRun,
    rule_requests,
    sacct_jobs,
    slurm_node,
    stop_runs,
    write_test_profile,
)

GUARD_PATH = ROOT / "templates" / "cluster" / "slurm_guard.py"


def _load_guard():
    spec = importlib.util.spec_from_file_location("bioplan_slurm_guard_under_test", GUARD_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


guard = _load_guard()

# `sinfo -h -N -o '%P|%N|%c|%m|%l|%a'` of a cluster with a small default partition, a big one
# with nodes of two sizes and a time limit, and the local test cluster's shape
SINFO = """\
short*|n1|2|22900|1:00:00|up
short*|n2|2|22900|1:00:00|up
big|b1|64|128000|2-00:00:00|up
big|b2|16|512000|2-00:00:00|up
"""


def _requests(*rows):
    return [guard.Request(*row) for row in rows]


# ------------------------------------------------------------------ parsing

@pytest.mark.parametrize("text, minutes", [
    ("infinite", None), ("UNLIMITED", None), ("30", 30), ("30:00", 30), ("59:30", 59), ("1:00:00", 60),
    ("2-00:00:00", 2880), ("1-12", 2160), ("1-00:30", 1470), ("3-04:05:06", 3 * 1440 + 4 * 60 + 5),
])
def test_slurm_time_limits_in_minutes(text, minutes):
    assert guard.slurm_minutes(text) == minutes


def test_parse_sinfo_groups_nodes_by_partition_and_marks_the_default():
    parts = guard.parse_sinfo(SINFO)
    assert list(parts) == ["big", "short"]
    assert guard.default_partition(parts) == "short"
    assert (parts["short"].max_cpus, parts["short"].max_mem_mb, parts["short"].max_minutes) == (2, 22900, 60)
    assert (parts["big"].max_cpus, parts["big"].max_mem_mb, parts["big"].max_minutes) == (64, 512000, 2880)
    assert [n.name for n in parts["big"].nodes] == ["b1", "b2"]


def test_parse_squeue_and_host_lists():
    line = "123|run-uuid|rule_differential_expression|PENDING|PartitionConfig|debug|4|8000M|2:00:00|1|" \
           "2026-01-02T03:04:05|lab|normal|/data/my|odd dir\n"
    (job,) = guard.parse_squeue(line)
    assert (job.jobid, job.name, job.state, job.reason, job.cpus, job.mem_mb, job.nodes, job.account, job.qos) == (
        "123", "run-uuid", "PENDING", "PartitionConfig", 4, 8000, 1, "lab", "normal")
    assert job.workdir == "/data/my|odd dir"
    assert guard.mem_mb("8G") == 8192 and guard.mem_mb("500M") == 500 and guard.mem_mb("1000") == 1000
    assert guard.expand_hostlist("node[01-03,7],gpu1") == ["node01", "node02", "node03", "node7", "gpu1"]


# ------------------------------------------------------------------ fit check

def test_requests_that_fit_the_partition_pass():
    parts = guard.parse_sinfo(SINFO)
    assert guard.misfits(_requests(("a", None, 2, 20000, 60, 3), ("b", "big", 64, 128000, 2880, 1),
                                   ("c", "big", 16, 500000, 10, 1)), parts) == []


def test_threads_memory_after_retries_and_time_that_no_node_offers_are_misfits():
    parts = guard.parse_sinfo(SINFO)
    found = guard.misfits(_requests(
        ("de", None, 4, 8000, 120, 1), ("de", None, 4, 24000, 360, 3),  # attempts 1 and 3 of one rule
        ("qc", None, 1, 1000, 10, 1)), parts)
    assert {(m.rule, m.what, m.asked, m.offered) for m in found} == {
        ("de", "threads", 4, 2), ("de", "mem_mb", 24000, 22900), ("de", "runtime", 360, 60)}
    message = guard.fit_message(found, parts)
    assert "de: threads 4 > 2 CPUs per node of partition 'short'" in message
    assert "mem_mb 24000 (by attempt 3: retries multiply it) > 22900 MB" in message
    assert "runtime 360 min (by attempt 3: retries multiply it) > the 60 min time limit" in message
    # the settings that fix it, where they go, and the compile flags that write them
    assert "profiles/slurm/config.yaml" in message
    for line in ("    max-threads: 2", "      mem_mb: 22900", "      runtime: 60", "      runtime: local  #"):
        assert re.search(rf"^{re.escape(line)}", message, re.M), line
    assert "bioplan compile ... --max-threads 2 --max-mem-mb 22900 --max-runtime 60" in message
    assert "qc" not in message


def test_cpus_and_memory_must_fit_the_same_node():
    parts = guard.parse_sinfo(SINFO)
    # 64 CPUs fit b1, 200 GB fit b2, but no node has both
    (misfit,) = guard.misfits(_requests(("sort", "big", 64, 200000, 60, 1)), parts)
    assert (misfit.what, misfit.asked, misfit.offered) == ("mem_mb", 200000, 128000)


def test_a_partition_that_does_not_exist_is_named():
    parts = guard.parse_sinfo(SINFO)
    (misfit,) = guard.misfits(_requests(("x", "bigmem", 1, 100, 10, 1)), parts)
    assert misfit.what == "partition"
    message = guard.fit_message([misfit], parts)
    assert "partition bigmem does not exist (sinfo lists: big, short)" in message
    assert "slurm_partition" in message and "--partition" in message


def test_without_partitions_from_sinfo_the_check_is_skipped_with_a_warning(monkeypatch):
    warnings = []
    logger = SimpleNamespace(warning=warnings.append)
    slurm = SimpleNamespace(executor_plugin=SimpleNamespace(name="slurm"))
    monkeypatch.setattr(guard, "_run", lambda cmd: "")  # sinfo answers nothing
    assert guard.start(slurm, logger) is None
    monkeypatch.setattr(guard, "_run", lambda cmd: (_ for _ in ()).throw(FileNotFoundError("sinfo")))
    assert guard.start(slurm, logger) is None
    assert warnings == ["bioplan: sinfo lists no partition; the fit check is skipped.",
                        "bioplan: cannot read the partitions with sinfo (sinfo); the fit check is skipped."]


def test_start_is_a_no_op_without_the_slurm_executor():
    # a local run: no sinfo is called, nothing is checked
    assert guard.start(SimpleNamespace(executor_plugin=None), logger=None) is None
    assert guard.start(SimpleNamespace(executor_plugin=SimpleNamespace(name="local")), logger=None) is None


# ------------------------------------------------------------------ pending watcher

def _job(jobid="7", reason="PartitionConfig", state="PENDING", comment="rule_de", workdir="/wf",
         submit="2026-01-01T10:00:05"):
    return guard.QueuedJob(jobid, "run-1", comment, state, reason, "short", 4, 8000, "2:00:00", 1, submit, workdir)


@pytest.mark.parametrize("reason, running, kind", [
    ("PartitionConfig", False, "PartitionConfig"),
    ("PartitionTimeLimit", True, "PartitionTimeLimit"),
    ("InvalidAccount", True, "InvalidAccount"),
    ("InvalidQOS", True, "InvalidQOS"),
    ("DependencyNeverSatisfied", True, "DependencyNeverSatisfied"),
    ("QOSMaxWallDurationPerJobLimit", True, "per_job"),
    ("AssocMaxCpuPerJobLimit", True, "per_job"),
    ("AssocMaxJobsLimit", False, "job_count"),
    ("AssocMaxJobsLimit", True, None),  # clears when a running job ends
    ("ReqNodeNotAvail, UnavailableNodes:ghost[1-2]", False, "node"),
    ("ReqNodeNotAvail, UnavailableNodes:n1", False, None),  # an existing node that is down may come back
    ("Resources", False, None), ("Priority", False, None), ("BeginTime", False, None),
    ("JobHeldUser", False, None),
])
def test_which_pending_reasons_never_clear(reason, running, kind):
    parts = guard.parse_sinfo(SINFO)
    assert guard.never_clears(_job(reason=reason), parts, anything_running=running) == kind


@pytest.mark.parametrize("reason, everyone, kind", [
    ("AssocGrpJobsLimit", None, None),  # the account's other users not looked at: never called stuck
    ("AssocGrpJobsLimit", "other|normal\n", "job_count"),  # nothing of account lab runs
    ("AssocGrpJobsLimit", "other|normal\nlab|high\n", None),  # a colleague's job in lab: clears when it ends
    ("QOSGrpJobsLimit", "lab|high\n", "job_count"),  # the QOS counts, not the account
    ("QOSMaxJobsPerAccount", "other|normal\n", None),
    ("QOSJobLimit", "", "job_count"),
])
def test_a_job_count_limit_shared_with_other_users_waits_for_their_jobs(reason, everyone, kind):
    """A group limit of the account (AssocGrp...) or QOS (QOSGrp..., per account) counts every user's jobs: the job
    is stuck only when none of the account's (the QOS's) jobs runs, whoever's, as `squeue -o '%a|%q'` of all users
    lists the running ones."""
    job = dataclasses.replace(_job(reason=reason), account="lab", qos="normal")
    running = None if everyone is None else guard.parse_running(everyone)
    assert guard.never_clears(job, guard.parse_sinfo(SINFO), anything_running=False, running=running) == kind
    assert guard.never_clears(job, guard.parse_sinfo(SINFO), anything_running=True, running=set()) is None


def test_watcher_confirms_a_stuck_job_of_this_run_only():
    parts = guard.parse_sinfo(SINFO)
    watcher = guard.Watcher({"de", "qc"}, "/wf", since="2026-01-01T10:00:00")
    others = [_job("1", workdir="/elsewhere"),  # another workflow's run
              _job("2", submit="2026-01-01T09:59:00"),  # an earlier run of this workflow
              _job("3", comment="my own sbatch"),  # not a job of the plugin
              _job("4", reason="Resources")]  # waits for a node: clears by itself
    stuck_job = _job("9", comment="rule_qc_wildcards_sample=a")
    assert watcher.look(others + [stuck_job], parts, now=100.0) == []  # first sight: reasons settle after submission
    assert watcher.next_wait(102.0, last_wait=10.0) == 3.0  # looked at again once settled
    assert watcher.look(others + [stuck_job], parts, now=104.9) == []  # seen twice, not yet settled
    (stuck,) = watcher.look(others + [stuck_job], parts, now=105.0)
    assert (stuck.rule, stuck.job.jobid, stuck.kind) == ("qc", "9", "PartitionConfig")
    # a job that left the stuck state starts over
    assert watcher.look([_job("9", reason="Resources", comment="rule_qc")], parts, now=110.0) == []
    assert watcher.look([stuck_job], parts, now=120.0) == []
    assert watcher.look([stuck_job], parts, now=125.0)

    message = guard.stuck_message([stuck])
    assert "rule qc, SLURM job 9 (partition 'short', 4 CPUs, 8000 MB" in message
    assert "Reason=PartitionConfig" in message and "up to 2 CPUs and 22900 MB each" in message
    assert "To resolve, lower the request" in message and "profiles/slurm/config.yaml" in message


def test_a_job_count_limit_is_named_only_after_a_scheduling_pass_with_nothing_running():
    """A job-count limit clears when one of the user's jobs ends, but the job shows the stale reason until
    SLURM's next scheduling pass (every 60 s with SchedulerParameters=defer): seen over 65 s of looks with
    nothing running, not the 5 s of a reason of the job itself; a job running in between starts it over."""
    parts = guard.parse_sinfo(SINFO)
    watcher = guard.Watcher({"de"}, "/wf", since="2026-01-01T10:00:00")
    limited = _job("5", reason="AssocMaxJobsLimit")
    assert watcher.look([limited], parts, now=0.0) == []
    assert watcher.next_wait(0.0, last_wait=10.0) == 10.0  # no hurry: the usual gap
    assert watcher.look([limited], parts, now=guard.SETTLE_SECONDS) == []
    assert watcher.look([limited, _job("6", state="RUNNING", reason="None")], parts, now=30.0) == []
    for now in (40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0):
        assert watcher.look([limited], parts, now=now) == []
    assert watcher.next_wait(100.0, last_wait=10.0) == 5.0  # looked at again when the pass is over
    (stuck,) = watcher.look([limited], parts, now=105.0)
    assert stuck.kind == "job_count" and stuck.job.jobid == "5"


def test_the_looks_come_soon_then_every_poll_seconds():
    watcher = guard.Watcher({"de"}, "/wf", since="2026-01-01T10:00:00")
    waits, wait = [], guard.FIRST_LOOK_SECONDS
    for _ in range(8):
        waits.append(wait)
        wait = watcher.next_wait(0.0, wait)
    assert waits[:4] == [2.0, 3.0, 4.5, 6.75] and waits[-1] == guard.POLL_SECONDS == max(waits)


def test_a_stuck_group_job_is_named_with_its_rules():
    parts = guard.parse_sinfo(SINFO)
    groups = {"checks_de": ("check_replicates", "check_raw_integer_counts")}
    watcher = guard.Watcher({"de", "check_replicates", "check_raw_integer_counts"}, "/wf",
                            since="2026-01-01T10:00:00", groups=groups)
    job = _job("7", comment="rule_checks_de_check_replicates_check_raw_integer_counts")
    assert watcher.look([job], parts, now=0.0) == []
    (stuck,) = watcher.look([job], parts, now=guard.SETTLE_SECONDS)
    assert stuck.rule == "checks_de" and stuck.members == groups["checks_de"]
    message = guard.stuck_message([stuck])
    assert "group checks_de (rules check_replicates, check_raw_integer_counts), SLURM job 7" in message
    assert "set-resources: check_replicates / check_raw_integer_counts: slurm_partition" in message


def test_rule_groups_of_a_workflow():
    from types import SimpleNamespace as Rule

    rules = [Rule(name="de", group=None), Rule(name="check_b", group="checks_de"),
             Rule(name="check_a", group="checks_de")]
    assert guard.rule_groups(rules) == {"checks_de": ("check_a", "check_b")}


def test_rule_names_from_job_comments():
    rules = {"de", "de_filter", "qc"}
    assert guard.rule_of("rule_de_filter", rules) == "de_filter"
    assert guard.rule_of("rule_de_wildcards_sample=x", rules) == "de"
    assert guard.rule_of("rule_other", rules) is None


# ------------------------------------------------------------------ compile: limits into both targets

@pytest.fixture(scope="module")
def compiled(workspace, knowledge, tmp_path_factory):
    """The bulk DE request for both targets, with all limits, some, and none (one plan: the limits
    reach only the emitted files)."""
    base = tmp_path_factory.mktemp("limits")
    variants = {"all": {"max_threads": 2, "max_mem_mb": 22900, "max_runtime": 600},
                "some": {"max_threads": 8, "max_runtime": 90}, "none": {}}
    out = {}
    with PlanOnce():
        for target, entry in (("snakemake", "Snakefile"), ("nextflow", "main.nf")):
            for name, limits in variants.items():
                out[target, name] = compile_request(REQUEST, example_inputs(workspace, "bulk_de"),
                                                    str(base / target / name / entry), target=target,
                                                    knowledge=knowledge, validate=False, partition=PARTITION,
                                                    account=ACCOUNT, read_sinfo=False, **limits).output_dir
    return out


def test_limits_cap_every_job_in_the_snakemake_profile(compiled):
    text = (compiled["snakemake", "all"] / "profiles" / "slurm" / "config.yaml").read_text()
    profile = yaml.safe_load(text)
    assert profile["max-threads"] == 2
    assert profile["resources"] == {"mem_mb": 22900, "runtime": 600}
    assert profile["set-resource-scopes"] == {"runtime": "local"}
    partial = yaml.safe_load((compiled["snakemake", "some"] / "profiles" / "slurm" / "config.yaml").read_text())
    assert partial["max-threads"] == 8 and partial["resources"] == {"runtime": 90}


def test_without_limits_the_profile_says_what_to_set(compiled):
    text = (compiled["snakemake", "none"] / "profiles" / "slurm" / "config.yaml").read_text()
    profile = yaml.safe_load(text)
    assert not {"max-threads", "resources", "set-resource-scopes"} & set(profile)
    assert re.search(r"^# max-threads: \d+ +# TODO: the CPUs of one node .*--max-threads$", text, re.M)
    assert re.search(r"^# resources: +# TODO: .*--max-mem-mb/--max-runtime$", text, re.M)
    assert re.search(r"^#   mem_mb: \d+ .*sinfo %m", text, re.M)
    assert re.search(r"^#   runtime: \d+ .*sinfo %l", text, re.M)


def test_the_guard_ships_with_the_workflow(compiled):
    wf = compiled["snakemake", "none"]
    assert (wf / "workflow" / "scripts" / "slurm_guard.py").read_text() == GUARD_PATH.read_text()
    common = (wf / "workflow" / "rules" / "common.smk").read_text()
    assert re.search(r"^onstart:\n(    #.*\n)*    slurm_guard\(\)\.start\(workflow, logger\)$", common, re.M)


def test_dry_run_lowers_requests_to_the_caps(compiled, tmp_path):
    """Snakemake itself applies the caps: in a dry run with the profile, a rule asking for more
    than the caps asks for the caps, a rule below them keeps its own request."""
    wf = tmp_path / "wf"
    shutil.copytree(compiled["snakemake", "all"], wf)
    asked = rule_requests(wf)
    big, small = asked["differential_expression"], asked["check_replicates"]
    caps = {"mem_mb": big["mem_mb"] - 1, "runtime": big["runtime"] - 1}
    assert small["mem_mb"] < caps["mem_mb"] and small["runtime"] < caps["runtime"]
    profile = write_test_profile(wf, resources=caps)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--profile", str(profile.relative_to(wf)), "-n"],
                          cwd=wf, capture_output=True, text=True, timeout=300)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text[-3000:]
    for rule, want in (("differential_expression", caps), ("check_replicates", small)):
        # (a check rule is printed inside its group job, indented 4 more spaces)
        resources = re.search(rf"^( *)rule {rule}:\n(?:\1    .*\n)*?\1    resources: (.*)", text, re.M)[2].split(", ")
        assert {f"mem_mb={want['mem_mb']}", f"runtime={want['runtime']}"} <= set(resources), (rule, resources)


def _max_params(pipeline: Path) -> str:
    """The params block of nextflow.config up to max_time: nf-core's max_cpus, max_memory and max_time,
    which the slurm profile's resourceLimits read."""
    params = (pipeline / "nextflow.config").read_text().split("\nparams {\n", 1)[1].split("\n}\n", 1)[0]
    head, tail = params.split("    max_time = ", 1)
    return head + "    max_time = " + tail.split("\n")[0]


def test_limits_become_nextflow_resource_limits(compiled):
    """The limits are nf-core's params (`--max_cpus 2` on the command line overrides them) and the slurm
    profile's resourceLimits read them; not given, placeholders marked TODO."""
    block = re.search(r"\n    slurm \{\n(.*?)\n    \}\n", (compiled["nextflow", "all"] / "nextflow.config").read_text(),
                      re.S).group(1)
    assert ("process.resourceLimits = [cpus: params.max_cpus as int, memory: params.max_memory as MemoryUnit, "
            "time: params.max_time as Duration]") in block
    full = _max_params(compiled["nextflow", "all"])
    assert full.endswith("    max_cpus = 2\n    max_memory = '22900.MB'\n    max_time = '10.h'") and "TODO" not in full
    partial = _max_params(compiled["nextflow", "some"])
    assert partial.endswith("    max_cpus = 8\n    max_memory = '256.GB'\n    max_time = '90.min'")
    assert "// TODO: max_memory: placeholders (not given to bioplan compile)" in partial
    none = _max_params(compiled["nextflow", "none"])
    assert none.endswith("// TODO: max_cpus, max_memory, max_time: placeholders (not given to bioplan compile); or run "
                         "with --max_cpus N --max_memory '64.GB' --max_time '24.h'\n    max_cpus = 32\n"
                         "    max_memory = '256.GB'\n    max_time = '72.h'"), none


def test_nextflow_fit_check_knows_every_process_by_each_of_its_names(compiled):
    """The SLURM fit check lives in subworkflows/local/utils_bioplan_pipeline/main.nf (nf-core's place for such
    functions), main.nf only includes and calls it before anything runs. It lists every process (those the slurm
    profile runs locally too: the executor is read from the run's configuration) by each name Nextflow matches
    withName selectors against (the module's process name, the alias, BIOPLAN:alias) and by the label its module
    declares, and reads the requests from the run's configuration: no request of the compile is frozen in it."""
    for name in ("all", "none"):
        pipeline = compiled["nextflow", name]
        main = (pipeline / "main.nf").read_text()
        assert "include { checkClusterFit } from './subworkflows/local/utils_bioplan_pipeline/main'\n" in main
        assert re.search(r"validateParameters\(\)\n(    //.*\n)?    checkClusterFit\(\)\n", main)
        assert not re.search(r"^def (checkClusterFit|slurmMinutes)|sinfo", main, re.M)
        utils = (pipeline / "subworkflows" / "local" / "utils_bioplan_pipeline" / "main.nf").read_text()
        listed = re.findall(r"^        \['(\w+)', '(\w+)', '([\w:]+)', '(\w+)', (true|false)\],$", utils, re.M)
        workflow = (pipeline / "workflows" / "bioplan.nf").read_text()
        included = re.findall(r"^include \{ (\w+) as (\w+) \} from '\.\./(modules/local/[\w/]+)/main'$", workflow, re.M)
        assert included and len(listed) == len(included)
        want = set()
        for module_name, alias, module in included:
            label = re.search(r"^    label '(\w+)'$", (pipeline / module / "main.nf").read_text(), re.M)[1]
            want.add((alias, module_name, f"BIOPLAN:{alias}", label, "false"))
        assert set(listed) == want, (listed, want)
        assert "workflow.session.config.process" in utils
        assert not re.search(r"\[\s*'\w+', \d+, \d+, \d+\]", utils)  # no (process, cpus, MB, min) of the compile


def test_checks_of_one_step_are_one_cluster_job(compiled):
    """The precondition checks of one step share a Snakemake group (checks_<step>) and the SLURM profile puts up
    to one node's CPUs of them (at most 4) in one job; with one CPU per job (--max-threads 1) each stays its own."""
    from test_slurm import check_groups

    want = {"checks_differential_expression": {"check_raw_integer_counts", "check_replicates"},
            "checks_kegg_enrichment": {"check_entrez_id"}}
    for name, size in (("all", 2), ("some", 4), ("none", 2)):
        wf = compiled["snakemake", name]
        assert check_groups(wf) == want, name
        profile = yaml.safe_load((wf / "profiles" / "slurm" / "config.yaml").read_text())
        assert profile["group-components"] == [f"{g}={size}" for g in sorted(want)], (name, profile)
    # only checks are grouped: every tool step is its own job
    rules = "".join(p.read_text() for p in (compiled["snakemake", "all"] / "workflow" / "rules").glob("*.smk"))
    assert rules.count("    group:\n") == 3
    from bioplan.codegen.snakemake import check_group

    check = SimpleNamespace(kind="check", guards="differential_expression")
    assert check_group(SimpleNamespace(max_threads=None), check) == "checks_differential_expression"
    assert check_group(SimpleNamespace(max_threads=1), check) is None  # a job of one CPU: each check its own job
    assert check_group(SimpleNamespace(max_threads=8), SimpleNamespace(kind="tool", guards=None)) is None


def test_the_watcher_names_a_group_job_after_its_group():
    """A group job's comment is 'rule_<group>_<its rules>': the pending watcher counts it as the run's own."""
    guard = _load_guard()
    groups = frozenset({"checks_de"})
    assert guard.rule_of("rule_checks_de_check_a_check_b", {"de", "check_a", "check_b"}, groups) == "checks_de"
    assert guard.rule_of("rule_checks_de_check_a_check_b", {"de", "check_a", "check_b"}) is None
    assert guard.rule_of("rule_de", {"de"}, groups) == "de"


@pytest.mark.slow
def test_nextflow_configs_with_limits_pass_the_strict_parser(compiled, nf_lint):
    proc = nf_lint(*(compiled["nextflow", name] / "nextflow.config" for name in ("all", "some", "none")))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("flag, value", [("--max-threads", "0"), ("--max-mem-mb", "-5"), ("--max-runtime", "2.5"),
                                         ("--max-threads", "many"), ("--max-mem-mb", "")])
def test_bad_limits_are_refused_with_a_clear_error(flag, value, tmp_path):
    """In process (click's runner): the CLI's exit status and JSON error, as a shell gets them."""
    result = CliRunner().invoke(main, ["compile", "bulk RNA-seq differential expression",
                                       "-o", str(tmp_path / "wf" / "Snakefile"), flag, value, "--json"])
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "invalid_option" and error["details"] == {"option": flag, "value": value}
    assert error["message"].startswith(f"{flag} {value!r}: ") and "positive whole number" in error["message"]
    assert any(h.startswith(f"to resolve, give {flag} as a number") for h in error["hints"])
    assert not (tmp_path / "wf").exists()  # refused before anything is written


def test_limits_are_positive_whole_numbers():
    assert cluster_limits("8", 4000, None) == {"max_threads": 8, "max_mem_mb": 4000, "max_runtime": None}
    for bad in (True, 0, -1, "1e3", "８"):
        with pytest.raises(InvalidOptionError):
            cluster_limits(max_runtime=bad)


def _fake_slurm(bin_dir: Path, sinfo: str) -> Path:
    """SLURM commands that answer `sinfo` with canned output and `sacctmgr` with the account; sbatch
    and the rest record their call and fail. sbatch then ends the run (SIGKILL to its process group: start
    snakemake in a session of its own): a submission is all a test of the start check needs to see, and a
    run left going spent ~80 s on its local version jobs before it gave up."""
    bin_dir.mkdir()
    (bin_dir / "sinfo").write_text(f"#!/bin/sh\ncat <<'EOF'\n{sinfo}EOF\n")
    (bin_dir / "sacctmgr").write_text(f"#!/bin/sh\necho {ACCOUNT}\n")  # the plugin checks the account first
    for command in ("sbatch", "squeue", "sacct", "scontrol", "scancel"):
        stop = "kill -KILL 0\n" if command == "sbatch" else ""
        (bin_dir / command).write_text(f'#!/bin/sh\necho "$0 $*" >> "{bin_dir}/calls"\n{stop}exit 1\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return bin_dir


@pytest.mark.slow
@pytest.mark.parametrize("limits, fits", [({}, False), ({"max_threads": 2, "max_mem_mb": 22900}, True)])
def test_the_start_check_reads_the_real_dag_without_a_cluster(limits, fits, workspace, knowledge, tmp_path):
    """The fit check inside `snakemake --profile profiles/slurm`, with sinfo answering for one
    2-CPU, 22900 MB node: without limits the issue's DESeq2 step (4 threads, 8000 MB x 3
    attempts) stops the run before any sbatch; with the limits the run goes on to submit."""
    wf = tmp_path / "wf"
    compile_request(example_request("bulk_de"), example_inputs(workspace, "bulk_de"), str(wf / "Snakefile"),
                    knowledge=knowledge, validate=False, partition=PARTITION, account=ACCOUNT, read_sinfo=False,
                    **limits)
    fake = _fake_slurm(tmp_path / "bin", "debug*|vm|2|22900|infinite|up\n")
    profile = write_test_profile(wf, retries=2 if not fits else 0)
    env = {"PATH": f"{fake}:{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--profile", str(profile.relative_to(wf))], cwd=wf,
                          env=env, capture_output=True, text=True, timeout=300, start_new_session=True)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text[-3000:]
    calls = (fake / "calls").read_text() if (fake / "calls").exists() else ""
    if fits:
        assert "ask for more than their SLURM partition offers" not in text, text[-3000:]
        assert f"{fake}/sbatch " in calls, text[-3000:]  # past the check: submitting
    else:
        assert "differential_expression: threads 4 > 2 CPUs per node of partition 'debug'; mem_mb 24000 (by " \
               "attempt 3: retries multiply it) > 22900 MB" in text, text[-3000:]
        assert "bioplan compile ... --max-threads 2 --max-mem-mb 22900`" in text
        assert "sbatch" not in calls


# ------------------------------------------------------------------ on the local SLURM cluster

def _compile_for_cluster(workspace, knowledge, workdir: Path, request: str = REQUEST, **limits) -> Path:
    """Compiled as on a machine without SLURM (no sinfo at compile: the run's own checks are tested)."""
    compile_request(request, example_inputs(workspace, "bulk_de"), str(workdir / "Snakefile"), knowledge=knowledge,
                    partition=PARTITION, account=ACCOUNT, read_sinfo=False, **limits)
    return workdir


def _run_jobs(run_id: str, since: str) -> list[dict[str, str]]:
    return sacct_jobs(run_id, since) if run_id else []


@pytest.fixture(scope="module")
def guard_runs(slurm_node, workspace, knowledge, tmp_path_factory):
    """The two runs of the tests below, started at once (each waits on Snakemake's start and on SLURM, not on
    the other): {"over_node": (workdir, run), "pending": (workdir, run)}."""
    base = tmp_path_factory.mktemp("guard")
    # the run: the bulk DE example compiled without limits
    over = _compile_for_cluster(workspace, knowledge, base / "over" / "wf", request=example_request("bulk_de"))
    # with the limits given the fit check passes; a rule then asks for 4 tasks (4 CPUs on a 2-CPU node)
    pending = _compile_for_cluster(workspace, knowledge, base / "pending" / "wf", max_threads=slurm_node["cpus"],
                                   max_mem_mb=slurm_node["mem_mb"])
    init = {"slurm-init-seconds-before-status-checks": INIT_SECONDS}
    tasks = {"set-resources": {"check_replicates": {"tasks": 2 * slurm_node["cpus"]}}}
    runs = {"over_node": (over, SnakemakeRun(over, write_test_profile(over, **init), base / "over" / "run.log")),
            "pending": (pending, SnakemakeRun(pending, write_test_profile(pending, **init, **tasks),
                                              base / "pending" / "run.log"))}
    yield runs
    stop_runs([run for _, run in runs.values()])  # a test that failed early leaves no run behind


@pytest.mark.slurm
def test_a_rule_asking_more_cpus_than_the_node_stops_the_run_at_start(guard_runs, slurm_node):
    """The issue's run: the bulk DE example compiled without limits, whose DESeq2 step asks for
    4 CPUs on this 2-CPU node (SLURM: PENDING, Reason=PartitionConfig, forever). Nothing is
    submitted; the run stops at once naming the rule and the setting that fixes it."""
    wf, run = guard_runs["over_node"]
    threads = rule_requests(wf)["differential_expression"]["threads"]
    assert threads > slurm_node["cpus"], "the test needs a rule asking more CPUs than the node has"
    code, text, run_id = run.finish()
    assert code != 0 and run.seconds < 60, text[-3000:]
    assert re.search(rf"differential_expression: threads {threads} > {slurm_node['cpus']} CPUs per node of "
                     rf"partition '{PARTITION}'", text), text[-3000:]
    assert f"    max-threads: {slurm_node['cpus']}\n" in text
    assert "submitted with SLURM jobid" not in text
    # nothing reached the queue: slurmctld lists every job of the last MinJobAge (300 s) in squeue, ended or not,
    # the moment sbatch returns; the accounting database holds none either (one look: sacct_jobs waits for rows)
    queued = subprocess.run(["squeue", "-h", "--states=all", "--name", run_id, "-o", "%i"], capture_output=True,
                            text=True, timeout=60)
    assert queued.returncode == 0 and queued.stdout.split() == [], queued
    accounted = subprocess.run(["sacct", "-X", "-P", "-n", "-S", run.since, "--name", run_id, "-o", "JobID"],
                               capture_output=True, text=True, timeout=60)
    assert accounted.returncode == 0 and accounted.stdout.split() == [], accounted


@pytest.mark.slurm
def test_a_job_pending_forever_stops_the_run_with_the_reason(guard_runs, slurm_node):
    """With the limits given the fit check passes; a rule then asks for 4 tasks (4 CPUs on a
    2-CPU node, which the fit check does not see): SLURM keeps it PENDING with
    Reason=PartitionConfig. The run ends within a minute, naming rule, job id and reason, and
    leaves nothing in the queue."""
    wf, run = guard_runs["pending"]
    code, text, run_id = run.finish()
    assert code != 0, text[-3000:]
    assert run.seconds < 60, f"the run took {run.seconds:.0f} s:\n{text[-3000:]}"
    # check_replicates runs in its step's group job with the other check (group: checks_<step>)
    jobid = re.search(r"group checks_differential_expression \(rules check_raw_integer_counts, check_replicates\), "
                      r"SLURM job (\d+) \(partition 'debug'", text)
    assert jobid, text[-3000:]
    assert f"submitted with SLURM jobid {jobid[1]} " in text
    assert "PENDING with Reason=PartitionConfig" in text and "To resolve, lower the request" in text
    jobs = {j["JobID"]: j for j in _run_jobs(run_id, run.since)}
    assert jobs[jobid[1]]["State"].startswith("CANCELLED"), jobs
    queued = subprocess.run(["squeue", "-h", "--name", run_id, "-o", "%i"], capture_output=True, text=True,
                            timeout=60).stdout.split()
    assert queued == [], queued
    assert not (wf / "results" / "differential_expression").exists()


# ------------------------------------------------------------------ compile: the partition as sinfo reports it

# `sinfo -h -N -o '%P|%N|%c|%m|%l|%a'` of a university cluster, as its login node answers: a default
# partition of two node generations, short and debug partitions over the same nodes with short time
# limits, big-memory nodes of two sizes, GPU nodes (their GPUs are GRES, not in these columns), a
# partition down for maintenance, and a whole-node line sinfo sums up with '+'
CAMPUS_SINFO = """\
cpu*|c001|48|190000|7-00:00:00|up
cpu*|c002|48|190000|7-00:00:00|up
cpu*|c101|64|250000|7-00:00:00|up
cpu*|c102|64|250000|7-00:00:00|up
short|c001|48|190000|2:00:00|up
short|c002|48|190000|2:00:00|up
debug|c003|48|190000|30:00|up
bigmem|m01|96|1540000|14-00:00:00|up
bigmem|m02|128|770000|14-00:00:00|up
gpu|g01|32|380000|2-00:00:00|up
gpu|g02|64|500000+|2-00:00:00|up
maint|c050|48|190000|infinite|down
"""


def _fake_sinfo(bin_dir: Path, text: str) -> Path:
    """`sinfo` answering with the recorded lines: of one partition (-p P or --partition=P), else all."""
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "sinfo.txt").write_text(text)
    script = bin_dir / "sinfo"
    script.write_text('#!/bin/sh\npart=""\nwhile [ $# -gt 0 ]; do\n  case "$1" in -p) part=$2 ;; '
                      '--partition=*) part=${1#--partition=} ;; esac\n  shift\ndone\n'
                      f'[ -n "$part" ] || exec cat "{bin_dir}/sinfo.txt"\n'
                      f'grep -E "^$part\\*?\\|" "{bin_dir}/sinfo.txt" || true\n')
    script.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("partition, offered", [
    ("cpu", {"max_threads": 64, "max_mem_mb": 250000, "max_runtime": 7 * 1440}),  # the default, its newer nodes
    ("short", {"max_threads": 48, "max_mem_mb": 190000, "max_runtime": 120}),
    ("debug", {"max_threads": 48, "max_mem_mb": 190000, "max_runtime": 30}),
    ("bigmem", {"max_threads": 128, "max_mem_mb": 1540000, "max_runtime": 14 * 1440}),
    ("gpu", {"max_threads": 64, "max_mem_mb": 500000, "max_runtime": 2 * 1440}),
    ("maint", {"max_threads": 48, "max_mem_mb": 190000, "max_runtime": None}),
    ("nosuch", None),
])
def test_partition_limits_from_a_recorded_sinfo(partition, offered):
    from bioplan.codegen.cluster_fit import partition_limits

    assert partition_limits(partition, CAMPUS_SINFO) == offered


def test_heterogeneous_nodes_cpus_and_memory_must_come_from_one_node():
    """bigmem has a 96-CPU node with 1.5 TB and a 128-CPU node with 770 GB: 96 CPUs with 1.5 TB fit,
    128 CPUs with 1 TB fit no node (the roomiest node with 128 CPUs is named); the GPU nodes are
    ordinary nodes here; the debug partition's 30 minutes stop a 2 h job on nodes it would fit."""
    parts = guard.parse_sinfo(CAMPUS_SINFO)
    assert guard.misfits(_requests(("star_index", "bigmem", 96, 1500000, 600, 1),
                                   ("star_align", "gpu", 64, 450000, 60, 1)), parts) == []
    found = guard.misfits(_requests(("assembly", "bigmem", 128, 1000000, 600, 1), ("sort", "gpu", 65, 1000, 60, 1),
                                    ("de", "debug", 4, 8000, 120, 1), ("qc", None, 64, 250000, 600, 1)), parts)
    assert {(m.rule, m.partition, m.what, m.asked, m.offered) for m in found} == {
        ("assembly", "bigmem", "mem_mb", 1000000, 770000), ("sort", "gpu", "threads", 65, 64),
        ("de", "debug", "runtime", 120, 30)}
    message = guard.fit_message(found, parts)
    assert "assembly: mem_mb 1000000 > 770000 MB per node of partition 'bigmem'" in message
    assert "de: runtime 120 min > the 30 min time limit of partition 'debug'" in message


def test_given_limits_above_the_partition_are_refused_and_missing_ones_taken_from_it():
    from bioplan.codegen.cluster_fit import fit_to_partition, partition_limits

    offered = partition_limits("short", CAMPUS_SINFO)
    limits, note = fit_to_partition({"max_threads": 16, "max_mem_mb": None, "max_runtime": None}, "short", offered)
    assert limits == {"max_threads": 16, "max_mem_mb": 190000, "max_runtime": 120}
    assert note == ("partition 'short' per sinfo: 48 CPUs and 190000 MB on its largest node, a 120 min time limit; "
                    "taken as --max-mem-mb 190000, --max-runtime 120")
    for key, flag, value in (("max_threads", "--max-threads", 64), ("max_mem_mb", "--max-mem-mb", 250000),
                             ("max_runtime", "--max-runtime", 2880)):
        with pytest.raises(InvalidOptionError) as err:
            fit_to_partition({key: value}, "short", offered)
        assert err.value.details["option"] == flag and err.value.details["offered"] == str(offered[key])
        assert err.value.message.startswith(f"{flag} {value}: partition 'short' offers at most {offered[key]} ")
        assert "PENDING forever" in err.value.message
        assert any(h.startswith(f"to resolve, give {flag} {offered[key]} or less") for h in err.value.hints)


# compiled against the fake cluster: the bulk DE example (DESeq2: 4 threads, 8000 MB), one plan
@pytest.fixture(scope="module")
def campus(tmp_path_factory):
    return _fake_sinfo(tmp_path_factory.mktemp("campus") / "bin", CAMPUS_SINFO)


def _compile_on(campus, monkeypatch, workspace, knowledge, out: Path, **kw):
    monkeypatch.setenv("PATH", f"{campus}{os.pathsep}{os.environ['PATH']}")
    return compile_request(example_request("bulk_de"), example_inputs(workspace, "bulk_de"), str(out / "Snakefile"),
                           knowledge=knowledge, validate=False, account=ACCOUNT, **kw)


def test_compile_on_a_login_node_takes_the_partitions_limits(campus, monkeypatch, workspace, knowledge, tmp_path):
    with PlanOnce():
        res = _compile_on(campus, monkeypatch, workspace, knowledge, tmp_path / "wf", partition="short")
        offline = _compile_on(campus, monkeypatch, workspace, knowledge, tmp_path / "off", partition="short",
                              read_sinfo=False)
    profile = yaml.safe_load((res.output_dir / "profiles" / "slurm" / "config.yaml").read_text())
    assert profile["max-threads"] == 48 and profile["resources"] == {"mem_mb": 190000, "runtime": 120}
    assert any(n.startswith("partition 'short' per sinfo: 48 CPUs") for n in res.notes), res.notes
    assert "max-threads" not in yaml.safe_load((offline.output_dir / "profiles" / "slurm" / "config.yaml").read_text())
    assert not any("sinfo" in n for n in offline.notes)


def test_a_step_needing_more_memory_than_any_node_is_refused_at_compile(campus, monkeypatch, workspace, knowledge,
                                                                        tmp_path):
    """DESeq2 asks 8000 MB: with --max-mem-mb 6000 (or a partition whose nodes have less) capping it
    would only get it killed for memory; refused, naming the step, its need and the node's."""
    with PlanOnce(), pytest.raises(ClusterTooSmallError) as err:
        _compile_on(campus, monkeypatch, workspace, knowledge, tmp_path / "wf", max_mem_mb=6000)
    assert err.value.code == "cluster_too_small"
    assert ("differential_expression (deseq2; Nextflow process DIFFERENTIAL_EXPRESSION) needs 8000 MB"
            in err.value.message)
    assert "one node offers (6000 MB, --max-mem-mb)" in err.value.message
    assert err.value.details["steps"] == [{"step": "differential_expression", "process": "DIFFERENTIAL_EXPRESSION",
                                           "tool": "deseq2", "mem_mb": 8000, "threads": 4, "offered_mem_mb": 6000}]
    assert err.value.hints[0].startswith("to resolve, name a partition with bigger nodes")
    assert not (tmp_path / "wf").exists()


def test_cluster_errors_through_the_cli(campus, monkeypatch, tmp_path):
    """As a shell gets them: exit status 2 and the JSON error; --no-sinfo leaves the partition unread."""
    monkeypatch.setenv("PATH", f"{campus}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "empty.csv").write_text("")
    args = ["compile", "bulk RNA-seq differential expression", "-i", str(tmp_path / "empty.csv"), "-o",
            str(tmp_path / "wf"), "--partition", "debug", "--max-runtime", "60", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "invalid_option" and error["details"]["offered"] == "30", error
    # with --no-sinfo the limit stands: the next problem is the empty input file
    result = CliRunner().invoke(main, [*args, "--no-sinfo"])
    assert json.loads(result.stdout)["error"]["code"] == "unreadable_input", result.output


@pytest.mark.slurm
def test_compile_reads_the_local_clusters_partition(slurm_node, workspace, knowledge, tmp_path):
    """The real sinfo of the local cluster: the limits not given are its node's."""
    res = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(tmp_path / "wf" / "Snakefile"),
                          knowledge=knowledge, validate=False, partition=PARTITION, account=ACCOUNT)
    profile = yaml.safe_load((res.output_dir / "profiles" / "slurm" / "config.yaml").read_text())
    assert profile["max-threads"] == slurm_node["cpus"]
    assert profile["resources"]["mem_mb"] == slurm_node["mem_mb"]
    with pytest.raises(InvalidOptionError, match=r"--max-threads \d+: partition 'debug' offers at most"):
        compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(tmp_path / "wf2" / "Snakefile"),
                        knowledge=knowledge, validate=False, partition=PARTITION, max_threads=slurm_node["cpus"] + 1)
    # a partition the cluster does not have (the real sinfo): refused at compile, the real one named
    with pytest.raises(InvalidOptionError, match=rf"--partition 'no_such_partition': .*sinfo lists: {PARTITION} "):
        compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(tmp_path / "wf3" / "Snakefile"),
                        knowledge=knowledge, validate=False, partition="no_such_partition")


# ------------------------------------------------------------------ memory from the genome's size

def _rnaseq_requests(workspace, knowledge, out: Path, with_genome: bool, target="snakemake", **kw):
    inputs = [i for i in example_inputs(workspace, "rnaseq_fastq") if with_genome or not i.endswith("genome.fa")]
    entry = "Snakefile" if target == "snakemake" else "main.nf"
    return compile_request(example_request("rnaseq_fastq"), inputs, str(out / entry), target=target,
                           knowledge=knowledge, validate=False, **kw)


def test_star_memory_follows_the_genome_of_the_organisms_build(workspace, knowledge, tmp_path):
    """STAR holds its whole index in memory, whatever the reads: for the mouse request with the genome
    left to the config (GRCm39, 2,728 Mb in references.yaml) the index build asks 4000 + 10000 MB per
    GB and the alignment 4000 + 9000 MB per GB (+ 1000 per GB of reads), in both targets; with the
    example's small genome FASTA given, its own size counts. On a 16 GB node the mouse index and
    alignment are refused at compile, named."""
    with PlanOnce():
        mouse = _rnaseq_requests(workspace, knowledge, tmp_path / "mouse", with_genome=False)
        small = _rnaseq_requests(workspace, knowledge, tmp_path / "small", with_genome=True)
        nf = _rnaseq_requests(workspace, knowledge, tmp_path / "nf", with_genome=False, target="nextflow")
        with pytest.raises(ClusterTooSmallError) as err:
            _rnaseq_requests(workspace, knowledge, tmp_path / "node16", with_genome=False, max_mem_mb=16000)
    asked = rule_requests(mouse.output_dir)
    assert mouse.workflow.genome_build == "GRCm39"
    assert asked["genome_indexing"]["mem_mb"] == 4000 + round(10000 * 2.728)
    # + 1000 MB per GB of one sample's reads (through the trimming step), rounded up to 1 GB
    assert asked["read_alignment"]["mem_mb"] == 4000 + 1000 + round(9000 * 2.728)
    # and their time limits likewise (runtime_per_gb_genome), so a bigger job is not killed at the old limit
    assert asked["genome_indexing"]["runtime"] == 180 + round(20 * 2.728)
    assert asked["read_alignment"]["runtime"] == 240 + 10 + round(5 * 2.728)
    from test_slurm import nextflow_step_resources

    assert {k: (v["mem_mb"], v["runtime"]) for k, v in nextflow_step_resources(nf.output_dir).items()
            if k in ("genome_indexing", "read_alignment")} == {k: (asked[k]["mem_mb"], asked[k]["runtime"])
                                                               for k in ("genome_indexing", "read_alignment")}
    genome_gb = (workspace / "data" / "rnaseq_fastq" / "genome.fa").stat().st_size / 1e9
    assert rule_requests(small.output_dir)["genome_indexing"]["mem_mb"] == 4000 + round(10000 * genome_gb)
    assert {s["step"] for s in err.value.details["steps"]} == {"genome_indexing", "read_alignment"}
    assert ("genome_indexing (star_genome_generate; Nextflow process GENOME_INDEXING) needs 31280 MB"
            in err.value.message)


def test_a_per_sample_job_counts_its_own_samples_input(workspace, knowledge, tmp_path):
    """Memory and time that grow with the input: a per-sample job (one SLURM job per sample) reads one sample's
    files, not every sample's. Four samples of 1.5 GB FASTQ pairs (sparse files after real records):
    STAR asks 4000 + 1000 MB per GB of one pair (3 GB) + 9000 per GB of the small genome, not 12 GB
    of reads."""
    data = workspace / "data" / "rnaseq_fastq"
    inputs = []
    for src in example_inputs(workspace, "rnaseq_fastq"):
        if src.endswith(".fastq.gz"):  # gzip kept: the mate check and STAR refuse plain FASTQ at compile time
            dest = tmp_path / Path(src).name
            dest.write_bytes(Path(src).read_bytes())
            with dest.open("r+b") as handle:
                handle.truncate(3 << 29)  # 1.5 GB, sparse
            src = str(dest)
        inputs.append(src)
    with PlanOnce():
        res = compile_request(example_request("rnaseq_fastq"), inputs, str(tmp_path / "wf" / "Snakefile"),
                              knowledge=knowledge, validate=False)
    genome_gb = (data / "genome.fa").stat().st_size / 1e9
    star = next(s for s in res.workflow.steps if s.tool == "star")
    assert star.scope == "sample"
    assert star.mem_mb == 4000 + 1000 * 3 + round(9000 * genome_gb)
    # and time: 240 min + 10 per GB of the pair (the trimming before it: 60 + 5 per GB)
    assert star.runtime == 240 + 10 * 3
    assert next(s for s in res.workflow.steps if s.tool == "fastp").runtime == 60 + 5 * 3


def test_the_partition_never_reaches_sinfo(monkeypatch, tmp_path):
    """A partition named like an option (`-o/path`, refused at emit by the escaping checks) is never an
    argument of sinfo: compile reads every partition (hidden ones too) and looks the name up itself."""
    from bioplan.codegen.cluster_fit import sinfo_lines

    spy = tmp_path / "bin"
    spy.mkdir()
    (spy / "sinfo").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{spy}/argv"\n')
    (spy / "sinfo").chmod(0o755)
    monkeypatch.setenv("PATH", f"{spy}{os.pathsep}{os.environ['PATH']}")
    assert sinfo_lines() == ("", None)
    assert (spy / "argv").read_text().splitlines() == ["--all", "-h", "-N", "-o", guard.SINFO_FORMAT]


def test_a_partition_sinfo_does_not_list_is_refused_at_compile(campus, monkeypatch, workspace, knowledge, tmp_path):
    """On a login node, --partition naming no partition of the cluster (a typo) is refused before any
    work, naming the partitions there are; --no-sinfo compiles it (for another cluster); a machine
    whose sinfo lists nothing keeps the note."""
    from bioplan.codegen.cluster_fit import unknown_partition

    with pytest.raises(InvalidOptionError) as err:
        _compile_on(campus, monkeypatch, workspace, knowledge, tmp_path / "wf", partition="shrot")
    assert err.value.code == "invalid_option"
    assert err.value.message.startswith("--partition 'shrot': the SLURM cluster of this machine has no such partition "
                                        "(sinfo lists: bigmem, cpu (default), debug, gpu, maint, short)")
    assert err.value.details == {"option": "--partition", "value": "shrot",
                                 "partitions": ["bigmem", "cpu", "debug", "gpu", "maint", "short"]}
    assert err.value.hints[0].startswith("to resolve, give one of its partitions with --partition")
    assert any("--no-sinfo" in h for h in err.value.hints)
    assert not (tmp_path / "wf").exists()
    with PlanOnce():
        other = _compile_on(campus, monkeypatch, workspace, knowledge, tmp_path / "other", partition="shrot",
                            read_sinfo=False)
    assert yaml.safe_load((other.output_dir / "profiles" / "slurm" / "config.yaml").read_text())[
        "default-resources"]["slurm_partition"] == '"shrot"'
    assert unknown_partition("shrot", "") is None
