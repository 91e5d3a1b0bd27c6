"""Preconditions proven on real data: a good example is compiled, then an input file is replaced in
place with one that breaks a constraint. The workflow must stop at the check, before the guarded
step, with a message that names the file and the constraint and says what to do; nothing
downstream may run.
"""

from __future__ import annotations

import gzip

import pandas as pd
import pytest
from e2e_support import compile_workflow, generate, inputs, request, require_tools, snakemake

pytestmark = pytest.mark.e2e


def _compiled(tmp_path, name):
    require_tools(name)
    data = generate(tmp_path, name)
    workdir = compile_workflow(request(name), inputs(data, name), tmp_path / "out")
    return data / name, workdir


def _run_checks_first(workdir, *checks):
    """The whole workflow (its default target), on one core with the given check rules' outputs scheduled first:
    a failing check stops the run before any other job starts (on two cores a version or QC job started beside it
    and the run waited for that); whether the guarded steps ran is still the run's answer, not a narrower
    target's."""
    prioritized = [f"results/checks/{check}.ok" for check in checks]
    return snakemake(workdir, "--cores", "1", "--prioritize", *prioritized)


def _outputs(workdir, step, sample=""):
    """Files the step wrote (for one sample: under results/<step>/<sample>/)."""
    root = workdir / "results" / step / sample
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_normalized_matrix_stops_before_de(tmp_path):
    data, workdir = _compiled(tmp_path, "bulk_de")
    counts = pd.read_csv(data / "counts.csv", index_col=0)
    (counts / counts.sum() * 1e6).round(3).to_csv(data / "counts.csv")  # CPM, in place
    proc = _run_checks_first(workdir, "check_raw_integer_counts", "check_replicates")
    assert proc.returncode != 0
    out = proc.stdout
    assert "ERROR [check_raw_integer_counts]" in out
    assert "requires_raw_integer_counts" in out and "differential_expression" in out  # the constraint
    assert "counts.csv" in out and "not an integer" in out  # the file and what is wrong
    assert "needs raw non-negative integer read counts" in out and "give the featureCounts" in out  # what to do
    for step in ("differential_expression", "gene_filtering", "kegg_enrichment", "go_enrichment",
                 "pathway_merge", "csv_export"):
        assert not _outputs(workdir, step), f"{step} ran after a failed precondition"


def test_one_sample_per_condition_stops_before_de(tmp_path):
    data, workdir = _compiled(tmp_path, "bulk_de")
    (data / "samples.tsv").write_text("sample\tcondition\nctrl_1\tcontrol\ntreated_1\ttreated\n")
    counts = pd.read_csv(data / "counts.csv", index_col=0)
    counts[["ctrl_1", "treated_1"]].to_csv(data / "counts.csv")
    proc = _run_checks_first(workdir, "check_raw_integer_counts", "check_replicates")
    assert proc.returncode != 0
    out = proc.stdout
    assert "ERROR [check_replicates]" in out and "requires_replicates" in out
    assert "samples.tsv" in out and "fewer than 2 replicates" in out
    assert "Add replicate samples" in out  # what to do
    assert not _outputs(workdir, "differential_expression")


def _truncate_mate(path, records):
    with gzip.open(path, "rt") as handle:
        lines = [next(handle) for _ in range(4 * records)]
    with gzip.open(path, "wt") as handle:
        handle.writelines(lines)


@pytest.mark.parametrize("damage", ["fewer_reads", "cut_gzip", "missing"])
def test_broken_mate_stops_before_alignment(tmp_path, damage):
    data, workdir = _compiled(tmp_path, "rnaseq_fastq")
    mate = data / "reads" / "treated_1_R2.fastq.gz"
    if damage == "fewer_reads":  # a mate that ends early, past the first records
        _truncate_mate(mate, 1500)
    elif damage == "cut_gzip":  # an interrupted download
        blob = mate.read_bytes()
        mate.write_bytes(blob[: len(blob) * 3 // 4])
    else:
        mate.unlink()
    proc = _run_checks_first(workdir, "check_paired_end_reads/treated_1")
    assert proc.returncode != 0
    out = proc.stdout
    assert "treated_1_R2.fastq.gz" in out
    if damage == "missing":  # the workflow refuses to start, naming the sample and what to do
        assert "sample 'treated_1', column 'fastq_2'" in out and "To resolve" in out
        assert not (workdir / "results").exists()
    else:
        assert "check_paired_end_reads" in out and "sample 'treated_1'" in out
        assert "truncated" in out and "Download" in out  # what is wrong, what to do
    for step in ("read_trimming", "read_alignment"):
        assert not _outputs(workdir, step, "treated_1"), f"{step} ran on the broken sample"
    assert not _outputs(workdir, "read_counting")

