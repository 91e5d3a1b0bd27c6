"""bioplan speed and scale benchmarks: one command, every ratio measured in the same run.

    python benchmarks/run.py            # full run (1x, 10x, 100x; writes README results + PNG)
    python benchmarks/run.py --quick    # under a minute (1x and a reduced 10x; writes nothing)
    python benchmarks/run.py --cli-only # `bioplan plan` vs its import floor, `bioplan compile` (prints, writes nothing)

Measured side by side (see benchmarks/README.md for the method):
- the production search (ProblemBuilder + A*) against the original design's plain BFS
  (over the whole context-pruned graph, and over the same pruned Problem), and against one
  full traversal of the graph (the floor);
- how plan time grows with graph size (1x, 10x, 100x), path length (2-8 hops) and the number
  of must-pass anchors (0-3);
- Fast Downward's optimal A* (LM-cut, through unified-planning) on the PDDL export of the same
  problems: the optimal costs must agree on every instance, and its time is a ratio to bioplan's;
- `bioplan plan` on the shipped knowledge against the bare import of its dependencies;
- `bioplan compile` of the bulk RNA-seq example, with and without its `snakemake -n` pre-check.

The last line printed is one JSON object with the headline numbers.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402

from bioplan.knowledge.load import load_knowledge  # noqa: E402
from bioplan.planner.graph import CONFIG_COST, Action, Problem, ProblemBuilder, _Context, _forward_closure, closure  # noqa: E402
from bioplan.planner.index import planning_index  # noqa: E402
from bioplan.planner.pddl import to_pddl  # noqa: E402
from bioplan.planner.plan import search_plans  # noqa: E402
from bioplan.planner.search import astar_plan, bfs_plan  # noqa: E402

SEED = 20260601
HOPS = range(2, 9)
ANCHORS = range(0, 4)


# --------------------------------------------------------------------------- measuring


def timed(fn, reps: int = 1):
    """(median seconds over `reps` calls, last result)."""
    times, result = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def pct(xs, q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def geomean(xs) -> float:
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def full_traversal(index) -> int:
    """One breadth-first pass over the whole capability graph: every datatype, operation and
    tool node and every consumes/produces/implements/supports edge read once (the floor)."""
    seen_dt: set[str] = set()
    seen_op: set[str] = set()
    queue: deque[str] = deque()
    for f in index.closure:
        if f not in index.producers or all(p.startswith("provide:") for p in index.producers[f]):
            seen_dt.add(f)
            queue.append(f)
    edges = 0
    tool_kinds = index.tool_kinds

    def visit(op_id: str) -> None:
        nonlocal edges
        seen_op.add(op_id)
        e = index.ops[op_id]
        edges += len(e.pre) + len(e.tools)
        for t in e.tools:
            edges += len(tool_kinds.get(t, ()))
        for g in e.add:
            edges += 1
            if g not in seen_dt:
                seen_dt.add(g)
                queue.append(g)

    for op_id in index.ops:  # the sweep also starts from operations on cycles no source reaches
        if op_id not in seen_op:
            visit(op_id)
        while queue:
            f = queue.popleft()
            for nxt in index.consumers.get(f, ()):
                if nxt not in seen_op:
                    visit(nxt)
    return edges + len(seen_dt) + len(seen_op)


def whole_graph_problem(knowledge, spec) -> Problem:
    """The original design's search space: every operation the context allows, no relevance pruning."""
    ctx = _Context(knowledge, spec)
    index = ctx.index
    initial = closure(knowledge, spec.input_types)
    ops = [o for o in index.ops if ctx.verdict(o)[0] is None]
    derivable = _forward_closure(initial, [(index.ops[o].pre, index.ops[o].add) for o in ops])
    actions = {}
    for o in sorted(ops):
        e = index.ops[o]
        actions[o] = Action(o, e.cost, e.pre, e.add, o)
    for dt in sorted(index.config):
        if dt not in initial and dt not in derivable:
            actions[f"provide:{dt}"] = Action(f"provide:{dt}", CONFIG_COST, frozenset(), index.config[dt], None)
    return Problem(initial, spec.target_output.semantic_type, tuple(spec.required_operations), actions, spec.max_hops)


# --------------------------------------------------------------------------- Fast Downward oracle


class FastDownward:
    """Fast Downward's optimal A* with LM-cut, as packaged by up-fast-downward.

    `solve` runs the packaged Fast Downward driver on the exported PDDL files with the search
    unified-planning's `fast-downward-opt` engine uses (astar(lmcut())), and times it;
    `solve_up` goes through unified-planning itself (PDDLReader + OneshotPlanner), whose PDDL
    parser is too slow for whole-graph files (~15 s for 1,200 actions), so it cross-checks a
    sample of the instances."""

    SEARCH = "astar(lmcut())"

    def __init__(self):
        import unified_planning  # noqa: F401
        import up_fast_downward
        from unified_planning.shortcuts import get_environment

        get_environment().credits_stream = None
        self.driver = Path(up_fast_downward.__file__).parent / "downward" / "fast-downward.py"
        if not self.driver.is_file():
            raise ImportError(f"no Fast Downward driver at {self.driver}")
        self.dir = Path(tempfile.mkdtemp(prefix="bioplan-fd-"))
        self.version = (f"unified-planning {importlib.metadata.version('unified-planning')}, "
                        f"up-fast-downward {importlib.metadata.version('up-fast-downward')} (Fast Downward "
                        f"{self.SEARCH})")

    def _files(self, problem: Problem, knowledge, spec):
        export = to_pddl(problem, knowledge, spec)
        d, p = self.dir / "domain.pddl", self.dir / "problem.pddl"
        d.write_text(export.domain)
        p.write_text(export.problem)
        return export, d, p

    def solve(self, problem: Problem, knowledge=None, spec=None) -> dict:
        export, d, p = self._files(problem, knowledge, spec)
        plan_file = self.dir / "plan.txt"
        plan_file.unlink(missing_ok=True)
        cmd = [sys.executable, str(self.driver), "--plan-file", str(plan_file), str(d), str(p),
               "--search-options", "--search", self.SEARCH]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        seconds = time.perf_counter() - t0
        if out.returncode == 0 and plan_file.is_file():
            names = [line.strip("() \n").split()[0] for line in plan_file.read_text().splitlines()
                     if line.startswith("(")]
            cost = export.cost_of(problem, names)
        elif out.returncode in (11, 12):  # unsolvable (proven / incompletely)
            cost = None
        else:
            raise RuntimeError(f"Fast Downward exit {out.returncode}: {out.stdout[-2000:]}{out.stderr[-2000:]}")
        # the search component's own clock (C++ process: reading the task, LM-cut, A*), without
        # the driver's and the Python translator's start-up
        search = re.findall(r"\] Total time: ([0-9.]+)s", out.stdout)
        return {"cost": cost, "seconds": seconds, "actions": len(problem.actions),
                "search_seconds": float(search[-1]) if search else None}

    def solve_up(self, problem: Problem, knowledge=None, spec=None) -> dict:
        from unified_planning.engines import PlanGenerationResultStatus as S
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import OneshotPlanner

        export, d, p = self._files(problem, knowledge, spec)
        t0 = time.perf_counter()
        up_problem = PDDLReader().parse_problem(str(d), str(p))
        t1 = time.perf_counter()
        with OneshotPlanner(name="fast-downward-opt") as planner:
            result = planner.solve(up_problem)
        t2 = time.perf_counter()
        if result.status == S.SOLVED_OPTIMALLY:
            cost = export.cost_of(problem, [a.action.name for a in result.plan.actions])
        elif result.status == S.UNSOLVABLE_PROVEN:
            cost = None
        else:
            raise RuntimeError(f"unified-planning / Fast Downward: {result.status}")
        return {"cost": cost, "parse_seconds": t1 - t0, "seconds": t2 - t1}


def fast_downward() -> FastDownward | None:
    try:
        return FastDownward()
    except ImportError:
        return None


# --------------------------------------------------------------------------- one scale


@dataclass
class ScaleResult:
    scale: float
    ops: int
    nodes: int
    edges: int
    tools: int
    generate_seconds: float
    index_seconds: float
    traversal_seconds: float
    rows: list[dict] = field(default_factory=list)


def run_scale(stats, scale: float, *, seed: int, per_cell: int, reps: int, fd: FastDownward | None,
              bfs_limit: float, whole_graph: bool, stage: bool, hops=HOPS, anchors=ANCHORS,
              log=print, n_ops: int | None = None, fd_whole: bool = False, n_up: int = 1) -> ScaleResult:
    n_ops = n_ops or synth.ops_for_scale(stats, scale, seed=seed)
    # the knowledge base and its index are long-lived: built with the cyclic GC paused and then
    # frozen out of it (gc.freeze), as a server or a CLI that loaded them would do; otherwise
    # full collections over millions of objects stall whatever runs next
    gc.disable()
    t0 = time.perf_counter()
    knowledge = synth.generate(stats, n_ops, seed=seed, name=f"bench-{scale:g}x")
    gen_s = time.perf_counter() - t0
    nodes, edges, _ = synth.graph_size(knowledge)
    t0 = time.perf_counter()
    index = planning_index(knowledge)
    index_s = time.perf_counter() - t0
    gc.collect()
    gc.freeze()
    gc.enable()
    trav_s = min(timed(partial(full_traversal, index))[0] for _ in range(5))
    res = ScaleResult(scale, n_ops, nodes, edges, len(knowledge.tools), gen_s, index_s, trav_s)
    log(f"[{scale:g}x] {n_ops} operations, {len(knowledge.tools)} tools, {nodes} nodes, {edges} edges; "
        f"generated in {gen_s:.1f}s, index {index_s:.2f}s, full traversal {trav_s * 1000:.2f} ms")
    instances = synth.instances(knowledge, seed=seed + 1, hops_range=hops, anchors_range=anchors, per_cell=per_cell)
    for inst in instances:
        spec = inst.spec
        # production: measured `reps` times (medians of the whole, and of its two parts)
        total, build, search = [], [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            problem = ProblemBuilder(knowledge, spec).problem()
            t1 = time.perf_counter()
            raw = astar_plan(problem)
            t2 = time.perf_counter()
            total.append(t2 - t0)
            build.append(t1 - t0)
            search.append(t2 - t1)
        row = {"hops": inst.hops, "anchors": inst.anchors, "plan_seconds": statistics.median(total),
               "build_seconds": statistics.median(build), "astar_seconds": statistics.median(search),
               "actions": len(problem.actions),
               "cost": raw.cost if raw else None,
               "depth": synth.chain_depth(problem, raw.actions) if raw else None}
        if stage:
            row["stage_seconds"], _ = timed(partial(_stage, knowledge, spec), 1)
        # the plain BFS on the same Problem, and the original design's BFS on the whole graph
        tb, braw = timed(partial(bfs_plan, problem, time_limit=bfs_limit), 1)
        row.update(bfs_same_seconds=tb, bfs_same_timeout=braw is None and tb >= bfs_limit,
                   bfs_same_cost=braw.cost if braw else None)
        if whole_graph:
            tw, wraw = timed(partial(_whole_graph_bfs, knowledge, spec, bfs_limit), 1)
            row.update(bfs_whole_seconds=tw, bfs_whole_timeout=wraw is None and tw >= bfs_limit,
                       bfs_whole_cost=wraw.cost if wraw else None)
        if fd is not None:
            # the oracle solves the region before relevance pruning (so it checks the pruning too),
            # and at 1x the whole context-pruned graph (so it checks the region as well)
            region = ProblemBuilder(knowledge, spec).problem(relevant=False)
            out = fd.solve(region, knowledge, spec)
            row.update(fd_seconds=out["seconds"], fd_search_seconds=out["search_seconds"], fd_cost=out["cost"],
                       fd_actions=out["actions"])
            row["fd_agrees"] = _same(out["cost"], row["cost"])
            if fd_whole:
                whole = whole_graph_problem(knowledge, spec)
                out = fd.solve(whole, knowledge, spec)
                row.update(fd_whole_seconds=out["seconds"], fd_whole_cost=out["cost"], fd_whole_actions=out["actions"])
                row["fd_agrees"] = row["fd_agrees"] and _same(out["cost"], row["cost"])
            if n_up > 0:
                n_up -= 1
                out = fd.solve_up(region, knowledge, spec)
                row.update(up_seconds=out["seconds"], up_parse_seconds=out["parse_seconds"], up_cost=out["cost"])
                row["fd_agrees"] = row["fd_agrees"] and _same(out["cost"], row["cost"])
        res.rows.append(row)
    ts = [r["plan_seconds"] for r in res.rows]
    log(f"[{scale:g}x] {len(res.rows)} instances: plan p50 {pct(ts, .5) * 1000:.2f} ms, "
        f"p95 {pct(ts, .95) * 1000:.2f} ms, max {max(ts) * 1000:.2f} ms")
    del knowledge, index
    gc.unfreeze()
    gc.collect()
    from bioplan.planner import index as index_module

    index_module._MEMO.clear()
    synth._CACHE.clear()
    return res


def _whole_graph_bfs(knowledge, spec, bfs_limit: float):
    """The original design's search: a plain BFS over the whole graph (its Problem built inside the timing)."""
    return bfs_plan(whole_graph_problem(knowledge, spec), time_limit=bfs_limit)


def _stage(knowledge, spec):
    """The whole search + rank stage (best plan, alternatives, wiring, ranking; top 3)."""
    from bioplan.errors import BioplanError

    try:
        return search_plans(knowledge, spec, top_k=3)
    except BioplanError as exc:  # the best plan is deeper than max_hops: refused with a reason
        return exc


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) < 1e-6


# --------------------------------------------------------------------------- CLI vs import floor


def cli_benchmark(python: str, reps: int, log=print) -> dict:
    """`bioplan plan` on the shipped knowledge (the five reference examples) vs the bare import
    of the third-party modules it loads (same interpreter, warm knowledge cache)."""
    from bioplan.evaluate import example_data

    work = Path(tempfile.mkdtemp(prefix="bioplan-bench-cli-"))
    example_data.generate(work / "data")
    env = _bench_env(work / "cache")
    cases = plan_cases(python, work / "data")
    for cmd in cases:  # warm the knowledge and index caches (and the OS file cache)
        subprocess.run(cmd, env=env, check=True, capture_output=True)
    # the third-party modules `bioplan plan` imports: the floor imports exactly those
    out = subprocess.run([python, "-X", "importtime"] + cases[0][1:], env=env, check=True, capture_output=True,
                         text=True)
    modules = _direct_dependencies(out.stderr)
    packages = sorted({m.split(".")[0] for m in modules})
    # in the run's order; a module the run only tried (rapidfuzz's SSE2 fallback on an AVX2 machine)
    # is tried here too
    floor_cmd = _floor_command(python, modules)
    floor, cli = [], []
    for _ in range(reps):
        for cmd in cases:
            floor.append(_timed_run(floor_cmd, env))
            cli.append(_timed_run(cmd, env))
    bare = [_timed_run([python, "-c", "pass"], env) for _ in range(reps)]

    def median(runs, i):
        return statistics.median(r[i] for r in runs)

    result = {"reps": reps, "cases": len(cases), "floor_packages": packages, "floor_module_count": len(modules),
              "cli_seconds": median(cli, 0), "floor_seconds": median(floor, 0), "python_seconds": median(bare, 0),
              "cli_cpu_seconds": median(cli, 1), "floor_cpu_seconds": median(floor, 1),
              "python_cpu_seconds": median(bare, 1),
              "cli_over_import_floor": median(cli, 0) / median(floor, 0),
              "cli_cpu_over_import_floor": median(cli, 1) / median(floor, 1),
              "breakdown": _breakdown(python, cases[0], env)}
    log(f"[cli] bioplan plan {result['cli_seconds'] * 1000:.0f} ms (CPU {result['cli_cpu_seconds'] * 1000:.0f}), "
        f"import floor ({len(modules)} modules of {', '.join(packages)}) {result['floor_seconds'] * 1000:.0f} ms "
        f"(CPU {result['floor_cpu_seconds'] * 1000:.0f}), bare python {result['python_seconds'] * 1000:.0f} ms")
    result["compile"] = compile_benchmark(python, cases[0], work, env, reps, log)
    return result


EXAMPLES = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")


def _bench_env(cache: Path, data_root: Path | None = None) -> dict[str, str]:
    """The environment of a measured command: its own knowledge cache, and the shipped knowledge
    unless `data_root` names another (BIOPLAN_DATA_ROOT: ontology/, motifs/, templates/)."""
    # as installed: Python writes bytecode caches unless told not to, and a PYTHONDONTWRITEBYTECODE
    # inherited from a development shell would make every run recompile bioplan's modules from
    # source (~100 ms) while the floor's site-packages modules keep their caches
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["BIOPLAN_CACHE_DIR"] = str(cache)
    if data_root is not None:
        env["BIOPLAN_DATA_ROOT"] = str(data_root)
    return env


def plan_cases(python: str, data: Path) -> list[list[str]]:
    """`bioplan plan` of each reference example (request.txt, inputs.txt) on its generated data."""
    cases = []
    for cls in EXAMPLES:
        request = (ROOT / "examples" / cls / "request.txt").read_text(encoding="utf-8").strip()
        files = [str(data / cls / line) for line in
                 (ROOT / "examples" / cls / "inputs.txt").read_text().splitlines() if line.strip()]
        cases.append([python, "-m", "bioplan.cli", "plan", request] + sum((["-i", f] for f in files), []))
    return cases


def _timed_run(cmd, env, cwd=None) -> tuple[float, float]:
    """(wall, CPU) seconds of one command; CPU is user + system of the process and its children,
    which shared cores inflate far less than the wall clock. The CPU time is the one `wait4` reports
    for the reaped process (its own and its waited-for children's, in microseconds): `os.times()`
    counts children in 10 ms clock ticks, 5 % of the floor's ~0.2 s, coarser than what a change moves."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise subprocess.CalledProcessError(proc.returncode, cmd, stderr=err.read())
    return wall, usage.ru_utime + usage.ru_stime


def compile_benchmark(python: str, plan_cmd: list[str], work: Path, env, reps: int, log=print) -> dict:
    """`bioplan compile` of the bulk RNA-seq example (with its `snakemake -n` pre-check), against
    compile without the pre-check and the pre-check's `snakemake -n` alone.

    The pre-check runs snakemake without its executor plugins (and SLURM_CONF=/dev/null): with the
    SLURM executor plugin installed (bioplan[slurm]), a plain snakemake start imports pandas for it
    and runs `scontrol show config`, which waits ~9 s where SLURM's client tools exist but no
    controller answers. One plain `snakemake -n` in the unchanged environment shows what that
    costs on this machine."""
    args = plan_cmd[4:]  # the request and its -i FILE pairs
    out = work / "compiled"
    full = [python, "-m", "bioplan.cli", "compile", *args, "-o", str(out / "Snakefile"), "--force"]
    bare = [python, "-m", "bioplan.cli", "compile", *args, "-o", str(work / "unchecked" / "Snakefile"), "--force",
            "--no-validate"]
    from bioplan.validate.snakemake_checks import _snakemake

    dry = ["-n", "--cores", "1", "--quiet", "rules"]
    precheck = [python if a == sys.executable else a for a in _snakemake()] + dry  # as the pre-check runs it
    beside = Path(python).parent / "snakemake"
    console = ([str(beside)] if beside.exists() else [python, "-m", "snakemake"]) + dry  # as a user runs it
    quiet_slurm = {**env, "SLURM_CONF": os.devnull}
    runs = {"compile": [], "compile_no_validate": [], "dry_run": []}
    subprocess.run(full, env=env, check=True, capture_output=True)  # warm caches; writes `out`
    for _ in range(reps):
        runs["compile"].append(_timed_run(full, env))
        runs["compile_no_validate"].append(_timed_run(bare, env))
        runs["dry_run"].append(_timed_run(precheck, quiet_slurm, cwd=out))
    as_is = _timed_run(console, env, cwd=out)
    result = {"reps": reps}
    for key, values in runs.items():
        result[f"{key}_seconds"] = statistics.median(w for w, _ in values)
        result[f"{key}_min_seconds"] = min(w for w, _ in values)
        result[f"{key}_cpu_seconds"] = statistics.median(c for _, c in values)
    result["dry_run_unchanged_env_seconds"] = as_is[0]
    result["slurm_plugin"] = _installed("snakemake-executor-plugin-slurm")
    log(f"[compile] bulk_de {result['compile_seconds']:.2f} s (min {result['compile_min_seconds']:.2f}, "
        f"CPU {result['compile_cpu_seconds']:.2f}); without pre-check {result['compile_no_validate_seconds']:.2f} s; "
        f"snakemake -n {result['dry_run_seconds']:.2f} s, in the unchanged environment {as_is[0]:.2f} s")
    return result


def _installed(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _floor_command(python: str, modules: list[str]) -> list[str]:
    """A Python run that imports `modules` in order (one it cannot import is skipped, as the measured run did)."""
    code = (f"import importlib\nfor m in {modules!r}:\n    try:\n        importlib.import_module(m)\n"
            "    except ImportError:\n        pass")
    return [python, "-c", code]


def _direct_dependencies(importtime: str) -> list[str]:
    """Every module of bioplan's declared dependencies that a run imported, in import order.

    Whole dotted names, not only the top-level package: `import pydantic` alone is lazy (it loads
    BaseModel's machinery, ~90 modules, on first use), so a floor of top-level names would leave
    out most of what any pydantic user pays at import."""
    declared = {re.split(r"[;\[=<>]", r, maxsplit=1)[0].strip().lower().replace("_", "-")
                for r in importlib.metadata.requires("bioplan") or [] if "extra ==" not in r}
    dists = importlib.metadata.packages_distributions()
    out: list[str] = []
    for line in importtime.splitlines():
        if line.startswith("import time:") and "|" in line and "imported package" not in line:
            name = line.rsplit("|", 1)[1].strip()
            owners = {d.lower().replace("_", "-") for d in dists.get(name.split(".")[0], [])}
            if owners & declared and name not in out:
                out.append(name)
    return out


def _breakdown(python: str, cmd: list[str], env) -> dict:
    """Where one `bioplan plan` call spends its time (in-process, after the imports)."""
    code = r"""
import json, sys, time
clock = time.process_time  # CPU time: the machine may be shared
t0 = clock()
import bioplan.cli, bioplan.compile, bioplan.report
t1 = clock()
from bioplan.knowledge.load import load_knowledge
from bioplan.request.parse import parse_request
from bioplan.compile import sniff_with_declarations
from bioplan.request.spec import build_spec
from bioplan.planner.plan import search_plans
from bioplan.planner.bind import bind_plan
query, files = sys.argv[1], sys.argv[2:]
t = {"import bioplan": t1 - t0}
s = clock(); k = load_knowledge(); t["load knowledge (cached)"] = clock() - s
s = clock(); req = parse_request(query, k); t["parse request"] = clock() - s
s = clock(); prof = sniff_with_declarations(k, files, {}); t["sniff inputs"] = clock() - s
s = clock(); spec = build_spec(req, prof, k); t["task spec"] = clock() - s
s = clock(); res = search_plans(k, spec); t["search + rank"] = clock() - s
s = clock(); [bind_plan(k, spec, p) for p in res.plans]; t["bind"] = clock() - s
print(json.dumps(t))
"""
    query = cmd[4]
    files = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-i"]
    out = subprocess.run([python, "-c", code, query, *files], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- two commits side by side


def code_at(commit: str, dest: Path) -> Path:
    """The whole tree of `commit` (code, knowledge, templates) extracted under `dest`; a command run
    with PYTHONPATH=dest/compiler imports that commit's bioplan, which reads its own knowledge."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit], check=True,
                             capture_output=True).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def side_by_side(python: str, commits: dict[str, str], reps: int, log=print) -> dict:
    """`--cli-only --against REV`: `bioplan plan` against its import floor and `bioplan compile` (with
    and without its pre-check) for two commits' trees (committed: never a file another engineer is
    half-way through editing), runs interleaved and alternating which goes first, so that the load
    of a shared machine weighs on both alike. Each commit's floor is taken from its own command."""
    from bioplan.evaluate import example_data

    with tempfile.TemporaryDirectory(prefix="bioplan-bench-ab-") as tmp:
        work = Path(tmp)
        example_data.generate(work / "data", list(EXAMPLES))
        envs = {}
        for name, commit in commits.items():
            envs[name] = _bench_env(work / f"cache-{name}")
            envs[name]["PYTHONPATH"] = str(code_at(commit, work / name) / "compiler")
        return _side_by_side_runs(python, commits, envs, work, reps, log)


def _side_by_side_runs(python: str, commits: dict[str, str], envs: dict, work: Path, reps: int, log) -> dict:
    cases = plan_cases(python, work / "data")
    compiles = {(k, v): [python, "-m", "bioplan.cli", "compile", *cases[0][4:], "-o", str(work / f"out-{k}-{v}"),
                         "--force", *(["--no-validate"] if v == "no_validate" else [])]
                for k in commits for v in ("compile", "no_validate")}
    floors = {}
    for k, env in envs.items():  # warm the caches; each commit's floor from its own run
        for cmd in [*cases, compiles[k, "compile"], compiles[k, "no_validate"]]:
            subprocess.run(cmd, env=env, check=True, capture_output=True)
        out = subprocess.run([python, "-X", "importtime"] + cases[0][1:], env=env, check=True, capture_output=True,
                             text=True)
        floors[k] = _floor_command(python, _direct_dependencies(out.stderr))
    load = [os.getloadavg()[0]]
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for rep in range(reps):
        order = list(commits) if rep % 2 == 0 else list(reversed(commits))
        for cmd in cases:
            for k in order:
                runs.setdefault((k, "floor"), []).append(_timed_run(floors[k], envs[k]))
                runs.setdefault((k, "plan"), []).append(_timed_run(cmd, envs[k]))
        for k in order:
            for v in ("compile", "no_validate"):
                runs.setdefault((k, v), []).append(_timed_run(compiles[k, v], envs[k]))
        load.append(os.getloadavg()[0])
    result: dict = {"reps": reps, "load_average": [round(min(load), 1), round(max(load), 1)], "commits": commits}
    for k in commits:
        m = {what: _medians(runs[k, what], what) for what in ("floor", "plan", "compile", "no_validate")}
        result[k] = {**{key: round(v, 4) for d in m.values() for key, v in d.items()},
                     "compile_min_seconds": round(min(w for w, _ in runs[k, "compile"]), 4),
                     "plan_over_floor": round(m["plan"]["plan_seconds"] / m["floor"]["floor_seconds"], 3),
                     "plan_cpu_over_floor": round(m["plan"]["plan_cpu_seconds"] / m["floor"]["floor_cpu_seconds"], 3),
                     "per_example": per_example_cpu(runs[k, "plan"], runs[k, "floor"], len(cases))}
        log(f"[{k} {commits[k][:10]}] {json.dumps(result[k])}")
    return result


def per_example_cpu(plan: list[tuple[float, float]], floor: list[tuple[float, float]], n_cases: int) -> dict:
    """Per reference example (runs are in case order within each round): the plan's CPU over the
    floor's, as the fastest runs (min / min: the load of a shared machine only adds) and as medians
    (median / median). The floor is the same command for every example (see `cli_benchmark`)."""
    floor_cpu = [c for _, c in floor]
    out = {}
    for i, name in enumerate(EXAMPLES[:n_cases]):
        cpu = [c for _, c in plan[i::n_cases]]
        out[name] = {"min_cpu_ratio": round(min(cpu) / min(floor_cpu), 3),
                     "median_cpu_ratio": round(statistics.median(cpu) / statistics.median(floor_cpu), 3),
                     "min_cpu_seconds": round(min(cpu), 4), "median_cpu_seconds": round(statistics.median(cpu), 4)}
    return out


def side_by_side_markdown(result: dict) -> list[str]:
    names = list(result["commits"])
    lines = [f"`--cli-only --against`, {result['reps']} rounds, load average {result['load_average'][0]}-"
             f"{result['load_average'][1]}; medians, wall / CPU:", "",
             "| measure | " + " | ".join(f"{n} (`{result['commits'][n][:10]}`)" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    for label, key in (("import floor", "floor"), ("`bioplan plan` (5 examples)", "plan"),
                       ("`bioplan compile` bulk example, with pre-check", "compile"),
                       ("`bioplan compile ... --no-validate`", "no_validate")):
        lines.append(f"| {label} | " + " | ".join(
            f"{result[n][key + '_seconds']:.3f} s / {result[n][key + '_cpu_seconds']:.3f} s" for n in names) + " |")
    lines.append("| plan / floor | " + " | ".join(
        f"{result[n]['plan_over_floor']:.2f} / {result[n]['plan_cpu_over_floor']:.2f}" for n in names) + " |")
    lines.append("| compile with pre-check, fastest run | " + " | ".join(
        f"{result[n]['compile_min_seconds']:.2f} s" for n in names) + " |")
    for example in result[names[0]].get("per_example", {}):
        lines.append(f"| plan / floor CPU, {example} (min; median) | " + " | ".join(
            f"{result[n]['per_example'][example]['min_cpu_ratio']:.2f}; "
            f"{result[n]['per_example'][example]['median_cpu_ratio']:.2f}" for n in names) + " |")
    return lines


# --------------------------------------------------------------------------- growth of the knowledge base

# Issue 18: as the knowledge base grows, `bioplan plan` and `bioplan compile` may take at most 20 % longer.
GROWTH_LIMIT = 0.20
GROWTH_FILE = HERE / "growth_baseline.json"


def knowledge_data_at(commit: str, dest: Path) -> Path:
    """ontology/, motifs/ and templates/ as they were at `commit` (git archive), extracted under `dest`:
    a BIOPLAN_DATA_ROOT that runs today's code on that day's knowledge base."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "ontology", "motifs",
                              "templates"], check=True, capture_output=True).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def knowledge_size(data_root: Path) -> dict[str, int]:
    """How many tools, operations and datatypes the knowledge under `data_root` declares."""
    import yaml

    onto = data_root / "ontology"

    def entries(name: str, key: str) -> int:
        return len(yaml.safe_load((onto / name).read_text(encoding="utf-8"))[key])

    return {"tools": len(list((onto / "tools").glob("*.yaml"))), "operations": entries("operations.yaml", "operations"),
            "datatypes": entries("datatypes.yaml", "datatypes")}


def growth_flags(baseline: dict[str, float], current: dict[str, float], limit: float = GROWTH_LIMIT) -> dict:
    """current / baseline for every measure both have, and the measures that grew by more than `limit`."""
    ratios = {k: current[k] / baseline[k] for k in sorted(baseline) if k in current and baseline[k] > 0}
    return {"ratios": {k: round(v, 3) for k, v in ratios.items()}, "limit": limit,
            "grew": sorted(k for k, v in ratios.items() if v > 1 + limit)}


def _medians(runs: list[tuple[float, float]], name: str) -> dict[str, float]:
    return {f"{name}_seconds": statistics.median(w for w, _ in runs),
            f"{name}_cpu_seconds": statistics.median(c for _, c in runs)}


def growth_benchmark(python: str, commit: str, reps: int, log=print, current: bool = True) -> dict:
    """`bioplan plan` (the five reference examples) and `bioplan compile` (bulk RNA-seq, with its
    pre-check) on the knowledge base of `commit` and on the current one: the same code, runs
    interleaved (alternating which goes first), so that the load of a shared machine weighs on both.
    With `current=False`, only the knowledge base of `commit` (to record it)."""
    from bioplan.evaluate import example_data

    with tempfile.TemporaryDirectory(prefix="bioplan-bench-growth-") as tmp:
        work = Path(tmp)
        example_data.generate(work / "data", list(EXAMPLES))
        return _growth_runs(python, commit, work, reps, log, current)


def _growth_runs(python: str, commit: str, work: Path, reps: int, log, current: bool) -> dict:
    # the current knowledge base is HEAD's (committed: reproducible, and never a file another
    # engineer is half-way through editing); the measured code is the checkout's
    roots = {"baseline": knowledge_data_at(commit, work / "baseline")}
    head = _head()
    if current:
        roots["current"] = knowledge_data_at(head, work / "current")
    envs = {k: _bench_env(work / f"cache-{k}", root) for k, root in roots.items()}
    cases = plan_cases(python, work / "data")
    compiles = {k: [python, "-m", "bioplan.cli", "compile", *cases[0][4:], "-o", str(work / f"compiled-{k}"),
                    "--force"] for k in roots}
    for k, env in envs.items():  # warm the knowledge caches (a cache miss validates for seconds)
        for cmd in [*cases, compiles[k]]:
            subprocess.run(cmd, env=env, check=True, capture_output=True)
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {(k, m): [] for k in roots for m in ("plan", "compile")}
    for rep in range(reps):
        order = list(roots) if rep % 2 == 0 else list(reversed(roots))
        for cmd in cases:
            for k in order:
                runs[k, "plan"].append(_timed_run(cmd, envs[k]))
        for k in order:
            runs[k, "compile"].append(_timed_run(compiles[k], envs[k]))
    measured = {k: {**_medians(runs[k, "plan"], "plan"), **_medians(runs[k, "compile"], "compile")} for k in roots}
    result = {"commit": commit, "current_commit": head if current else None, "reps": reps,
              "load_average": round(os.getloadavg()[0], 1),
              "sizes": {k: knowledge_size(root) for k, root in roots.items()}, "measured": measured}
    if current:
        result["growth"] = growth_flags(measured["baseline"], measured["current"])
        log(f"[growth] {json.dumps(result['growth'])}")
    return result


def _head() -> str:
    """The commit of the measured code (bioplan's, the benchmark's)."""
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def record_growth_baseline(result: dict) -> dict:
    """The recorded numbers of the baseline knowledge base (benchmarks/growth_baseline.json)."""
    return {"about": "bioplan plan / compile time on the knowledge base of `commit` (issue 18: at most +20 % as it "
                     "grows); written by `python benchmarks/run.py --record-growth COMMIT`, compared by --growth",
            "commit": result["commit"], "code_commit": _head(),
            "measured_at": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
            "load_average": result["load_average"], "cpus": os.cpu_count(), "reps": result["reps"],
            "size": result["sizes"]["baseline"], "measured": result["measured"]["baseline"]}


def growth_markdown(result: dict, recorded: dict | None = None) -> list[str]:
    """The table of plan and compile time at the recorded size and now, and their ratio."""
    sizes, m = result["sizes"], result["measured"]
    lines = ["", f"### Knowledge base growth: {result['commit'][:10]} vs {str(result.get('current_commit'))[:10]}", "",
             f"{result['reps']} interleaved runs each (plan: the five reference examples; compile: bulk RNA-seq "
             f"with its pre-check), medians; load average {result['load_average']}; limit "
             f"+{result['growth']['limit']:.0%}:", "",
             "| measure | " + f"{sizes['baseline']['tools']} tools / {sizes['baseline']['operations']} operations | "
             + f"{sizes['current']['tools']} tools / {sizes['current']['operations']} operations | ratio | |",
             "|---|---|---|---|---|"]
    for key, ratio in result["growth"]["ratios"].items():
        mark = "**grew**" if key in result["growth"]["grew"] else "ok"
        lines.append(f"| {key} | {m['baseline'][key] * 1000:.0f} ms | {m['current'][key] * 1000:.0f} ms "
                     f"| {ratio:.2f} | {mark} |")
    if recorded:
        against = growth_flags(recorded["measured"], m["current"])
        lines += ["", f"Against the numbers recorded at {recorded['measured_at']} (load {recorded['load_average']}; "
                  "another load makes these ratios far noisier than the side-by-side ones): "
                  + ", ".join(f"{k} {v:.2f}" for k, v in against["ratios"].items())]
    return lines


# --------------------------------------------------------------------------- report


def summarise(results: list[ScaleResult], cli: dict | None, quick: bool) -> dict:
    by = {r.scale: r for r in results}
    one = by.get(1.0)
    rows1 = one.rows if one else []
    all_rows = [row for r in results for row in r.rows]
    fd_rows = [row for row in all_rows if "fd_agrees" in row]

    def ratio(rows, key):
        return geomean(row[key] / row["plan_seconds"] for row in rows if row.get(key) is not None)

    hundred = by.get(100.0)
    out = {
        "plan_p95_over_traversal_1x": (pct([x["plan_seconds"] for x in rows1], .95) / one.traversal_seconds
                                       if one else None),
        "plan_p95_seconds_100x": pct([x["plan_seconds"] for x in hundred.rows], .95) if hundred else None,
        "bfs_over_search_1x": ratio(rows1, "bfs_whole_seconds") if rows1 and "bfs_whole_seconds" in rows1[0]
        else None,
        "bfs_same_problem_over_astar_1x": geomean(x["bfs_same_seconds"] / x["astar_seconds"] for x in rows1),
        "bfs_timeouts_1x": sum(1 for x in rows1 if x.get("bfs_whole_timeout")),
        "bfs_same_problem_timeouts_1x": sum(1 for x in rows1 if x.get("bfs_same_timeout")),
        "bfs_same_problem_costlier_1x": sum(1 for x in rows1 if x.get("bfs_same_cost") is not None
                                            and x["bfs_same_cost"] > x["cost"] + 1e-9),
        "fast_downward_over_search_1x": ratio(rows1, "fd_seconds") if fd_rows else None,
        "fast_downward_search_only_over_search_1x": ratio(rows1, "fd_search_seconds") if fd_rows else None,
        "optimal_cost_agreement": (sum(1 for x in fd_rows if x["fd_agrees"]) / len(fd_rows)) if fd_rows else None,
        "fd_instances": len(fd_rows),
        "cli_over_import_floor": cli["cli_over_import_floor"] if cli else None,
        "cli_cpu_over_import_floor": cli["cli_cpu_over_import_floor"] if cli else None,
        "compile_seconds_bulk_de": cli["compile"]["compile_seconds"] if cli else None,
        "plan_p95_seconds": {f"{r.scale:g}x": pct([x["plan_seconds"] for x in r.rows], .95) for r in results},
        "instances": len(all_rows),
        "quick": quick,
    }
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


def plot(results: list[ScaleResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    ax = axes[0]
    sizes = [r.edges for r in results]
    ax.plot(sizes, [pct([x["plan_seconds"] for x in r.rows], .5) * 1000 for r in results], "o-", label="plan p50")
    ax.plot(sizes, [pct([x["plan_seconds"] for x in r.rows], .95) * 1000 for r in results], "s-", label="plan p95")
    ax.plot(sizes, [r.traversal_seconds * 1000 for r in results], "^--", label="one full traversal")
    if all("bfs_whole_seconds" in r.rows[0] for r in results if r.rows):
        ax.plot(sizes, [pct([x["bfs_whole_seconds"] for x in r.rows], .5) * 1000 for r in results], "x:",
                label="original BFS p50 (capped)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("graph edges")
    ax.set_ylabel("ms")
    ax.set_title("plan time vs graph size")
    ax.legend(fontsize=8)
    for ax, key, label in ((axes[1], "hops", "path length (operations on the longest chain)"),
                           (axes[2], "anchors", "must-pass anchors")):
        for r in results:
            xs = sorted({x[key] for x in r.rows})
            ax.plot(xs, [statistics.median([x["plan_seconds"] for x in r.rows if x[key] == v]) * 1000 for v in xs],
                    "o-", label=f"{r.scale:g}x")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("median plan ms")
        ax.set_title(f"plan time vs {key}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def cli_markdown(cli: dict) -> list[str]:
    """The README section of `bioplan plan` vs its import floor and `bioplan compile`."""
    lines: list[str] = []
    lines += ["", "### CLI on the shipped knowledge base", "",
              f"`bioplan plan` on the five reference examples, {cli['reps']} runs each, medians (the floor "
              "imports the third-party modules the command imports, in the same interpreter):", "",
              "| command | median wall | median CPU |", "|---|---|---|",
              f"| `python -c pass` | {cli['python_seconds'] * 1000:.0f} ms "
              f"| {cli['python_cpu_seconds'] * 1000:.0f} ms |",
              f"| import floor: the {cli['floor_module_count']} modules of {', '.join(cli['floor_packages'])} "
              f"that the command imports | {cli['floor_seconds'] * 1000:.0f} ms "
              f"| {cli['floor_cpu_seconds'] * 1000:.0f} ms |",
              f"| `bioplan plan ...` | {cli['cli_seconds'] * 1000:.0f} ms | {cli['cli_cpu_seconds'] * 1000:.0f} ms |",
              f"| ratio | {cli['cli_over_import_floor']:.2f} | {cli['cli_cpu_over_import_floor']:.2f} |", "",
              "Inside one call (bulk_de, in-process, after interpreter start; CPU time):", "",
              "| part | ms |", "|---|---|"]
    for k, v in cli["breakdown"].items():
        lines.append(f"| {k} | {v * 1000:.1f} |")
    c = cli.get("compile")
    if c:
        lines += ["", "### `bioplan compile` of the bulk RNA-seq example", "",
                  f"{c['reps']} runs, median wall clock (min) and median CPU time of the process and its "
                  f"children; SLURM executor plugin "
                  f"{'installed (' + c['slurm_plugin'] + ')' if c['slurm_plugin'] else 'not installed'}:", "",
                  "| command | wall | min | CPU |", "|---|---|---|---|"]
        for key, label in (("compile", "`bioplan compile ...` (with its `snakemake -n` pre-check)"),
                           ("compile_no_validate", "`bioplan compile ... --no-validate`"),
                           ("dry_run", "the pre-check alone: `snakemake -n` without executor plugins, "
                                       "SLURM_CONF=/dev/null")):
            lines.append(f"| {label} | {c[key + '_seconds']:.2f} s | {c[key + '_min_seconds']:.2f} s "
                         f"| {c[key + '_cpu_seconds']:.2f} s |")
        lines.append(f"| `snakemake -n` as a user runs it, in the unchanged environment (one run) | "
                     f"{c['dry_run_unchanged_env_seconds']:.2f} s | | |")
    return lines


def markdown(results: list[ScaleResult], cli: dict | None, summary: dict, real: dict, synthetic: dict,
             fd: FastDownward | None) -> str:
    lines = [f"Measured by `python benchmarks/run.py` on {os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
             + (f", {fd.version}" if fd else "") + ".", ""]
    lines += ["### Headline", "", "| measure | value | target |", "|---|---|---|"]
    targets = {"plan_p95_over_traversal_1x": "< 5", "plan_p95_seconds_100x": "< 1 s",
               "cli_over_import_floor": "< 2", "cli_cpu_over_import_floor": "< 2", "optimal_cost_agreement": "1.0",
               "compile_seconds_bulk_de": "<= 2 s"}
    for k in ("plan_p95_over_traversal_1x", "plan_p95_seconds_100x", "bfs_over_search_1x", "bfs_timeouts_1x",
              "bfs_same_problem_over_astar_1x", "bfs_same_problem_timeouts_1x", "bfs_same_problem_costlier_1x",
              "fast_downward_over_search_1x",
              "fast_downward_search_only_over_search_1x",
              "optimal_cost_agreement", "fd_instances", "cli_over_import_floor", "cli_cpu_over_import_floor",
              "compile_seconds_bulk_de"):
        lines.append(f"| `{k}` | {summary.get(k)} | {targets.get(k, '')} |")
    lines += ["", "### Graphs", "",
              "| scale | operations | tools | nodes | edges | generate | index | one full traversal |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.scale:g}x | {r.ops:,} | {r.tools:,} | {r.nodes:,} | {r.edges:,} "
                     f"| {r.generate_seconds:.1f} s "
                     f"| {r.index_seconds:.2f} s | {r.traversal_seconds * 1000:.2f} ms |")
    lines += ["", "### Structure: shipped knowledge base vs generated 1x graph", "",
              "| measurement | shipped | generated 1x |", "|---|---|---|"]
    for k in real:
        lines.append(f"| {k} | {real[k]:.3f} | {synthetic.get(k, float('nan')):.3f} |")
    lines += ["", "### Plan time by scale (ms)", "",
              "| scale | instances | p50 | p95 | max | p95 / traversal | top-3 stage p95 "
              "| BFS / A* on the same Problem (geo. ratio) "
              "| original BFS (geo. ratio, timeouts) | Fast Downward (geo. ratio) | FD agrees |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ts = [x["plan_seconds"] for x in r.rows]
        st = [x["stage_seconds"] for x in r.rows if "stage_seconds" in x]
        same = geomean(x["bfs_same_seconds"] / x["astar_seconds"] for x in r.rows)
        whole = [x for x in r.rows if "bfs_whole_seconds" in x]
        wtxt = (f"{geomean(x['bfs_whole_seconds'] / x['plan_seconds'] for x in whole):.1f}x, "
                f"{sum(x['bfs_whole_timeout'] for x in whole)}/{len(whole)}") if whole else "-"
        fdr = [x for x in r.rows if "fd_seconds" in x]
        ftxt = (f"{geomean(x['fd_seconds'] / x['plan_seconds'] for x in fdr):.0f}x "
                f"({geomean(x['fd_search_seconds'] / x['plan_seconds'] for x in fdr if x.get('fd_search_seconds')):.1f}"
                "x "
                "search only)") if fdr else "-"
        agree = f"{sum(x['fd_agrees'] for x in fdr)}/{len(fdr)}" if fdr else "-"
        lines.append(f"| {r.scale:g}x | {len(r.rows)} | {pct(ts, .5) * 1000:.2f} | {pct(ts, .95) * 1000:.2f} "
                     f"| {max(ts) * 1000:.2f} | {pct(ts, .95) / r.traversal_seconds:.2f} "
                     f"| {(pct(st, .95) * 1000) if st else float('nan'):.2f} | {same:.1f}x | {wtxt} | {ftxt} "
                     f"| {agree} |")
    for key, title in (("hops", "path length"), ("anchors", "must-pass anchors")):
        values = sorted({x[key] for r in results for x in r.rows})
        lines += ["", f"### Median plan time (ms) by {title}", "",
                  "| scale | " + " | ".join(str(v) for v in values) + " |", "|---" * (len(values) + 1) + "|"]
        for r in results:
            cells = []
            for v in values:
                sel = [x["plan_seconds"] for x in r.rows if x[key] == v]
                cells.append(f"{statistics.median(sel) * 1000:.2f}" if sel else "-")
            lines.append(f"| {r.scale:g}x | " + " | ".join(cells) + " |")
    if cli:
        lines += cli_markdown(cli)
    return "\n".join(lines) + "\n"


def write_readme(section: str) -> None:
    path = HERE / "README.md"
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(head + start + "\n" + section + end + tail, encoding="utf-8")


# --------------------------------------------------------------------------- main


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1x and a reduced 10x, under a minute; writes nothing")
    ap.add_argument("--no-fd", action="store_true", help="skip Fast Downward")
    ap.add_argument("--no-cli", action="store_true", help="skip the CLI measurement")
    ap.add_argument("--cli-only", action="store_true",
                    help="only `bioplan plan` vs the import floor and `bioplan compile` (7 runs each); writes nothing")
    ap.add_argument("--against", metavar="REV",
                    help="with --cli-only: REV's tree and HEAD's side by side (runs interleaved); prints, "
                         "writes nothing")
    ap.add_argument("--write", action="store_true", help="write README results and the plot (default for a full run)")
    ap.add_argument("--growth", action="store_true",
                    help="plan and compile time on the knowledge base recorded in growth_baseline.json vs now "
                         "(same code, interleaved runs); flags growth over 20 %%; writes nothing")
    ap.add_argument("--record-growth", metavar="COMMIT",
                    help="measure plan and compile time on COMMIT's knowledge base into growth_baseline.json")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    started = time.perf_counter()
    if args.growth or args.record_growth:
        return _growth_main(args.record_growth, log)
    if args.cli_only and args.against:
        head = _head()
        against = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.against], check=True,
                                 capture_output=True, text=True).stdout.strip()
        result = side_by_side(sys.executable, {"before": against, "after": head}, reps=7, log=log)
        print("\n".join(side_by_side_markdown(result)))
        print(json.dumps(result))
        return result
    if args.cli_only:
        cli = cli_benchmark(sys.executable, reps=7, log=log)
        summary = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in {
            "cli_over_import_floor": cli["cli_over_import_floor"],
            "cli_cpu_over_import_floor": cli["cli_cpu_over_import_floor"],
            "compile_seconds_bulk_de": cli["compile"]["compile_seconds"],
            "compile_cpu_seconds_bulk_de": cli["compile"]["compile_cpu_seconds"]}.items()}
        # issue 10's two targets, side by side from the same run
        summary["plan_within_2x_import_floor"] = cli["cli_over_import_floor"] <= 2.0
        summary["compile_within_2_seconds"] = cli["compile"]["compile_seconds"] <= 2.0
        summary["load_average"] = round(os.getloadavg()[0], 1)
        print("\n".join(cli_markdown(cli)))
        print(json.dumps(summary))
        return summary
    real_kb = load_knowledge()
    stats = synth.real_stats(real_kb)
    fd = None if args.no_fd else fast_downward()
    if fd is None and not args.no_fd:
        log("unified-planning / up-fast-downward not installed (pip install -e '.[bench]'): no Fast Downward oracle")
    n1 = synth.ops_for_scale(stats, 1.0, seed=args.seed)
    real_table = stats.table()
    synth_table = synth.real_stats(synth.generate(stats, n1, seed=args.seed)).table()
    if args.quick:
        plan = [(1.0, dict(per_cell=1, reps=3, bfs_limit=0.2, whole_graph=True, stage=True)),
                (10.0, dict(per_cell=1, reps=3, bfs_limit=0.2, whole_graph=False, stage=False,
                            hops=(2, 4, 6, 8), anchors=(0, 2)))]
    else:
        plan = [(1.0, dict(per_cell=2, reps=5, bfs_limit=2.0, whole_graph=True, stage=True, fd_whole=True)),
                (10.0, dict(per_cell=2, reps=5, bfs_limit=2.0, whole_graph=False, stage=True)),
                (100.0, dict(per_cell=2, reps=5, bfs_limit=2.0, whole_graph=False, stage=True))]
    results = []
    for scale, opts in plan:
        results.append(run_scale(stats, scale, seed=args.seed, fd=fd, log=log, n_ops=int(math.ceil(n1 * scale)),
                                 **opts))
    cli = None if args.no_cli else cli_benchmark(sys.executable, reps=2 if args.quick else 7, log=log)
    summary = summarise(results, cli, args.quick)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    if args.write or not args.quick:
        plot(results, HERE / "scaling.png")
        write_readme(markdown(results, cli, summary, real_table, synth_table, fd))
        (HERE / "results.json").write_text(json.dumps({"summary": summary, "scales": [
            {k: v for k, v in r.__dict__.items()} for r in results], "cli": cli}, indent=1, default=str) + "\n")
    print(json.dumps(summary))
    return summary


def _growth_main(record: str | None, log) -> dict:
    if record:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", record], check=True, capture_output=True,
                                text=True).stdout.strip()
        recorded = record_growth_baseline(growth_benchmark(sys.executable, commit, reps=7, log=log, current=False))
        GROWTH_FILE.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(recorded))
        return recorded
    recorded = json.loads(GROWTH_FILE.read_text(encoding="utf-8"))
    result = growth_benchmark(sys.executable, recorded["commit"], reps=7, log=log)
    print("\n".join(growth_markdown(result, recorded)))
    summary = {"growth_ratios": result["growth"]["ratios"], "grew_over_limit": result["growth"]["grew"],
               "sizes": result["sizes"], "commits": [result["commit"], result["current_commit"]],
               "load_average": result["load_average"]}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
