"""check_paired_mates.py, the paired-end precondition check both targets run, on small files.

It streams both mates through pigz/gzip (or Python's zlib when neither is on PATH) side by side;
these tests run it as the Nextflow target does (templates/nextflow/bin/bioplan_run.py, in this process), in each
decompression mode, on good pairs (multi-member gzip as bgzip writes) and on each kind of broken
pair. The 2 GB pair is measured in benchmarks/check_paired_mates.py; the e2e run of the generated
rule: tests/e2e/test_preconditions_run.py. The check's time limit grows with its input:
_checked_gb below.
"""

from __future__ import annotations

import gzip
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bioplan.codegen.ir import CHECK_RUNTIME, CHECK_RUNTIME_PER_GB, FileRef, IOPort, _checked_gb
from bioplan.models import SpecInput
from test_step_scripts import step  # noqa: F401  (the fixture that runs a step script in this process)

ROOT = Path(__file__).resolve().parent.parent
MODES = ["pigz", "gzip", "zlib"]


def records(mate: int, names: range, suffix: str = "") -> bytes:
    return b"".join(b"@r%d%s %d:N:0:1\nACGTACGTAC\n+\nFFFFFFFFFF\n" % (n, suffix.encode(), mate) for n in names)


def write_members(path: Path, *chunks: bytes) -> Path:
    """One gzip member per chunk, concatenated (bgzip and `cat a.gz b.gz` write such files)."""
    path.write_bytes(b"".join(gzip.compress(c, mtime=0) for c in chunks))
    return path


@dataclass
class CheckRun:
    returncode: int  # 0: the pair passed; 1: fail() with the one-line message
    stderr: str  # what the check printed on the terminal


@pytest.fixture
def run_check(step, monkeypatch):
    """run_check(tmp_path, mate1, mate2, mode): the check run by the Nextflow runner's run_script in this
    process (test_step_scripts' `step`: a process per check cost ~0.2 CPU-s of Python start and imports),
    with PATH holding only the decompressor of the mode (none: the script uses Python's zlib)."""

    def run(tmp_path: Path, mate1: Path, mate2: Path, mode: str) -> CheckRun:
        bin_dir = tmp_path / f"path_{mode}"
        bin_dir.mkdir(exist_ok=True)
        if mode != "zlib":
            tool = shutil.which(mode)
            if tool is None:
                pytest.skip(f"{mode} is not on PATH")
            if not (bin_dir / mode).exists():
                (bin_dir / mode).symlink_to(tool)
        monkeypatch.setenv("PATH", str(bin_dir))  # restored after the test
        params = {"constraint": "paired_end_reads", "guarded_step": "read_trimming",
                  "datatypes": {"reads_1": "raw_reads", "reads_2": "raw_reads"}}
        done = step("check_paired_mates.py", {"reads_1": str(mate1), "reads_2": str(mate2)},
                    {"ok": str(tmp_path / "check.ok")}, params, rule="check")
        return CheckRun(done.code, done.terminal)

    return run


@pytest.mark.parametrize("mode", MODES)
def test_good_pair_in_several_gzip_members_passes(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(0, 1500)), records(1, range(1500, 3000), "/1"))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(0, 2000)), records(2, range(2000, 3000), "/2"))
    proc = run_check(tmp_path, mate1, mate2, mode)
    assert proc.returncode == 0, proc.stderr
    ok = (tmp_path / "check.ok").read_text()
    assert "3000 read pairs, first 1000 and last read ids match" in ok
    assert "guarded_step\tread_trimming" in ok


@pytest.mark.parametrize("mode", MODES)
def test_cut_download_is_truncated(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(3000)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(3000)))
    blob = mate2.read_bytes()
    mate2.write_bytes(blob[: len(blob) * 3 // 4])
    proc = run_check(tmp_path, mate1, mate2, mode)
    assert proc.returncode == 1
    assert "mate 2 of reads" in proc.stderr and str(mate2) in proc.stderr
    assert "truncated" in proc.stderr and "Download it again" in proc.stderr
    assert not (tmp_path / "check.ok").exists()


@pytest.mark.parametrize("mode", MODES)
def test_mate_with_fewer_reads_past_the_first_records(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(3000)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(2500)))
    proc = run_check(tmp_path, mate1, mate2, mode)
    assert proc.returncode == 1
    assert f"{mate1} holds 3000 reads but {mate2} holds 2500" in proc.stderr
    assert "truncated" in proc.stderr and "Download both files" in proc.stderr


@pytest.mark.parametrize("mode", MODES)
def test_record_cut_off_at_the_end(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(1200)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(1200))[:-25])  # last record's lines cut
    proc = run_check(tmp_path, mate1, mate2, mode)
    assert proc.returncode == 1
    assert "not a multiple of 4" in proc.stderr and str(mate2) in proc.stderr


@pytest.mark.parametrize("mode", MODES)
def test_same_count_but_different_last_read(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(3000)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, [*range(2999), 5000]))
    proc = run_check(tmp_path, mate1, mate2, mode)
    assert proc.returncode == 1
    assert "the last read is 'r2999'" in proc.stderr and "'r5000'" in proc.stderr
    assert "not mates of each other" in proc.stderr


@pytest.mark.parametrize("mode", MODES)
def test_single_record_pair_passes(tmp_path, mode, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(1)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(1)))
    assert run_check(tmp_path, mate1, mate2, mode).returncode == 0
    assert "1 read pairs, first 1 and last read ids match" in (tmp_path / "check.ok").read_text()


def test_mismatched_first_reads_named(tmp_path, run_check):
    mate1 = write_members(tmp_path / "s_R1.fastq.gz", records(1, range(100)))
    mate2 = write_members(tmp_path / "s_R2.fastq.gz", records(2, range(1, 101)))
    proc = run_check(tmp_path, mate1, mate2, "zlib")
    assert proc.returncode == 1
    assert "read 1 is 'r0'" in proc.stderr and "'r1'" in proc.stderr


def _sparse(path: Path, gib: float) -> str:
    with open(path, "wb") as handle:  # no disk used: only the size is read
        handle.truncate(int(gib * (1 << 30)))
    return str(path)


def test_check_time_limit_grows_with_the_checked_files(knowledge, tmp_path):
    reads = IOPort(name="reads_1", port="reads", datatype="raw_reads", format="fastq.gz",
                   ref=FileRef(kind="samplesheet", path="fastq_1", per_sample=True))

    def spec_inputs(sizes):
        out = []
        for sample, (gib1, gib2) in sizes.items():
            for mate, gib in ((1, gib1), (2, gib2)):
                path = _sparse(tmp_path / f"{sample}_R{mate}.fastq.gz", gib)
                out.append(SpecInput(path=path, datatype="raw_reads", format="fastq.gz", sample=sample, mate=mate))
        return out

    class Spec:
        inputs = spec_inputs({"a": (1.5, 1.5), "b": (0.2, 0.2)})

    # a per-sample job reads one sample's mates: the largest sample, 3 GB
    assert _checked_gb(knowledge, Spec, [reads], "sample") == 3
    assert _checked_gb(knowledge, Spec, [reads], "cohort") == 4  # every file, rounded up
    assert _checked_gb(knowledge, Spec, [], "sample") == 0
    Spec.inputs = spec_inputs({"a": (10, 10)})  # a real 2x10 GB pair gets 50 minutes, not 10
    assert CHECK_RUNTIME + CHECK_RUNTIME_PER_GB * _checked_gb(knowledge, Spec, [reads], "sample") == 50


def test_benchmark_runs_on_a_small_pair():
    """benchmarks/check_paired_mates.py's own code on one gzip member per mate (not 2 GB)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import check_paired_mates as bench
    finally:
        sys.path.pop(0)
    run = bench.measure(0.0008, member_reads=2000)  # 2 copies of a ~200 KB member per mate
    assert run["read_pairs"] == 2 * 2000  # the check counted every pair the file holds
    assert 0 < run["peak_rss_mb"] < 200 and run["seconds"] > 0
