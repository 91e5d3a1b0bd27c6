"""The evaluation report as a table, the baseline gate, and writing a new baseline."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from bioplan.errors import one_line
from bioplan.evaluate.cases import CaseFileError
from bioplan.evaluate.runner import EvalReport

# Metrics where lower is better: the baseline value is a ceiling, not a floor.
LOWER_IS_BETTER = frozenset({"latency_mean_ms", "latency_p95_ms", "false_refusal_rate", "crashes",
                             "fixture_problems", "compile_mean_s"})
# Metrics only measured with --compile; a baseline naming them is not checked without it.
COMPILE_ONLY = frozenset({"compiled", "snakemake_dry_run_pass_rate", "compile_mean_s"})
# Counts that describe the case file, not bioplan's quality: not gated.
_COUNTS = frozenset({"cases", "plan_cases", "error_cases", "passed", "compiled"})
BASELINE = Path(__file__).resolve().parent / "baseline.json"


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if v <= 1.0 else f"{v:.1f}"
    return str(v)


def _headline(message: str, limit: int = 240) -> str:
    """The first line of a long error, and the first line naming an error or exception with the next one."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    out = lines[:1]
    for i, ln in enumerate(lines[1:], 1):
        if re.search(r"(Error|Exception)\b", ln) and not ln.startswith("File "):
            out += lines[i:i + 2]
            break
    return " | ".join(out)[:limit]


def text_report(rep: EvalReport) -> str:
    lines = [f"bioplan eval: {one_line(str(rep.cases_file))}",
             f"{rep.metrics['cases']} cases ({rep.metrics['plan_cases']} expect a plan, "
             f"{rep.metrics['error_cases']} expect a refusal), Recall@K with K={rep.top_k}", ""]
    width = max([len(c.id) for c in rep.cases] + [4])
    head = f"{'case':<{width}}  lang  result  R@1   R@K    ms"
    if rep.compiled:
        head += "     snakemake -n"
    lines += [head, "-" * len(head)]
    for c in rep.cases:
        r1 = "-" if c.recall_at_1 is None else f"{c.recall_at_1:.2f}"
        rk = "-" if c.recall_at_k is None else f"{c.recall_at_k:.2f}"
        ms = "-" if c.latency_ms is None else f"{c.latency_ms:.0f}"
        row = f"{c.id:<{width}}  {c.lang:<4}  {'pass' if c.passed else 'FAIL':<6}  {r1:<4}  {rk:<4}  {ms:>5}"
        if rep.compiled:
            row += "     " + ("-" if c.compile is None else "ok" if c.compile["ok"] else "FAILED")
        lines.append(row)
    failing = [c for c in rep.cases if not c.passed]
    if failing:
        lines += ["", f"failing cases ({len(failing)}):"]
        for c in failing:
            lines.append(f"  {c.id}")
            lines += [f"      {one_line(f)}" for f in c.failures]
            if c.crash:
                lines.append(f"      crash: {one_line(c.crash)}")
            if c.steps:
                lines.append(f"      rank-1 plan: {' -> '.join(c.steps)}")
    if rep.compiled:
        bad = [(c.id, c.compile) for c in rep.cases if c.compile is not None and not c.compile["ok"]]
        if bad:
            lines += ["", f"compile / snakemake -n failures ({len(bad)}):"]
            lines += [f"  {case_id}: {one_line(_headline(compiled.get('problem', 'failed')))}"
                      for case_id, compiled in bad]
    lines += ["", f"{'metric':<30} value"]
    m = rep.metrics
    for key, value in m.items():
        extra = ""
        if key == "pass_rate":
            extra = f"  ({m['passed']}/{m['cases']})"
        lines.append(f"{key:<30} {_fmt(value)}{extra}")
    for name, groups in rep.breakdown.items():
        parts = [f"{g} {v['pass_rate']:.2f} ({v['passed']}/{v['cases']})" for g, v in groups.items()]
        lines += ["", f"pass rate by {name}:"] + [f"  {p}" for p in parts]
    if rep.baseline is not None:
        lines.append("")
        b = rep.baseline
        if b["ok"]:
            lines.append(f"baseline {b['file']}: ok ({b['checked']} metrics"
                         + (f", {len(b.get('must_pass', []))} must-pass cases" if b.get("must_pass") else "") + ")")
        else:
            lines.append(f"baseline {b['file']}: REGRESSION")
            lines += [f"  {r}" for r in b["regressions"]]
        lines += [f"  note: {n}" for n in b["notes"]]
    return "\n".join(lines)


def load_baseline(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaseFileError(f"{path}: cannot read the baseline ({exc.strerror or exc})", ["check the path"]) from exc
    except json.JSONDecodeError as exc:
        raise CaseFileError(f"{path}: not valid JSON: {exc}", ["a baseline is a JSON object metric -> value"]) from exc
    except RecursionError:  # `[[[[...` deeper than json's recursive decoder goes
        raise CaseFileError(f"{path}: JSON nested deeper than Python can read",
                            ["a baseline is a flat JSON object metric -> value"]) from None
    if not isinstance(data, dict):
        raise CaseFileError(f"{path}: a baseline is a JSON object metric -> value", [])
    return data


def check_baseline(rep: EvalReport, baseline: dict[str, Any], path: str) -> dict[str, Any]:
    """Compare the metrics with the baseline's floors (ceilings for lower-is-better metrics).

    Keys starting with '_' are comments. `must_pass` lists case ids that must pass.
    """
    regressions: list[str] = []
    notes: list[str] = []
    checked = 0
    for key, limit in sorted(baseline.items()):
        if key.startswith("_") or key == "must_pass":
            continue
        if key not in rep.metrics and key not in COMPILE_ONLY:
            raise CaseFileError(f"{path}: unknown metric {key!r}",
                                [f"metrics: {', '.join(k for k in rep.metrics if k not in _COUNTS)}"])
        if not isinstance(limit, (int, float)) or isinstance(limit, bool):
            raise CaseFileError(f"{path}: {key}: expected a number, got {limit!r}", [])
        value = rep.metrics.get(key)
        if value is None:
            notes.append(f"{key} not measured in this run" + (" (needs --compile)" if key in COMPILE_ONLY else ""))
            continue
        checked += 1
        if key in LOWER_IS_BETTER:
            if value > limit:
                regressions.append(f"{key} {_fmt(value)} > {_fmt(limit)} (ceiling)")
        elif value < limit:
            regressions.append(f"{key} {_fmt(value)} < {_fmt(limit)}")
    must = baseline.get("must_pass") or []
    by_id = {c.id: c for c in rep.cases}
    for cid in must:
        c = by_id.get(cid)
        if c is None:
            if not rep.filtered:
                regressions.append(f"case {cid} must pass but is not in the case file")
        elif not c.passed:
            regressions.append(f"case {cid} must pass: " + "; ".join(c.failures or [c.crash or "failed"]))
    return {"file": str(path), "ok": not regressions, "checked": checked, "regressions": regressions,
            "notes": notes, "must_pass": list(must)}


def baseline_from(rep: EvalReport) -> dict[str, Any]:
    """A baseline that the current run meets: floors at today's values, generous latency ceilings."""
    out: dict[str, Any] = {
        "_comment": "bioplan eval --baseline: floors for metrics (ceilings for latency_*, false_refusal_rate, "
                    "crashes); must_pass lists the cases that passed when it was written. Regenerate with "
                    "`bioplan eval --write-baseline FILE` after an intended change.",
    }
    for key, value in rep.metrics.items():
        if value is None or key in _COUNTS:
            continue
        if key.startswith("latency_"):
            out[key] = float(max(2000, math.ceil(value * 10 / 100) * 100))  # machines differ: 10x, >= 2 s
        elif key == "compile_mean_s":
            out[key] = float(max(60, math.ceil(value * 5)))
        elif key in LOWER_IS_BETTER:
            out[key] = value
        else:
            out[key] = math.floor(value * 1000) / 1000
    out["must_pass"] = sorted(c.id for c in rep.cases if c.passed)
    return out
