"""The project's own documents: docs/plan-report.md documents every key of a real plan report
and exactly the error codes the code defines; nothing in the product, its tests or its CI
points at files outside the checkout (a clone from GitHub has nothing beside it)."""

from __future__ import annotations

import json
import re
import subprocess

from click.testing import CliRunner

from bioplan.cli import main
from bioplan.errors import ERROR_CODES
from bioplan.evaluate.cases import CaseFileError
from conftest import ROOT, example_inputs, example_request

PLAN_REPORT = ROOT / "docs" / "plan-report.md"
# what a checkout holds beyond its own files: the workshop folder it was developed beside
OUTSIDE_REFERENCE = re.compile(r"\.\./share[d]\b|/work/share[d]\b")
CHECKED_PATHS = ("README.md", "ARCHITECTURE.md", "CHANGELOG.md", "pyproject.toml", ".ci", "tests", "compiler",
                 "scripts", "docs", "ontology", "motifs", "templates", "examples", "benchmarks")


def _documented_table(section_heading: str) -> list[str]:
    """The first-column `names` of the markdown table(s) under a heading of docs/plan-report.md."""
    text = PLAN_REPORT.read_text(encoding="utf-8")
    section = text.split(section_heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


def test_every_error_code_is_documented_and_no_other():
    codes = set(ERROR_CODES) | {CaseFileError.code}
    documented = _documented_table("## Errors")
    assert len(documented) == len(set(documented))
    assert set(documented) == codes, {"undocumented": codes - set(documented), "not defined": set(documented) - codes}


def test_every_key_of_a_plan_report_is_documented(workspace):
    inputs = sum((["-i", p] for p in example_inputs(workspace, "bulk_de")), [])
    result = CliRunner().invoke(main, ["plan", example_request("bulk_de"), *inputs, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    documented = set(_documented_table("## The keys"))
    plan = report["plans"][0]
    keys = {*report, *report["task_spec"], *plan}
    assert keys <= documented, f"keys of `plan --json` missing from {PLAN_REPORT.name}: {sorted(keys - documented)}"
    text = PLAN_REPORT.read_text(encoding="utf-8")
    step_keys = {k for s in plan["steps"] for k in s}
    assert all(f"`{k}`" in text.split("A step:", 1)[1] for k in step_keys), step_keys


def test_nothing_points_outside_the_checkout():
    # the files git tracks or would track (untracked but not ignored), as a fresh clone has them
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *CHECKED_PATHS],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(listed) > 100, listed  # the checkout is there, not an empty listing
    offending = []
    for name in listed:
        path = ROOT / name
        if not path.is_file() or path.suffix in {".gz", ".bam", ".h5ad", ".png", ".pickle", ".whl"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        offending += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
                      for m in OUTSIDE_REFERENCE.finditer(text)]
    assert not offending, "references to files outside the checkout:\n" + "\n".join(offending)
