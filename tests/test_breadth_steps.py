"""Step scripts of the analyses added for breadth (differential methylation with DSS, ...), on tiny inputs
through the Nextflow runner (templates/nextflow/bin/), as tests/test_step_scripts.py runs the others: the
output on good input, and the one-line "ERROR [rule]: ..." on bad input. The scripts' libraries take
seconds to load (DSS: ~8 s), so these are e2e; the science is in their tests/e2e runs."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from helpers import require_r_packages
from test_step_scripts import assert_failed, read_tsv, run_r, run_r_steps, write

pytestmark = pytest.mark.e2e

DSS_PARAMS = {"condition_column": "condition", "smoothing": True, "smoothing_span": 500, "delta": 0.1,
              "p_threshold": 1e-5, "dmr_p_threshold": 0.01, "min_cpg": 3, "min_length": 50, "dis_merge": 100}


def _coverage(path: Path, methylated: list[tuple[int, int]]) -> Path:
    with gzip.open(path, "wt") as fh:
        for i, (meth, unmeth) in enumerate(methylated):
            pos = 1000 + 30 * i
            fh.write(f"chr2\t{pos}\t{pos}\t{100 * meth / (meth + unmeth):.2f}\t{meth}\t{unmeth}\n")
    return path


def test_dss_dmr_one_sample_per_condition(tmp_path):
    """Without replicates DSS tests on the smoothed neighbours: the 12 CpGs the knockout gained are one
    DMR with a positive difference (knockout minus control); a sheet missing a sample, no smoothing
    without replicates, and fewer than the 50 CpGs DSS needs are one-line errors."""
    require_r_packages("DSS")
    background = [(8 + i % 5, 12 - i % 5 + i % 3) for i in range(60)]
    gained = background[:14] + [(18 + i % 2, 1 + i % 3) for i in range(12)] + background[26:]
    lost = background[::-1][:14] + [(1 + i % 2, 18 + i % 3) for i in range(12)] + background[::-1][26:]
    calls = [_coverage(tmp_path / "wt.cov.gz", lost), _coverage(tmp_path / "ko.cov.gz", gained)]
    samples = write(tmp_path / "samples.tsv", "sample\tcondition\nwt\tcontrol\nko\tknockout\n")
    outputs = {"regions": tmp_path / "dmrs.tsv", "loci": tmp_path / "dml.tsv"}
    # the DMR run and the one without smoothing in one R session (the failing run last); the other failures stop
    # before DSS loads, each in its own short R process
    run, unsmoothed = run_r_steps(
        tmp_path, ("dss_dmr.R", {"calls": calls, "samples": samples}, outputs, {**DSS_PARAMS, "samples": ["wt", "ko"]}),
        ("dss_dmr.R", {"calls": calls, "samples": samples}, outputs,
         {**DSS_PARAMS, "samples": ["wt", "ko"], "smoothing": False}))
    assert run.code == 0, run.terminal + run.log
    regions = read_tsv(outputs["regions"])
    assert regions[0][:5] == ["chr", "start", "end", "length", "n_cpg"] and len(regions) == 2, regions
    header, dmr = regions
    row = dict(zip(header, dmr))
    assert (row["test"], row["reference"]) == ("knockout", "control") and float(row["diff"]) > 0.3, row
    assert int(row["start"]) <= 1000 + 30 * 16 and int(row["end"]) >= 1000 + 30 * 23, row
    assert len(read_tsv(outputs["loci"])) == 61  # header + 60 CpGs

    assert_failed(unsmoothed, "without replicates", "set params.dss_calldmr.smoothing to true")
    partial = write(tmp_path / "partial.tsv", "sample\tcondition\nwt\tcontrol\n")
    run = run_r(tmp_path, "dss_dmr.R", {"calls": calls, "samples": partial}, outputs,
                {**DSS_PARAMS, "samples": ["wt", "ko"]})
    assert_failed(run, "samples ko have methylation calls but no row in the sample sheet")
    short = [_coverage(tmp_path / "wt40.cov.gz", lost[:40]), _coverage(tmp_path / "ko40.cov.gz", gained[:40])]
    run = run_r(tmp_path, "dss_dmr.R", {"calls": short, "samples": samples}, outputs,
                {**DSS_PARAMS, "samples": ["wt", "ko"]})
    assert_failed(run, "only 40 CpGs are covered; DSS needs at least 50")
