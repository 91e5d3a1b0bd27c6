"""SLURM guard of a bioplan workflow: no job SLURM can never start, and no silent wait.

`rules/common.smk` calls `start(workflow)` from `onstart:` when Snakemake runs with the SLURM
executor (`snakemake --profile profiles/slurm`); locally it does nothing. Two guards the SLURM
executor plugin does not have (it submits whatever a rule asks for, and waits as long as SLURM
keeps a job PENDING, whatever the reason):

1. Fit check, before the first submission: every job's request (threads, mem_mb, runtime), at
   every attempt the profile's `retries` allows and after the profile's caps (`max-threads`,
   `resources:`), is compared with the nodes of the partition it goes to (`sinfo`). If a rule
   cannot fit, the run stops with one message listing each such rule and the setting that fixes
   it.
2. Pending watcher, while the run lasts: a job of this run PENDING for a reason that will not
   clear by itself (PartitionConfig, an invalid account or QOS, a per-job limit of the account
   or QOS, ReqNodeNotAvail for a node that does not exist, a job-count limit with no job
   running that counts against it: the user's, or anyone's in the account or QOS of a limit they
   share, ...) stops the run: its jobs are cancelled and the message names the rule, the job
   id, SLURM's reason and what to change. The first look comes 2 s after the start, then ever
   less often, up to every 10 s; a job seen stuck is named when it still is 5 s later (a
   job-count limit: 65 s, a scheduling pass of SLURM's).

Only the standard library; the parsing and the verdicts are pure functions, tested on canned
`sinfo`/`squeue` output (bioplan's tests/test_cluster_fit.py).
"""

from __future__ import annotations

import getpass
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field

PROFILE = "profiles/slurm/config.yaml"
# Looks at the queue: the first soon after the start, the gap then growing by half up to POLL_SECONDS (SLURM
# sets a job's reason when it takes the job, so one look finds a stuck job); a job seen stuck is looked at again
# once it has been so for its settling time, and named only if it still is then, on every look in between.
FIRST_LOOK_SECONDS = 2.0
POLL_SECONDS = 10.0
SETTLE_SECONDS = 5.0  # a reason of the job itself (partition, account, QOS, node list): set at submission
# a job-count limit with none of the user's jobs running: SLURM starts the job at its next scheduling pass, which
# runs when a job ends or, with SchedulerParameters=defer, every sched_interval (60 s by default): a job about to
# start shows the stale reason until then
JOB_COUNT_SETTLE_SECONDS = 65.0
# `sinfo -N`: one line per node and partition
SINFO_FORMAT = "%P|%N|%c|%m|%l|%a"
# `squeue`: the fields the watcher reads; the working directory last, as it may hold '|'
SQUEUE_FIELDS = ("jobid", "name", "comment", "state", "reason", "partition", "cpus", "min_memory", "time_limit",
                 "nodes", "submit_time", "account", "qos", "workdir")
SQUEUE_FORMAT = "%i|%j|%k|%T|%r|%P|%C|%m|%l|%D|%V|%a|%q|%Z"
# `squeue` of every user's running jobs: their account and QOS (a limit they share with this run's jobs)
RUNNING_FORMAT = "%a|%q"


# ----------------------------------------------------------------------------- parsing

def slurm_minutes(text: str) -> int | None:
    """A SLURM time limit in whole minutes (None: no limit). Formats: minutes, minutes:seconds,
    hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds."""
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "none", ""):
        return None
    days, dash, rest = text.rpartition("-") if "-" in text else ("0", "", text)
    parts = [int(p) for p in rest.split(":")]
    if dash:  # days-hours[:minutes[:seconds]]
        hours, minutes, seconds = (parts + [0, 0])[:3]
    elif len(parts) == 3:
        hours, minutes, seconds = parts
    elif len(parts) == 2:
        hours, minutes, seconds = 0, parts[0], parts[1]
    else:
        hours, minutes, seconds = 0, parts[0], 0
    del seconds  # a limit of 59:30 allows 59 whole minutes
    return int(days) * 1440 + hours * 60 + minutes


def mem_mb(text: str) -> int:
    """squeue's MIN_MEMORY ('500M', '8G', '2T', '1000') in MB."""
    value, unit = re.fullmatch(r"([\d.]+)\s*([KMGT]?)B?", text.strip(), re.I).groups()
    return round(float(value) * {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 ** 2}[unit.upper()])


@dataclass(frozen=True)
class Node:
    name: str
    cpus: int
    mem_mb: int


@dataclass(frozen=True)
class Partition:
    name: str
    nodes: tuple[Node, ...]
    max_minutes: int | None  # None: no time limit
    default: bool = False
    up: bool = True

    @property
    def max_cpus(self) -> int:
        return max(n.cpus for n in self.nodes)

    @property
    def max_mem_mb(self) -> int:
        return max(n.mem_mb for n in self.nodes)


def parse_sinfo(text: str) -> dict[str, Partition]:
    """Partitions from `sinfo -h -N -o '%P|%N|%c|%m|%l|%a'` (the default partition is marked '*')."""
    rows: dict[str, dict] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, node, cpus, mem, limit, avail = (f.strip() for f in line.split("|"))
        default = name.endswith("*")
        name = name.rstrip("*")
        row = rows.setdefault(name, {"nodes": {}, "limit": slurm_minutes(limit), "default": default,
                                     "up": avail == "up"})
        # '%c' and '%m' may carry a '+' when a line sums up nodes of different sizes
        row["nodes"][node] = Node(node, int(cpus.rstrip("+")), int(mem.rstrip("+")))
    return {name: Partition(name, tuple(sorted(r["nodes"].values(), key=lambda n: n.name)), r["limit"],
                            r["default"], r["up"])
            for name, r in sorted(rows.items())}


@dataclass(frozen=True)
class QueuedJob:
    jobid: str
    name: str
    comment: str
    state: str
    reason: str
    partition: str
    cpus: int
    mem_mb: int
    time_limit: str
    nodes: int
    submit_time: str
    workdir: str
    account: str = ""
    qos: str = ""


def parse_squeue(text: str) -> list[QueuedJob]:
    """Jobs from `squeue -h -o '%i|%j|%k|%T|%r|%P|%C|%m|%l|%D|%V|%a|%q|%Z'`."""
    jobs = []
    for line in text.splitlines():
        if not line.strip():
            continue
        f = dict(zip(SQUEUE_FIELDS, line.split("|", len(SQUEUE_FIELDS) - 1)))
        jobs.append(QueuedJob(jobid=f["jobid"].strip(), name=f["name"].strip(), comment=f["comment"].strip(),
                              state=f["state"].strip(), reason=f["reason"].strip(), partition=f["partition"].strip(),
                              cpus=int(f["cpus"]), mem_mb=mem_mb(f["min_memory"]), time_limit=f["time_limit"].strip(),
                              nodes=int(f["nodes"]), submit_time=f["submit_time"].strip(),
                              workdir=f["workdir"].rstrip("\n"), account=f["account"].strip(), qos=f["qos"].strip()))
    return jobs


def parse_running(text: str) -> set[tuple[str, str]]:
    """("account", name) and ("qos", name) of every running job, from `squeue -h -o '%a|%q'` (all users)."""
    found = set()
    for line in text.splitlines():
        if line.strip():
            account, _, qos = line.strip().partition("|")
            found |= {("account", account), ("qos", qos)}
    return found


def expand_hostlist(text: str) -> list[str]:
    """'node[1-3,5],gpu7' -> ['node1', 'node2', 'node3', 'node5', 'gpu7'] (SLURM host list syntax)."""
    out = []
    for head, ranges in re.findall(r"([^,\[\]]+)(?:\[([^\]]*)\])?", text):
        if not ranges:
            out.append(head)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            for i in range(int(lo), int(hi or lo) + 1):
                out.append(f"{head}{str(i).zfill(len(lo))}")
    return out


# ----------------------------------------------------------------------------- fit check

@dataclass(frozen=True)
class Request:
    """What one job asks for at one attempt."""

    rule: str
    partition: str | None  # None: the cluster's default partition
    threads: int
    mem_mb: int | None
    runtime: int | None  # minutes
    attempt: int = 1


@dataclass(frozen=True)
class Misfit:
    rule: str
    partition: str
    what: str  # threads, mem_mb, runtime or partition
    asked: int | str
    offered: int | None
    attempts: int = 1  # the request is the most over this many attempts


def largest_requests(requests: list[Request]) -> list[Request]:
    """One request per rule and partition: the most any of its jobs asks for, at any attempt."""
    merged: dict[tuple[str, str | None], Request] = {}
    for r in requests:
        m = merged.get((r.rule, r.partition))
        merged[r.rule, r.partition] = r if m is None else Request(
            r.rule, r.partition, max(r.threads, m.threads), _max(r.mem_mb, m.mem_mb), _max(r.runtime, m.runtime),
            max(r.attempt, m.attempt))
    return [merged[k] for k in sorted(merged, key=lambda k: (k[0], k[1] or ""))]


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def default_partition(partitions: dict[str, Partition]) -> str | None:
    return next((p.name for p in partitions.values() if p.default), None)


def misfits(requests: list[Request], partitions: dict[str, Partition]) -> list[Misfit]:
    """What no node of the target partition can give. CPUs and memory must fit one node together."""
    out = []
    for r in largest_requests(requests):
        name = r.partition or default_partition(partitions)
        part = partitions.get(name) if name else None
        if part is None:
            out.append(Misfit(r.rule, name or "", "partition", name or "(none: the cluster has no default)", None))
            continue
        mem = r.mem_mb or 0
        if not any(n.cpus >= r.threads and n.mem_mb >= mem for n in part.nodes):
            if r.threads > part.max_cpus:
                out.append(Misfit(r.rule, name, "threads", r.threads, part.max_cpus, r.attempt))
            if mem > part.max_mem_mb:
                out.append(Misfit(r.rule, name, "mem_mb", mem, part.max_mem_mb, r.attempt))
            if r.threads <= part.max_cpus and mem <= part.max_mem_mb:  # each fits a node, not both the same
                roomiest = max(n.mem_mb for n in part.nodes if n.cpus >= r.threads)
                out.append(Misfit(r.rule, name, "mem_mb", mem, roomiest, r.attempt))
        if r.runtime is not None and part.max_minutes is not None and r.runtime > part.max_minutes:
            out.append(Misfit(r.rule, name, "runtime", r.runtime, part.max_minutes, r.attempt))
    return out


def _by(m: Misfit) -> str:
    return f" (by attempt {m.attempts}: retries multiply it)" if m.attempts > 1 else ""


def fit_message(found: list[Misfit], partitions: dict[str, Partition]) -> str:
    """One message: each rule that cannot fit, and the settings that fix them all."""
    rules = sorted({m.rule for m in found})
    lines = [f"{len(rules)} rule(s) ask for more than their SLURM partition offers (retries included); SLURM "
             "would keep such a job PENDING forever, so nothing was submitted:"]
    for rule in rules:
        parts = []
        for m in (m for m in found if m.rule == rule):
            if m.what == "partition":
                parts.append(f"partition {m.asked} does not exist (sinfo lists: {', '.join(partitions) or 'none'})")
            elif m.what == "threads":
                parts.append(f"threads {m.asked} > {m.offered} CPUs per node of partition {m.partition!r}")
            elif m.what == "mem_mb":
                parts.append(f"mem_mb {m.asked}{_by(m)} > {m.offered} MB per node of partition {m.partition!r}")
            else:
                parts.append(f"runtime {m.asked} min{_by(m)} > the {m.offered} min time limit of partition "
                             f"{m.partition!r}")
        lines.append(f"  {rule}: " + "; ".join(parts))
    caps = {what: min(m.offered for m in found if m.what == what)
            for what in ("threads", "mem_mb", "runtime") if any(m.what == what for m in found)}
    lines.append("To resolve:")
    if caps:
        lines.append(f"  cap every job at what one node offers, in {PROFILE} (each attempt's request is lowered "
                     "to the cap):")
        if "threads" in caps:
            lines.append(f"    max-threads: {caps['threads']}")
        if "mem_mb" in caps or "runtime" in caps:
            lines.append("    resources:")
            lines += [f"      {what}: {caps[what]}" for what in ("mem_mb", "runtime") if what in caps]
        if "runtime" in caps:
            lines += ["    set-resource-scopes:", "      runtime: local  # a cap per job, not a sum over running jobs"]
        flags = " ".join(f"--{flag} {caps[what]}" for what, flag in (
            ("threads", "max-threads"), ("mem_mb", "max-mem-mb"), ("runtime", "max-runtime")) if what in caps)
        lines.append(f"  or compile the workflow again with `bioplan compile ... {flags}`;")
    if any(m.what == "partition" for m in found):
        lines.append(f"  name an existing partition: default-resources: slurm_partition in {PROFILE} "
                     "(or `bioplan compile ... --partition`);")
    lines.append("  or send a rule to a partition with bigger nodes: set-resources: <rule>: slurm_partition.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- pending watcher

# Reasons that no amount of waiting clears: the job itself is outside what the partition,
# account or QOS allow, or can never be satisfied.
NEVER_CLEARS = {
    "PartitionConfig": "the job asks for more CPUs, memory or nodes than partition {partition} allows "
                       "(it has {node_count} node(s), up to {cpus} CPUs and {mem} MB each)",
    "PartitionNodeLimit": "the job asks for more nodes than partition {partition} allows",
    "PartitionTimeLimit": "the job's time limit ({time_limit}) is above partition {partition}'s",
    "DependencyNeverSatisfied": "a job it depends on failed or was cancelled",
    "InvalidAccount": "the account does not exist, or you are not a member of it",
    "InvalidQOS": "the QOS does not exist, or the account may not use it",
    "BadConstraints": "its constraints (features, node list, geometry) can never be met",
}
# Per-job limits of an association or QOS (AssocMaxCpuPerJobLimit, QOSMaxWallDurationPerJobLimit, ...)
PER_JOB_LIMIT = re.compile(r"^(Assoc|QOS)(Max\w*Per(Job|Node)\w*|Min\w*)$")
# Limits on how many jobs may run: they clear as running jobs end, so only when none runs: of the user's own
# (a limit per user) ...
JOB_COUNT_LIMIT = re.compile(r"^(AssocMaxJobsLimit|QOSMaxJobsPerUserLimit)$")
# ... or of anyone in the job's account (Assoc...) or QOS (QOS...): limits other users' jobs count against
SHARED_JOB_COUNT_LIMIT = re.compile(r"^(AssocGrpJobsLimit|QOSMaxJobsPerAccount|QOSGrpMaxJobsLimit|QOSGrpJobsLimit"
                                    r"|QOSJobLimit)$")

ADVICE = {
    "PartitionConfig": "lower the request to what a node offers (max-threads / resources: mem_mb in {profile}, "
                       "or the rule's tasks / nodes in set-resources), or send the rule to another partition "
                       "(set-resources: {rule}: slurm_partition)",
    "PartitionNodeLimit": "ask for fewer nodes (the rule's nodes resource in set-resources of {profile}), or use "
                          "another partition",
    "PartitionTimeLimit": "cap the runtime at the partition's limit (resources: runtime and set-resource-scopes: "
                          "runtime: local in {profile}, or `bioplan compile ... --max-runtime`), or use another "
                          "partition",
    "DependencyNeverSatisfied": "remove the --dependency from the rule's slurm_extra, or make the job it waits for "
                                "succeed",
    "InvalidAccount": "set an account you belong to (default-resources: slurm_account in {profile}; "
                      "`sacctmgr show assoc user=$USER` lists yours)",
    "InvalidQOS": "set a QOS your account may use (the rule's qos resource, or slurm-qos in {profile}; "
                  "`sacctmgr show assoc user=$USER format=account,qos` lists them)",
    "BadConstraints": "drop or correct the rule's constraint / slurm_extra node options in {profile}",
    "per_job": "lower the request below the account's or QOS's per-job limit (`sacctmgr show assoc user=$USER`, "
               "`sacctmgr show qos`), or use another account or QOS",
    "job_count": "your account or QOS lets no job of yours run (none of the jobs it counts is running and this one "
                 "may not start); "
                 "use another account (slurm_account in {profile}) or ask the cluster's administrators",
    "node": "remove the node list (nodelist / exclude in the rule's slurm_extra) naming nodes that do not exist",
}


@dataclass(frozen=True)
class Stuck:
    job: QueuedJob
    rule: str  # the rule, or the group a group job is named after
    kind: str  # a key of ADVICE
    why: str
    members: tuple[str, ...] = ()  # a group job's rules (the checks of one step)


def reason_code(reason: str) -> str:
    """'ReqNodeNotAvail, UnavailableNodes:n[1-2]' -> 'ReqNodeNotAvail'."""
    return re.split(r"[,\s(]", reason.strip(), maxsplit=1)[0]


def never_clears(job: QueuedJob, partitions: dict[str, Partition], anything_running: bool,
                 running: set[tuple[str, str]] | None = None) -> str | None:
    """The ADVICE key when this PENDING job can never start as submitted, else None. `anything_running`: a job of
    the user runs; `running`: the accounts and QOS of every user's running jobs (None: not looked at)."""
    if job.state != "PENDING":
        return None
    code = reason_code(job.reason)
    if code in NEVER_CLEARS:
        return code
    if PER_JOB_LIMIT.match(code):
        return "per_job"
    if JOB_COUNT_LIMIT.match(code) and not anything_running:
        return "job_count"
    if SHARED_JOB_COUNT_LIMIT.match(code) and not anything_running and running is not None:
        shared_by = ("account", job.account) if code.startswith("Assoc") else ("qos", job.qos)
        return None if shared_by in running else "job_count"
    if code == "ReqNodeNotAvail":
        listed = re.search(r"UnavailableNodes:(\S+)", job.reason)
        known = {n.name for p in partitions.values() for n in p.nodes}
        if listed and known and any(n not in known for n in expand_hostlist(listed.group(1))):
            return "node"
    return None


def rule_of(comment: str, rules: set[str], groups: frozenset[str] = frozenset()) -> str | None:
    """The rule a job of the plugin runs: its comment is 'rule_<name>' or 'rule_<name>_wildcards_<...>';
    a group job's (the checks of one step) 'rule_<group>_<its rules>', named after the group."""
    names = [r for r in rules if comment == f"rule_{r}" or comment.startswith(f"rule_{r}_wildcards_")]
    names += [g for g in groups if comment.startswith(f"rule_{g}_")]
    return max(names, key=len) if names else None


def why(kind: str, job: QueuedJob, partitions: dict[str, Partition]) -> str:
    part = partitions.get(job.partition)
    if kind in NEVER_CLEARS:
        return NEVER_CLEARS[kind].format(
            partition=repr(job.partition), time_limit=job.time_limit,
            node_count=len(part.nodes) if part else "?", cpus=part.max_cpus if part else "?",
            mem=part.max_mem_mb if part else "?")
    return {"per_job": "the job is above a per-job limit of its account or QOS",
            "job_count": "a limit on the number of running jobs of the account or QOS",
            "node": "it asks for nodes that do not exist"}[kind]


@dataclass
class Watcher:
    """Which of this run's jobs can never start, confirmed over consecutive looks at the queue."""

    rules: set[str]
    workdir: str
    since: str  # ISO time of the run's start: jobs submitted before belong to an earlier run
    seen: dict[tuple[str, str], float] = field(default_factory=dict)  # (job, kind) -> since when, on every look
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)  # group -> its rules: a group job is named
    # after its group

    def ours(self, job: QueuedJob) -> bool:
        return (os.path.normpath(job.workdir) == os.path.normpath(self.workdir) and job.submit_time >= self.since
                and rule_of(job.comment, self.rules, frozenset(self.groups)) is not None)

    def look(self, jobs: list[QueuedJob], partitions: dict[str, Partition], now: float,
             running: set[tuple[str, str]] | None = None) -> list[Stuck]:
        """Record one look at the queue (all of the user's jobs; `running`: see never_clears) at `now` (seconds,
        monotonic); the jobs stuck on this look and on every look since at least their settling time ago."""
        anything_running = any(j.state in ("RUNNING", "COMPLETING", "CONFIGURING") for j in jobs)
        seen, stuck = {}, []
        for job in filter(self.ours, jobs):
            kind = never_clears(job, partitions, anything_running, running)
            if kind is None:
                continue
            key = (job.jobid, kind)
            seen[key] = self.seen.get(key, now)
            if now - seen[key] >= settle_seconds(kind):
                rule = rule_of(job.comment, self.rules, frozenset(self.groups))
                stuck.append(Stuck(job, rule, kind, why(kind, job, partitions), self.groups.get(rule, ())))
        self.seen = seen
        return stuck

    def next_wait(self, now: float, last_wait: float) -> float:
        """Seconds until the next look: half as long again as the last wait, up to POLL_SECONDS, and no later
        than the moment a job seen stuck has been so for its settling time."""
        wait = min(POLL_SECONDS, last_wait * 1.5)
        for (_, kind), since in self.seen.items():
            wait = min(wait, max(0.5, since + settle_seconds(kind) - now))
        return wait


def settle_seconds(kind: str) -> float:
    return JOB_COUNT_SETTLE_SECONDS if kind == "job_count" else SETTLE_SECONDS


def rule_groups(rules) -> dict[str, tuple[str, ...]]:
    """Each group of the workflow (a `group:` directive: the checks of one step) and its rules, sorted."""
    groups: dict[str, list[str]] = {}
    for r in rules:
        if isinstance(r.group, str):
            groups.setdefault(r.group, []).append(r.name)
    return {g: tuple(sorted(names)) for g, names in sorted(groups.items())}


def stuck_message(stuck: list[Stuck]) -> str:
    lines = [f"{len(stuck)} SLURM job(s) of this run can never start; the run stops and cancels its jobs:"]
    for s in sorted(stuck, key=lambda s: (s.rule, int(s.job.jobid) if s.job.jobid.isdigit() else 0)):
        named = f"group {s.rule} (rules {', '.join(s.members)})" if s.members else f"rule {s.rule}"
        lines.append(f"  {named}, SLURM job {s.job.jobid} (partition {s.job.partition!r}, {s.job.cpus} CPUs, "
                     f"{s.job.mem_mb} MB, {s.job.time_limit}, {s.job.nodes} node(s)): PENDING with "
                     f"Reason={s.job.reason}: {s.why}.")
        rule = " / ".join(s.members) if s.members else s.rule  # set-resources takes a group's rules, one by one
        lines.append("    To resolve, " + ADVICE[s.kind].format(profile=PROFILE, rule=rule) + ".")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- Snakemake side

def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=60).stdout


def read_partitions() -> dict[str, Partition]:
    # --all: hidden partitions and those of other groups too (a rule may name one)
    return parse_sinfo(_run(["sinfo", "--all", "-h", "-N", "-o", SINFO_FORMAT]))


def job_requests(workflow) -> list[Request]:
    """What each job to run asks for at each of its attempts, as Snakemake would submit it
    (the profile's max-threads, resources caps and set-resources applied)."""
    requests = []
    for job in workflow.dag.needrun_jobs():
        if job.is_local:  # runs beside Snakemake, not through sbatch
            continue
        for attempt in range(1, job.rule.restart_times + 2):
            res = job.rule.expand_resources(job.wildcards_dict, job.input, attempt, skip_evaluation={"tmpdir"})
            partition = res.get("slurm_partition")
            requests.append(Request(job.rule.name, str(partition) if partition else None, int(res.get("_cores", 1)),
                                    _int_or_none(res.get("mem_mb")), _int_or_none(res.get("runtime")), attempt))
    return requests


def _int_or_none(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def start(workflow, logger) -> None:
    """The onstart hook: fit check, then the pending watcher. A no-op unless the executor is SLURM."""
    plugin = getattr(workflow, "executor_plugin", None)
    if plugin is None or plugin.name != "slurm":
        return
    from snakemake_interface_common.exceptions import WorkflowError

    try:
        partitions = read_partitions()
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        logger.warning(f"bioplan: cannot read the partitions with sinfo ({exc}); the fit check is skipped.")
        return
    if not partitions:  # a client that reaches no controller: nothing to compare with
        logger.warning("bioplan: sinfo lists no partition; the fit check is skipped.")
        return
    found = misfits(job_requests(workflow), partitions)
    if found:
        raise WorkflowError(fit_message(found, partitions))
    watcher = Watcher({r.name for r in workflow.rules}, str(workflow.workdir_init),
                      time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 1)),
                      groups=rule_groups(workflow.rules))
    threading.Thread(target=_watch, args=(watcher, workflow, logger, partitions, WorkflowError),
                     name="bioplan-slurm-watcher", daemon=True).start()


def _running_if_shared(watcher: Watcher, jobs: list[QueuedJob], logger) -> set[tuple[str, str]] | None:
    """The accounts and QOS of every user's running jobs, looked up only while a job of this run waits on a
    job-count limit it shares with them (None: no such job, or squeue failed)."""
    if not any(SHARED_JOB_COUNT_LIMIT.match(reason_code(j.reason)) for j in jobs if watcher.ours(j)):
        return None
    try:
        return parse_running(_run(["squeue", "-h", "--states=RUNNING,COMPLETING,CONFIGURING", "-o", RUNNING_FORMAT]))
    except (OSError, subprocess.SubprocessError) as exc:
        logger.debug(f"bioplan: squeue failed ({exc})")
        return None


def _watch(watcher: Watcher, workflow, logger, partitions, error_class) -> None:
    user = getpass.getuser()
    wait = FIRST_LOOK_SECONDS
    while True:
        time.sleep(wait)
        try:
            jobs = parse_squeue(_run(["squeue", "-h", "--user", user, "-o", SQUEUE_FORMAT]))
        except (OSError, subprocess.SubprocessError, ValueError) as exc:  # a busy controller: look again later
            logger.debug(f"bioplan: squeue failed ({exc})")
            wait = POLL_SECONDS
            continue
        now = time.monotonic()
        stuck = watcher.look(jobs, partitions, now, _running_if_shared(watcher, jobs, logger))
        wait = watcher.next_wait(now, wait)
        if stuck:
            names = sorted({s.job.name for s in stuck})
            for name in names:  # the whole run: nothing of it stays queued
                subprocess.run(["scancel", "--user", user, "--name", name], capture_output=True, timeout=60)
            workflow.scheduler.executor_error_callback(error_class(stuck_message(stuck)))
            return
