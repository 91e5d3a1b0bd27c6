"""`bioplan eval`: measure the planner on cases with expectations written by bioinformaticians.

    report = run_eval()                      # the development set shipped with bioplan
    report = run_eval("cases.yaml", compile=True)
    check_baseline(report, load_baseline(BASELINE), str(BASELINE))

The case format and the metric definitions are in README.md beside this file.
"""

from bioplan.evaluate.cases import DEV_SET, Case, CaseFile, CaseFileError, Expect, load_cases
from bioplan.evaluate.report import BASELINE, baseline_from, check_baseline, load_baseline, text_report
from bioplan.evaluate.runner import CaseResult, EvalReport, run_eval

__all__ = [
    "BASELINE", "DEV_SET", "Case", "CaseFile", "CaseFileError", "CaseResult", "EvalReport", "Expect",
    "baseline_from", "check_baseline", "evaluate", "load_baseline", "load_cases", "run_eval", "text_report",
]


def evaluate(cases_file=None, *, compile: bool = False, baseline=None, top_k: int = 3, data_dir=None,  # noqa: A002
             select_ids=(), jobs: int = 4, progress=None) -> EvalReport:
    """run_eval, then the baseline gate when `baseline` (a path) is given: report.baseline['ok']."""
    report = run_eval(cases_file, compile=compile, top_k=top_k, data_dir=data_dir, select_ids=select_ids,
                      jobs=jobs, progress=progress)
    if baseline:
        report.baseline = check_baseline(report, load_baseline(baseline), str(baseline))
    return report
