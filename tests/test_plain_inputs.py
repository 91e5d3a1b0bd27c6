"""Plain (uncompressed) given files on steps that read compressed ones only: refused at compile time.

The paired-end mate check (check_paired_mates: constraint paired_end_reads, `check_formats`) and STAR
(`--readFilesCommand gunzip -c`: its reads port is `compressed_only`) read gzip only; a plain FASTQ
once compiled and then stopped the run. Tools that read plain FASTQ (FastQC on single-end reads) still
compile; a gzipped file named .fastq is sniffed as compressed and is not refused. Plan/IR level only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request
from bioplan.errors import UnreadableInputError
from helpers import write_fastq

FASTQC = "quality control of the reads with FastQC"
STAR = "align the RNA-seq reads with STAR, human"


def _fastq(path: Path, mate: int, gz: bool) -> str:
    return write_fastq(path, mate, reads=8, length=20, gz=gz)


def _synthesized(knowledge, base: Path, query: str, inputs: list[str]):
    result = plan_request(query, inputs, knowledge)
    return synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out"))


def _reads(base: Path, mates: tuple[int, ...], gz: bool, suffix: str) -> list[str]:
    return [_fastq(base / f"{s}_R{m}.{suffix}", m, gz) for s in ("ctrl", "treated") for m in mates]


def test_paired_plain_fastq_is_refused_by_the_mate_check_naming_files_and_gzip(knowledge, tmp_path):
    inputs = _reads(tmp_path, (1, 2), gz=False, suffix="fastq")
    with pytest.raises(UnreadableInputError) as err:
        _synthesized(knowledge, tmp_path, FASTQC, inputs)
    message, hint = err.value.message, " ".join(err.value.hints)
    assert "check_paired_mates" in message and "fastq.gz (gzip-compressed) files only" in message
    assert all(p in message for p in inputs), message
    assert f"gzip {inputs[0]}" in hint, hint
    assert sorted(err.value.details["paths"]) == sorted(inputs)


def test_star_refuses_single_end_plain_fastq(knowledge, tmp_path):
    inputs = _reads(tmp_path, (1,), gz=False, suffix="fastq")
    with pytest.raises(UnreadableInputError) as err:
        _synthesized(knowledge, tmp_path, STAR, inputs)
    assert "STAR (step " in err.value.message and "check_paired_mates" not in err.value.message
    assert "gzip " in " ".join(err.value.hints)


@pytest.mark.parametrize(("query", "mates", "gz", "suffix"), [
    (FASTQC, (1,), False, "fastq"),  # FastQC reads plain FASTQ; no mate check for single-end reads
    (FASTQC, (1, 2), True, "fastq"),  # gzipped content under a plain name: compressed, as sniffed
    (STAR, (1, 2), True, "fastq.gz"),
])
def test_compressed_or_plain_readable_inputs_compile(knowledge, tmp_path, query, mates, gz, suffix):
    workflow = _synthesized(knowledge, tmp_path, query, _reads(tmp_path, mates, gz, suffix))
    assert workflow.steps
