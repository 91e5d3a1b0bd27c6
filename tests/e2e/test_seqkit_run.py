"""SeqKit stats (issue 18) on the rnaseq example's reads: the read statistics are the truth.

Every mate file of every sample gets one row; the read count is the example's number of pairs,
every read is the example's read length (the generator writes untrimmed reads of one length) and
every base is at least Q20 or not as the FASTQ says (recomputed here from the file).
"""

from __future__ import annotations

import csv
import gzip
import os
import shutil

import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, generate, run_ok, truth

pytestmark = pytest.mark.e2e

SAMPLES = ("ctrl_1", "ctrl_2", "treated_1", "treated_2")


@pytest.fixture(scope="module")
def stats(tmp_path_factory):
    missing = [b for b in ("seqkit", "snakemake") if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("seqkit")
    d = generate(base, "rnaseq_fastq") / "rnaseq_fastq"
    reads = [str(d / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
    workdir = compile_workflow("mouse RNA-seq reads: read statistics with seqkit stats", reads, base / "out")
    run_ok(workdir)
    return workdir, d, truth(base / "data", "rnaseq_fastq")


def _q20_percent(path) -> float:
    with gzip.open(path, "rt") as fh:
        quals = fh.read().splitlines()[3::4]
    bases = sum(len(q) for q in quals)
    return 100 * sum(ord(c) - 33 >= 20 for q in quals for c in q) / bases


def test_seqkit_stats_are_the_truth(stats):
    workdir, d, t = stats
    for sample in SAMPLES:
        with open(workdir / "results/read_qc" / sample / "seqkit_stats.tsv") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        assert [r["file"].endswith(f"_R{m}.fastq.gz") for r, m in zip(rows, (1, 2))] == [True, True], rows
        for row, mate in zip(rows, (1, 2)):
            assert int(row["num_seqs"]) == t["read_pairs_per_sample"]
            assert int(row["min_len"]) == int(row["max_len"]) == t["read_length"]
            assert int(row["sum_len"]) == t["read_pairs_per_sample"] * t["read_length"]
            expected = _q20_percent(d / "reads" / f"{sample}_R{mate}.fastq.gz")
            assert abs(float(row["Q20(%)"]) - expected) < 0.01, (sample, mate, row["Q20(%)"], expected)
