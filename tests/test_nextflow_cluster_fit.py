"""The Nextflow SLURM fit check reads what Nextflow will really ask SLURM for (issue 16's left-over): the
run's own configuration, a user's `-c my.config` included (withName/withLabel cpus, memory, time, maxRetries,
resourceLimits, executor, queue), capped by resourceLimits as Nextflow caps it, against the nodes sinfo lists.

Nextflow runs (marker e2e): a stand-in `sinfo` prints a canned cluster and a stand-in `sbatch` records every
submission and refuses it, so no SLURM cluster is needed and nothing reaches one. The functions of
subworkflows/local/utils_bioplan_pipeline/main.nf are also run one by one by a probe workflow on a canned
configuration (the session config Nextflow built from it).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bioplan.compile import compile_request
from conftest import PlanOnce, example_inputs
from test_slurm import ACCOUNT, PARTITION, REQUEST

pytestmark = pytest.mark.e2e

# two small nodes in the default partition (1 h limit), one big node in another
SINFO = "debug*|n1|2|22900|1:00:00\ndebug*|n2|2|22900|1:00:00\nbig|b1|64|500000|UNLIMITED\n"
RUN_TIMEOUT = 300


@pytest.fixture(scope="module")
def pipeline(workspace, knowledge, tmp_path_factory):
    """The bulk DE pipeline compiled for partition debug with its nodes' limits (2 CPUs, 22900 MB, 60 min), and
    beside it a bin/ of stand-in SLURM clients, first on the runs' PATH so that no job reaches a real cluster:
    sinfo prints SINFO, sbatch writes its arguments to sbatch.log and fails, squeue and scancel do nothing."""
    base = tmp_path_factory.mktemp("nf_fit")
    with PlanOnce():
        out = compile_request(REQUEST, example_inputs(workspace, "bulk_de"), str(base / "nf" / "main.nf"),
                              target="nextflow", knowledge=knowledge, validate=False, partition=PARTITION,
                              account=ACCOUNT, read_sinfo=False, max_threads=2, max_mem_mb=22900,
                              max_runtime=60).output_dir
    tools = base / "bin"
    tools.mkdir()
    (tools / "sinfo").write_text(f"#!/bin/sh\nprintf '%s' '{SINFO}'\n")
    (tools / "sbatch").write_text(f"#!/bin/sh\necho \"$*\" >> {base / 'sbatch.log'}\necho refused >&2\nexit 1\n")
    for tool in ("squeue", "scancel"):
        (tools / tool).write_text("#!/bin/sh\nexit 0\n")
    for tool in ("sinfo", "sbatch", "squeue", "scancel"):
        (tools / tool).chmod(0o755)
    assert out.parent == base
    return out


def run(pipeline: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`nextflow run` in the pipeline with the stand-in SLURM clients first on PATH: (the run, its sbatch calls)."""
    import nextflow_jvm
    from test_nextflow_run import nextflow_bin

    log = pipeline.parent / "sbatch.log"
    log.unlink(missing_ok=True)
    env = dict(os.environ, NXF_ANSI_LOG="false", NXF_HOME=str(pipeline.parent / ".nxf_home"),
               PATH=f"{pipeline.parent / 'bin'}{os.pathsep}{os.environ['PATH']}")
    proc = nextflow_jvm.run([nextflow_bin(), "run", *args], cwd=pipeline, env=env, timeout=RUN_TIMEOUT,
                            stderr=subprocess.STDOUT)
    return proc, (log.read_text().splitlines() if log.exists() else [])


def test_a_user_config_above_the_node_is_refused_before_any_submission(pipeline, tmp_path):
    """The compiled caps fit the node, so the plain run passes the check and submits (the stand-in sbatch is
    called); a user's -c asking 40 GB for the DE step and raising its resourceLimits above the node is refused
    before any submission, naming the process, its request and the user's config as a cause."""
    proc, submitted = run(pipeline, ".", "-profile", "slurm")
    assert "ask for more than a node" not in proc.stdout and submitted, proc.stdout[-3000:]
    mine = tmp_path / "my.config"
    mine.write_text("process {\n    withName: 'DIFFERENTIAL_EXPRESSION' {\n        memory = { 40.GB * task.attempt }\n"
                    "        resourceLimits = [cpus: 2, memory: 100.GB, time: 1.h]\n    }\n}\n")
    proc, submitted = run(pipeline, ".", "-profile", "slurm", "-c", str(mine))
    assert proc.returncode != 0 and not submitted, (submitted, proc.stdout[-3000:])
    # a second run into the first one's outdir replaces its trace (nextflow.config: overwrite) instead of refusing
    assert "Trace file already exists" not in (pipeline / ".nextflow.log").read_text()
    assert "1 process(es) ask for more than a node of SLURM partition 'debug' offers (2 CPUs, 22900 MB, 60 min" \
        in proc.stdout, proc.stdout[-3000:]
    assert ("  DIFFERENTIAL_EXPRESSION: 40960 MB > 22900 MB per node (already at the first attempt: only bigger "
            "nodes take it)\n") in proc.stdout
    assert "a -c config of your own that sets cpus, memory, time or resourceLimits" in proc.stdout


PROBE = ("include { pipelineProcesses; processSettings; clusterRequest; clusterMisfit } "
         "from './subworkflows/local/utils_bioplan_pipeline/main'\n") + """

// Nextflow's own answer (its internal ProcessConfig and TaskConfig, here only): the process configured from the
// session config as ProcessDef configures it, the request of a task at the attempt as the executor reads it
def nextflowRequest(scope, p, attempt) {
    def config = new nextflow.script.ProcessConfig(this, p[2])
    config.label(p[3])
    config.applyConfig(scope, p[1], p[0], p[2])
    def task = config.createTaskConfig()
    task.put('attempt', attempt)
    task.setContext([:])
    return [task.getCpus(), task.getMemory()?.toMega(), task.getTime()?.toMinutes()]
}

workflow {
    def scope = workflow.session.config.process
    def nodes = '%s'.readLines().collect { line -> line.tokenize('|') }
    def out = [:]
    pipelineProcesses().each { p ->
        def settings = processSettings(scope, [p[1], p[0], p[2]], [p[3]])
        def queue = settings.queue ?: 'debug'
        out[p[0]] = [executor: settings.executor.toString(), queue: queue,
                     requests: (1..3).collect { attempt -> clusterRequest(settings, attempt, p[0]) },
                     nextflow: (1..3).collect { attempt -> nextflowRequest(scope, p, attempt) },
                     misfit: clusterMisfit(settings, nodes.findAll { f -> f[0].replace('*', '') == queue }, queue)]
    }
    println('PROBE ' + groovy.json.JsonOutput.toJson(out))
}
"""

# A user's config: a label raised (every process_single), a negated label (every other one), the DE step named by
# its module's process name (base.config's selector of its own name is applied after it: Nextflow's order) and by
# its name, a process sent to the big partition, one run beside Nextflow
USER_CONFIG = """\
process {
    withLabel: 'process_single' {
        cpus = 2
    }
    withLabel: '!process_single' {
        time = { 50.min * task.attempt }
        maxRetries = 1
    }
    withName: 'PYDESEQ2_DIFFERENTIAL' {
        cpus = 16
        resourceLimits = [cpus: 12, memory: 30.GB, time: 2.h]
    }
    withName: 'DIFFERENTIAL_EXPRESSION' {
        memory = { 20.GB * task.attempt }
    }
    withName: 'BIOPLAN:KEGG_ENRICHMENT' {
        queue = 'big'
        memory = '100 GB'
    }
    withName: 'CHECK_REPLICATES' {
        executor = 'local'
    }
}
"""


def test_the_check_reads_each_process_as_nextflow_configures_it(pipeline, tmp_path):
    """Selectors in Nextflow's order (labels, then the module's process name, the name, the name with its
    workflow), closures at each attempt, resourceLimits capping each request, a per-process queue and executor:
    what the check's functions compute from the session config of -profile slurm and a user's config is what
    Nextflow's own classes compute, for every process and attempt."""
    probe = pipeline / "probe.nf"
    probe.write_text(PROBE % SINFO.replace("\n", "\\n"))
    mine = tmp_path / "my.config"
    mine.write_text(USER_CONFIG)
    try:
        proc, _ = run(pipeline, "probe.nf", "-profile", "slurm", "-c", str(mine))
    finally:
        probe.unlink()
    assert proc.returncode == 0, proc.stdout[-3000:]
    got = json.loads(proc.stdout.split("PROBE ", 1)[1].splitlines()[0])
    for name, process in got.items():
        assert process["requests"] == process["nextflow"], (name, process)
    de = got["DIFFERENTIAL_EXPRESSION"]
    # base.config's cpus (its selector of the step's name is applied after the user's of the module's name, 16)
    # above the node, as the user's own resourceLimits (12) let it be; the user's memory capped at the user's
    # 30 GB; base.config's time (names win over the negated label's 50 min) capped at the user's 2 h
    cpus = de["requests"][0][0]
    assert 2 < cpus < 12 and [r[:2] for r in de["requests"]] == [[cpus, 20480], [cpus, 30720], [cpus, 30720]], de
    assert de["requests"][2][2] == 120, de
    # two attempts (the negated label's maxRetries = 1): the first time above the partition's 60 min is named
    late = next(r[2] for r in de["requests"][:2] if r[2] > 60)
    assert de["misfit"] == f"{cpus} CPUs > 2 per node; {late} min > the 60 min time limit", de
    # a process_single step: base.config's selector of its name sets its cpus after the label's 2
    go = got["GO_ENRICHMENT"]
    assert [r[0] for r in go["requests"]] == [1, 1, 1] and go["misfit"] == "", go
    # KEGG in the big partition: the user's 100 GB is capped at the profile's 22900 MB limit (params.max_memory)
    kegg = got["KEGG_ENRICHMENT"]
    assert kegg["queue"] == "big" and kegg["requests"][0][1] == 22900 and kegg["misfit"] == "", kegg
    assert got["CHECK_REPLICATES"]["executor"] == "local"
    assert got["CHECK_RAW_INTEGER_COUNTS"]["executor"] == "slurm"
