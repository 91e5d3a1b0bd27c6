"""Differential methylation with DSS on Bismark coverage files with planted DMRs, both targets' step script.

Four samples (two control, two treated) of 400 CpGs 25 bp apart on one chromosome, read depths 10-30,
every CpG 50 % methylated, except two planted regions: 30 CpGs hypermethylated in the treated samples
(85 % vs 15 %) and 20 CpGs hypomethylated in them (10 % vs 80 %). The request names neither the tool
nor the direction; the compiled workflow (DSS DMLtest with smoothing, callDML, callDMR) must find
exactly the two planted regions, each covering its planted CpGs, with the planted direction (treated
minus control), and the planted CpGs must be the most significant loci.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
import shutil

import pytest
from e2e_support import INSTALL_HINT, _r_package_installed, compile_workflow, env, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "find the differentially methylated regions between treated and control samples"
SAMPLES = {"ctrl_1": "control", "ctrl_2": "control", "treated_1": "treated", "treated_2": "treated"}
CPGS, START, STEP = 400, 10_000, 25
# name -> (first CpG, CpGs, methylation in treated, in control)
PLANTED = {"hyper": (100, 30, 0.85, 0.15), "hypo": (260, 20, 0.10, 0.80)}


def _position(i: int) -> int:
    return START + i * STEP


def _level(i: int, condition: str) -> float:
    for first, n, treated, control in PLANTED.values():
        if first <= i < first + n:
            return treated if condition == "treated" else control
    return 0.5


def write_coverage(folder) -> list[str]:
    rng = random.Random(11)
    paths = []
    for sample, condition in SAMPLES.items():
        path = folder / f"{sample}.bismark.cov.gz"
        with gzip.open(path, "wt") as fh:
            for i in range(CPGS):
                depth = rng.randint(10, 30)
                meth = sum(rng.random() < _level(i, condition) for _ in range(depth))
                pos = _position(i)
                fh.write(f"chr1\t{pos}\t{pos}\t{100 * meth / depth:.4f}\t{meth}\t{depth - meth}\n")
        paths.append(str(path))
    sheet = folder / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{c}\n" for s, c in SAMPLES.items()))
    return [*paths, str(sheet)]


@pytest.fixture(scope="module")
def dmr_run(tmp_path_factory):
    if shutil.which("Rscript", path=env()["PATH"]) is None or not _r_package_installed("DSS"):
        message = f"Rscript with the R package DSS is missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("dss")
    files = write_coverage(base)
    workdir = compile_workflow(REQUEST, files, base / "out")
    assert "dss_dmr.R" in (workdir / "workflow" / "rules" / "differential_methylation.smk").read_text()
    run_ok(workdir)
    return workdir


def _rows(path) -> list[dict[str, str]]:
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_the_planted_regions_are_the_dmrs_with_their_direction(dmr_run):
    regions = _rows(dmr_run / "results/differential_methylation/dss_dmrs.tsv")
    assert len(regions) == 2, regions
    for name, (first, n, treated, control) in PLANTED.items():
        lo, hi = _position(first), _position(first + n - 1)
        hits = [r for r in regions if int(r["start"]) <= hi and int(r["end"]) >= lo]
        assert len(hits) == 1, (name, regions)
        region = hits[0]
        # the region holds (nearly) all the planted CpGs and reaches little beyond them (smoothing blurs the edges)
        covered = min(hi, int(region["end"])) - max(lo, int(region["start"]))
        assert covered >= 0.8 * (hi - lo), (name, region)
        assert int(region["end"]) - int(region["start"]) <= (hi - lo) + 12 * STEP, (name, region)
        assert (region["test"], region["reference"]) == ("treated", "control")
        diff = float(region["diff"])
        assert diff * (treated - control) > 0 and abs(diff) > 0.3, (name, region)


def test_the_planted_cpgs_are_the_most_significant_loci(dmr_run):
    loci = _rows(dmr_run / "results/differential_methylation/dss_dml_tests.tsv")
    assert len(loci) == CPGS
    planted = {_position(i) for first, n, _, _ in PLANTED.values() for i in range(first, first + n)}
    called = {int(r["pos"]) for r in loci if r["dml"] == "TRUE"}
    assert called and called <= {p + d for p in planted for d in range(-6 * STEP, 6 * STEP + 1, STEP)}, called
    top = {int(r["pos"]) for r in loci[:30]}
    assert len(top & planted) >= 27, sorted(top - planted)
