"""The cluster's per-job limits at compile time: from the user's flags and SLURM's own report, then
every step's request held to them.

With `--partition P` and SLURM's `sinfo` on this machine (a login node), compile reads P's nodes and
time limit with the parser of the emitted workflow's own guard (templates/cluster/slurm_guard.py, one
source): a limit given above what P's largest node offers is refused (such a job would wait PENDING
forever), a limit not given is taken from P (said in a note), and a P that sinfo does not list among
the partitions it does list is refused (its jobs would be rejected at every submission). Without
`sinfo`, or where it lists no partition at all, the flags alone count. Then each step's first
request is held to the limits: memory beyond one node is refused (`cluster_too_small`, naming the
Snakemake rule and the Nextflow process: lowered to the cap the job would only be killed for memory),
CPUs and time beyond them are capped by both targets' profiles (a slower job; a time limit the
partition enforces anyway): Snakemake's max-threads and resources, Nextflow's resourceLimits from
nf-core's params.max_cpus, max_memory and max_time. At run time each target checks its jobs against
the partition's nodes again before submitting any (slurm_guard.py; Nextflow's checkClusterFit in
subworkflows/local/utils_bioplan_pipeline/main.nf, over what the run's own configuration asks for, a user's -c
file included).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from functools import cache
from types import ModuleType
from typing import Any

from bioplan.codegen.ir import Workflow
from bioplan.errors import ClusterTooSmallError, InvalidOptionError
from bioplan.paths import templates_dir

SINFO_SECONDS = 10  # a client that reaches no controller waits; compile does not
FLAGS = {"max_threads": "--max-threads", "max_mem_mb": "--max-mem-mb", "max_runtime": "--max-runtime"}
UNITS = {"max_threads": "CPUs", "max_mem_mb": "MB", "max_runtime": "min"}


@cache
def guard() -> ModuleType:
    """templates/cluster/slurm_guard.py as a module (the workflow ships the same file)."""
    spec = importlib.util.spec_from_file_location("bioplan_slurm_guard", templates_dir() / "cluster" / "slurm_guard.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def sinfo_lines() -> tuple[str | None, str | None]:
    """(`sinfo -N` lines of every partition, hidden ones too, None) or (None, why not): None, None
    without sinfo. The partition asked for is looked up in them (never an argument of sinfo's), so a
    partition sinfo does not list can be told from one that answers."""
    if shutil.which("sinfo") is None:
        return None, None
    try:
        proc = subprocess.run(["sinfo", "--all", "-h", "-N", "-o", guard().SINFO_FORMAT],
                              capture_output=True, text=True, timeout=SINFO_SECONDS)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"sinfo did not answer ({exc.__class__.__name__})"
    if proc.returncode != 0:
        return None, f"sinfo failed: {proc.stderr.strip()[:200]}"
    return proc.stdout, None


def partition_limits(partition: str, sinfo_text: str) -> dict[str, int | None] | None:
    """The most one job may ask for in the partition (its largest node's CPUs and memory, its time
    limit) from `sinfo -N -o SINFO_FORMAT` lines; None when sinfo lists no such partition."""
    part = guard().parse_sinfo(sinfo_text).get(partition)
    if part is None or not part.nodes:
        return None
    return {"max_threads": part.max_cpus, "max_mem_mb": part.max_mem_mb, "max_runtime": part.max_minutes}


def unknown_partition(partition: str, sinfo_text: str) -> InvalidOptionError | None:
    """The error for a --partition that sinfo does not list while it lists others (a typo, another
    cluster's name): every job would be refused at submission. None where sinfo lists no partition."""
    known = guard().parse_sinfo(sinfo_text)
    if not known:
        return None
    names = ", ".join(f"{p.name} (default)" if p.default else p.name for p in known.values())
    return InvalidOptionError(
        f"--partition {partition!r}: the SLURM cluster of this machine has no such partition (sinfo lists: {names}); "
        "sbatch would refuse every job of the workflow",
        ["to resolve, give one of its partitions with --partition (`sinfo -o \"%P %c %m %l\"` lists each one's CPUs, "
         "memory in MB and time limit)",
         "or, to compile for another cluster than this machine's, add --no-sinfo (the partition is then not checked)"],
        {"option": "--partition", "value": partition, "partitions": sorted(known)})


def fit_to_partition(limits: dict[str, int | None], partition: str,
                     offered: dict[str, int | None]) -> tuple[dict[str, int | None], str]:
    """The limits held to the partition's: a given one above it is an InvalidOptionError, a missing one
    is the partition's. Returns the limits and a note saying what came from sinfo."""
    for key, flag in FLAGS.items():
        given, most = limits.get(key), offered.get(key)
        if given is not None and most is not None and given > most:
            raise InvalidOptionError(
                f"{flag} {given}: partition {partition!r} offers at most {most} {UNITS[key]} per job (sinfo: "
                f"{describe(offered)}); SLURM would keep a job asking for more PENDING forever",
                [f"to resolve, give {flag} {most} or less, or leave it out to take the partition's",
                 "or name a partition with bigger nodes with --partition (`sinfo -o \"%P %c %m %l\"` lists them)"],
                {"option": flag, "value": str(given), "partition": partition, "offered": str(most)})
    taken = {k: offered[k] for k in FLAGS if limits.get(k) is None and offered.get(k) is not None}
    note = (f"partition {partition!r} per sinfo: {describe(offered)}"
            + (f"; taken as {', '.join(FLAGS[k] + ' ' + str(v) for k, v in taken.items())}" if taken else ""))
    return {**limits, **taken}, note


def describe(offered: dict[str, int | None]) -> str:
    minutes = offered.get("max_runtime")
    return (f"{offered.get('max_threads')} CPUs and {offered.get('max_mem_mb')} MB on its largest node, "
            + (f"a {minutes} min time limit" if minutes is not None else "no time limit"))


def refuse_misfits(workflow: Workflow, source: str) -> None:
    """Every step whose first request needs more memory than one node offers (workflow.max_mem_mb),
    named with what it needs, what the node has and how to resolve: ClusterTooSmallError."""
    if workflow.max_mem_mb is None:
        return
    over = [s for s in workflow.steps if s.mem_mb > workflow.max_mem_mb]
    if not over:
        return
    # each named as both targets name it: the Snakemake rule and the Nextflow process (the step's id, upper case)
    steps: list[dict[str, Any]] = [{"step": s.id, "process": s.id.upper(), "tool": s.tool, "mem_mb": s.mem_mb,
                                    "threads": s.threads, "offered_mem_mb": workflow.max_mem_mb} for s in over]
    named = "; ".join(f"{s.id} ({s.tool or 'check'}; Nextflow process {s.id.upper()}) needs {s.mem_mb} MB"
                      for s in over)
    raise ClusterTooSmallError(
        f"{len(over)} step(s) need more memory than one node offers ({workflow.max_mem_mb} MB, {source}): {named}. "
        "Lowered to the cap, their jobs would be killed for memory at every attempt",
        ["to resolve, name a partition with bigger nodes (--partition; `sinfo -o \"%P %c %m %l\"` lists each "
         "partition's CPUs, memory in MB and time limit)",
         "or, if one of the nodes has more memory, give it with --max-mem-mb",
         "or, if you know the step needs less for your data, compile without the memory limit (no --max-mem-mb; "
         "with --partition also --no-sinfo) and lower the step in profiles/slurm/config.yaml, set-resources: "
         "<rule>: mem_mb (Nextflow: withName '<PROCESS>' memory in conf/base.config; its --max_memory caps every "
         "process at a node)"],
        {"steps": steps, "max_mem_mb": workflow.max_mem_mb, "source": source})
