"""Run evaluation cases through the planner (and optionally the compiler) and score them.

    run_eval(cases_file) -> EvalReport: per-case results and the overall metrics

Each case is planned with `bioplan.compile.plan_request` exactly as `bioplan plan` would (same
knowledge, `--top K`); the rank-1 plan is checked against the case's expectations, the top-K
plans feed Recall@K. Metric definitions are in README.md beside this file.
"""

from __future__ import annotations

import contextlib
import fnmatch
import math
import shutil
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bioplan import __version__
from bioplan.errors import BioplanError
from bioplan.evaluate.cases import DEV_SET, Case, CaseFile, CaseFileError, load_cases
from bioplan.evaluate.fixtures import ensure_data, needed_classes, resolve_inputs, write_fixtures
from bioplan.knowledge.load import load_knowledge
from bioplan.knowledge.models import Knowledge
from bioplan.knowledge.queries import is_subtype
from bioplan.models import Plan, PlanResult

# Expectation kinds, in the order failures are reported.
CHECKS = ("error", "operations", "absent", "order", "target", "constraints", "tools", "workflow_type",
          "input_types")
# Headline accuracy metric of an expectation kind (the others appear under `checks`).
_ACCURACY = {"target": "target_accuracy", "constraints": "constraint_accuracy", "tools": "tool_accuracy"}


@dataclass
class CaseResult:
    id: str
    lang: str
    tags: list[str]
    expected_error: str | None
    passed: bool = False
    failures: list[str] = field(default_factory=list)
    checks: dict[str, bool] = field(default_factory=dict)
    error: dict[str, str] | None = None  # {"code", "message"} when bioplan refused the request
    crash: str | None = None  # a Python exception other than BioplanError (a bug in bioplan)
    fixture_problem: str | None = None  # the case's input files could not be made (the case fails)
    recall_at_1: float | None = None
    recall_at_k: float | None = None
    latency_ms: float | None = None
    target: str | None = None
    constraint_ids: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)  # rank-1 plan: "operation[tool]"
    compile: dict[str, Any] | None = None


@dataclass
class EvalReport:
    cases_file: str
    top_k: int
    compiled: bool
    metrics: dict[str, float | int | None]
    breakdown: dict[str, dict[str, dict[str, float | int]]]
    cases: list[CaseResult]
    filtered: bool = False
    baseline: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"bioplan_version": __version__, "cases_file": self.cases_file, "top_k": self.top_k,
               "compiled": self.compiled, "metrics": self.metrics, "breakdown": self.breakdown,
               "cases": [asdict(c) for c in self.cases]}
        if self.baseline is not None:
            out["baseline"] = self.baseline
        return out


# --------------------------------------------------------------------------- checking one case


def _ops(plan: Plan) -> set[str]:
    return {s.operation for s in plan.steps}


def _reaches(plan: Plan, a: str, b: str) -> bool:
    """Some step running operation `a` feeds (directly or not) some step running `b`."""
    succ: dict[str, list[str]] = {}
    for x, y in plan.edges:
        succ.setdefault(x, []).append(y)
    op_of = {s.id: s.operation for s in plan.steps}
    for start in (s.id for s in plan.steps if s.operation == a):
        seen, stack = {start}, [start]
        while stack:
            for nxt in succ.get(stack.pop(), ()):
                if op_of.get(nxt) == b:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return False


def _recall(expected: tuple[str, ...], plans: tuple[Plan, ...]) -> float:
    want = set(expected)
    return max((len(want & _ops(p)) / len(want) for p in plans), default=0.0)


def check_plan(case: Case, result: PlanResult, knowledge: Knowledge) -> tuple[dict[str, bool], list[str]]:
    """The rank-1 plan against every expectation of the case: {kind: ok}, failure messages."""
    e, spec, plan = case.expect, result.spec, result.plans[0]
    ops = _ops(plan)
    checks: dict[str, bool] = {}
    fail: list[str] = []

    def record(kind: str, problems: list[str]) -> None:
        checks[kind] = not problems
        fail.extend(f"{kind}: {p}" for p in problems)

    if e.error:
        record("error", [f"expected error {e.error}, got a plan"])
    if e.operations:
        record("operations", [f"missing {op}" for op in e.operations if op not in ops])
    if e.absent:
        record("absent", [f"has {op}" for op in e.absent if op in ops])
    if e.order:
        record("order", [f"{a} does not feed {b}" + ("" if a in ops and b in ops else " (not both in the plan)")
                         for a, b in e.order if not _reaches(plan, a, b)])
    if e.target or e.target_format:
        problems = []
        got = spec.target_output
        if e.target and got.semantic_type != e.target:
            problems.append(f"target {got.semantic_type}, expected {e.target}")
        elif e.target and not any(is_subtype(knowledge, d, e.target)
                                  for s in plan.steps for d in s.outputs.values()):
            problems.append(f"no step of the plan produces {e.target}")
        if e.target_format and got.format != e.target_format:
            problems.append(f"target format {got.format}, expected {e.target_format}")
        record("target", problems)
    if e.constraints or e.constraints_absent:
        have = set(spec.constraint_ids)
        record("constraints", [f"missing {k}" for k in e.constraints if k not in have]
               + [f"has {k}" for k in e.constraints_absent if k in have])
    if e.tools or e.tools_absent:
        problems = []
        for op, tool in e.tools.items():
            bound = sorted({s.tool or "-" for s in plan.steps if s.operation == op})
            if tool not in bound:
                problems.append(f"{op} bound to {', '.join(bound)}, expected {tool}" if bound
                                else f"no {op} step for {tool}")
        problems += [f"uses {t}" for t in e.tools_absent if any(s.tool == t for s in plan.steps)]
        record("tools", problems)
    if e.workflow_type:
        record("workflow_type", [] if spec.workflow_type == e.workflow_type
               else [f"{spec.workflow_type}, expected {e.workflow_type}"])
    if e.input_types:
        record("input_types", [f"missing {d} (got {', '.join(spec.input_types) or 'none'})"
                               for d in e.input_types if d not in spec.input_types])
    return checks, fail


def _kinds(case: Case) -> list[str]:
    e = case.expect
    present = {"error": e.error, "operations": e.operations, "absent": e.absent, "order": e.order,
               "target": e.target or e.target_format, "constraints": e.constraints or e.constraints_absent,
               "tools": e.tools or e.tools_absent, "workflow_type": e.workflow_type, "input_types": e.input_types}
    return [k for k in CHECKS if present[k]]


def run_case(case: Case, inputs: list[str], declared: dict[str, str], knowledge: Knowledge,
             top_k: int) -> CaseResult:
    from bioplan.compile import plan_request

    res = CaseResult(id=case.id, lang=case.language, tags=list(case.tags), expected_error=case.expect.error)
    start = time.perf_counter()
    try:
        result = plan_request(case.request, inputs, knowledge, top_k=top_k, declared=declared)
    except BioplanError as exc:
        res.latency_ms = (time.perf_counter() - start) * 1000
        res.error = {"code": exc.code, "message": exc.message}
        result = None
    except Exception as exc:  # noqa: BLE001 - a bug in bioplan is a failed case, and the run goes on
        res.latency_ms = (time.perf_counter() - start) * 1000
        res.crash = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        result = None
    else:
        res.latency_ms = (time.perf_counter() - start) * 1000

    kinds = _kinds(case)
    if result is not None:
        plan = result.plans[0]
        res.target = result.spec.target_output.semantic_type
        res.constraint_ids = list(result.spec.constraint_ids)
        res.steps = [f"{s.operation}[{s.tool}]" for s in plan.steps]
        res.checks, res.failures = check_plan(case, result, knowledge)
        if case.expect.operations:
            res.recall_at_1 = _recall(case.expect.operations, result.plans[:1])
            res.recall_at_k = _recall(case.expect.operations, result.plans[:top_k])
    else:
        got = res.error["code"] if res.error else "crash"
        why = res.error["message"] if res.error else res.crash
        if case.expect.error:
            ok = got == case.expect.error
            res.checks = {"error": ok}
            if not ok:
                res.failures = [f"error: expected {case.expect.error}, got {got}: {why}"]
        else:
            res.checks = {k: False for k in kinds}
            res.failures = [f"refused: {got}: {why}"]
        if case.expect.operations:
            res.recall_at_1 = res.recall_at_k = 0.0
    res.passed = res.crash is None and all(res.checks.get(k, False) for k in kinds)
    return res


# --------------------------------------------------------------------------- compile (snakemake -n)


def _compile_one(case: Case, inputs: list[str], declared: dict[str, str], knowledge: Knowledge,
                 workdir: Path, top_k: int) -> dict[str, Any]:
    from bioplan.compile import compile_request

    start = time.perf_counter()
    out: dict[str, Any] = {"ok": False}
    try:
        res = compile_request(case.request, inputs, str(workdir / "Snakefile"), validate=True, top_k=top_k,
                              knowledge=knowledge, declared=declared)
    except BioplanError as exc:
        out["problem"] = f"{exc.code}: {exc.message}"
    except Exception as exc:  # noqa: BLE001
        out["problem"] = "crash: " + "".join(traceback.format_exception_only(type(exc), exc)).strip()
    else:
        out["ok"] = all(c.ok for c in res.checks) and any(c.name == "dry_run" for c in res.checks)
        out["plan_rank"] = res.plan.rank  # 2 when the best plan failed its pre-check and the next one passed
        if not out["ok"]:
            out["problem"] = "; ".join(f"{c.name} failed" for c in res.checks if not c.ok) or "no dry run"
    out["seconds"] = round(time.perf_counter() - start, 3)
    return out


# --------------------------------------------------------------------------- metrics


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def percentile(xs: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100)."""
    if not xs:
        return None
    s = sorted(xs)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def compute_metrics(results: list[CaseResult], compiled: bool) -> dict[str, float | int | None]:
    plan_cases = [r for r in results if r.expected_error is None]
    error_cases = [r for r in results if r.expected_error is not None]
    with_ops = [r for r in plan_cases if r.recall_at_1 is not None]
    lat = [r.latency_ms for r in results if r.latency_ms is not None]

    def acc(kind: str) -> float | None:
        return _rate([r.checks[kind] for r in plan_cases if kind in r.checks])

    m: dict[str, float | int | None] = {
        "cases": len(results),
        "plan_cases": len(plan_cases),
        "error_cases": len(error_cases),
        "passed": sum(r.passed for r in results),
        "pass_rate": _rate([r.passed for r in results]),
        "plan_pass_rate": _rate([r.passed for r in plan_cases]),
        "error_case_accuracy": _rate([r.passed for r in error_cases]),
        "false_refusal_rate": _rate([r.error is not None or r.crash is not None for r in plan_cases
                                     if r.fixture_problem is None]),
        "operation_recall_at_1": _mean([r.recall_at_1 for r in with_ops if r.recall_at_1 is not None]),
        "operation_recall_at_k": _mean([r.recall_at_k for r in with_ops if r.recall_at_k is not None]),
    }
    for kind in ("target", "constraints", "tools"):
        m[_ACCURACY[kind]] = acc(kind)
    for kind in ("operations", "absent", "order", "workflow_type", "input_types"):
        m[f"{kind}_accuracy"] = acc(kind)
    m["crashes"] = sum(r.crash is not None for r in results)
    m["fixture_problems"] = sum(r.fixture_problem is not None for r in results)
    m["latency_mean_ms"] = round(sum(lat) / len(lat), 2) if lat else None
    p95 = percentile(lat, 95)
    m["latency_p95_ms"] = round(p95, 2) if p95 is not None else None
    if compiled:
        comp = [r.compile for r in results if r.compile is not None]
        m["compiled"] = len(comp)
        m["snakemake_dry_run_pass_rate"] = _rate([c["ok"] for c in comp])
        secs = [c["seconds"] for c in comp]
        m["compile_mean_s"] = _mean(secs)
    return m


def _breakdown(results: list[CaseResult]) -> dict[str, dict[str, dict[str, float | int]]]:
    def group(key) -> dict[str, dict[str, float | int]]:
        out: dict[str, list[CaseResult]] = {}
        for r in results:
            for g in key(r):
                out.setdefault(g, []).append(r)
        return {g: {"cases": len(rs), "passed": sum(r.passed for r in rs),
                    "pass_rate": round(sum(r.passed for r in rs) / len(rs), 4)} for g, rs in sorted(out.items())}

    return {"language": group(lambda r: [r.lang]), "tag": group(lambda r: r.tags)}


# --------------------------------------------------------------------------- the run


def select(cf: CaseFile, patterns: tuple[str, ...] | list[str] = ()) -> list[Case]:
    """Cases whose id matches one of the shell patterns (all cases without patterns)."""
    if not patterns:
        return list(cf.cases)
    chosen = [c for c in cf.cases if any(fnmatch.fnmatchcase(c.id, p) or p in c.id for p in patterns)]
    if not chosen:  # a typo in -k must not look like a clean run of zero cases
        examples = ", ".join(c.id for c in cf.cases[:3])
        raise CaseFileError(f"-k {' -k '.join(patterns)}: no case id matches",
                            [f"give a part of a case id or a shell pattern; ids look like {examples}"])
    return chosen


# A case's resolved (inputs, declared formats); None when its fixtures could not be resolved.
_Resolved = tuple[list[str], dict[str, str]] | None


def _check_case_data(case: Case, failed_classes: dict[str, str]) -> None:
    """Raise FileNotFoundError when the case reads example data whose generation failed."""
    missing = sorted({c for c in failed_classes if any(f"{{data}}/{c}" in s for s in
                                                       (*case.inputs, *case.declared))})
    if missing:
        raise FileNotFoundError("; ".join(f"example data {c} not generated ({failed_classes[c]})"
                                          for c in missing))


def _plan_cases(cases: list[Case], failed_classes: dict[str, str], data: Path, fixtures_dir: Path, knowledge: Knowledge,
                top_k: int, progress) -> tuple[list[CaseResult], list[_Resolved]]:
    """Plan every case in order; a case whose fixtures are missing is recorded as a fixture failure."""
    results: list[CaseResult] = []
    resolved: list[_Resolved] = []
    for case in cases:
        try:
            _check_case_data(case, failed_classes)
            inputs, declared = resolve_inputs(case, data, fixtures_dir)
        except FileNotFoundError as exc:
            r = CaseResult(id=case.id, lang=case.language, tags=list(case.tags),
                           expected_error=case.expect.error, fixture_problem=str(exc),
                           failures=[f"fixture: {exc}"])
            results.append(r)
            resolved.append(None)
            continue
        r = run_case(case, inputs, declared, knowledge, top_k)
        results.append(r)
        resolved.append((inputs, declared))
        if progress:
            progress(r)
    return results, resolved


def _compile_cases(cases: list[Case], results: list[CaseResult], resolved: list[_Resolved], knowledge: Knowledge,
                   compiled_dir: Path, top_k: int, jobs: int) -> None:
    """Compile (and dry-run) in parallel every case that planned as expected; fills `results[i].compile`."""
    todo = [(i, case) for i, case in enumerate(cases)
            if resolved[i] is not None and results[i].error is None and results[i].crash is None
            and case.expect.error is None]

    def work(item):
        i, case = item
        inputs, declared = resolved[i]
        return i, _compile_one(case, inputs, declared, knowledge, compiled_dir / f"{i:03d}", top_k)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for i, out in pool.map(work, todo):
            results[i].compile = out


def run_eval(cases_file: str | Path | None = None, *, compile: bool = False, top_k: int = 3,  # noqa: A002
             data_dir: str | Path | None = None, select_ids: tuple[str, ...] | list[str] = (), jobs: int = 4,
             knowledge: Knowledge | None = None, progress=None) -> EvalReport:
    """Plan (and with `compile`, compile and dry-run) every case; return results and metrics.

    `data_dir` keeps the generated example data between runs (generated there when missing);
    without it the data go to a temporary directory removed afterwards.
    """
    knowledge = knowledge or load_knowledge()
    cf = load_cases(cases_file, knowledge)
    cases = select(cf, select_ids)
    scratch = Path(tempfile.mkdtemp(prefix="bioplan-eval-"))
    try:
        data = Path(data_dir) if data_dir else scratch / "data"
        data.mkdir(parents=True, exist_ok=True)
        failed_classes = ensure_data(data, needed_classes(cases, cf.fixtures))
        fixtures_dir = scratch / "fixtures"
        fixtures_dir.mkdir()
        write_fixtures(cf, fixtures_dir, data, cases)

        from bioplan.compile import plan_request

        # one untimed request first: lazy imports and first-use caches are not a case's latency
        with contextlib.suppress(BioplanError):
            plan_request("differential expression", [], knowledge)

        results, resolved = _plan_cases(cases, failed_classes, data, fixtures_dir, knowledge, top_k, progress)
        if compile:
            _compile_cases(cases, results, resolved, knowledge, scratch / "compiled", top_k, jobs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    return EvalReport(cases_file=str(cases_file or DEV_SET), top_k=top_k, compiled=compile,
                      metrics=compute_metrics(results, compile), breakdown=_breakdown(results), cases=results,
                      filtered=bool(select_ids))
