"""FastQC on reads as users hold them: plain `.fastq` next to gzipped, in both targets.

FastQC decides how to decompress a file from its name, and the emitted step links every input under
the sample's name (so reports are labelled by sample). The link once always ended `.fastq.gz`, so a
plain FASTQ was read as gzip and the step failed; the long-read FASTQ of tests/test_long_reads.py had to
be gzipped to run. Single-end reads here: paired plain FASTQ stops earlier, at the run's mate check
(check_paired_mates, which reads gzip only and says to compress them). Truth: every report counts
exactly the reads of its file.
"""

from __future__ import annotations

import gzip
import shutil
import zipfile
from pathlib import Path

import pytest
from e2e_support import compile_workflow, generate, run_ok, truth

from bioplan.compile import compile_request

pytestmark = pytest.mark.e2e

QUERY = "quality control of the reads with FastQC"
# ctrl_1 as plain text, treated_1 as shipped (gzip); bioplan refuses bzip2 at compile time
WRITERS = {"ctrl_1": ("fastq", open), "treated_1": ("fastq.gz", None)}


@pytest.fixture(scope="module")
def reads(tmp_path_factory) -> tuple[list[str], int]:
    if shutil.which("fastqc") is None:
        pytest.skip("fastqc not on PATH (scripts/install-tools.sh)")
    base = tmp_path_factory.mktemp("fastqc_plain")
    d = generate(base, "rnaseq_fastq") / "rnaseq_fastq"
    out = base / "reads"
    out.mkdir()
    files = []
    for sample, (suffix, opener) in WRITERS.items():
        for mate in (1,):
            source = d / "reads" / f"{sample}_R{mate}.fastq.gz"
            target = out / f"{sample}_R{mate}.{suffix}"
            if opener is None:
                shutil.copyfile(source, target)
            else:
                with gzip.open(source, "rb") as fh, opener(target, "wb") as dest:
                    dest.write(fh.read())
            files.append(str(target))
    return files, truth(base / "data", "rnaseq_fastq")["read_pairs_per_sample"]


def _total_sequences(report_zip: Path) -> int:
    with zipfile.ZipFile(report_zip) as archive:
        name = next(n for n in archive.namelist() if n.endswith("/fastqc_data.txt"))
        text = archive.read(name).decode()
    return int(next(line.split("\t")[1] for line in text.splitlines() if line.startswith("Total Sequences")))


def _assert_reports(root: Path, pairs: int) -> None:
    for sample in WRITERS:
        found = sorted(root.glob(f"results/**/{sample}_fastqc.zip"))
        assert len(found) == 1, (sample, found)
        assert _total_sequences(found[0]) == pairs, sample


def test_fastqc_reads_plain_and_gzipped_fastq_in_snakemake(reads, tmp_path):
    files, pairs = reads
    workdir = compile_workflow(QUERY, files, tmp_path / "out")
    run_ok(workdir)
    _assert_reports(workdir, pairs)


def test_fastqc_reads_plain_and_gzipped_fastq_in_nextflow(reads, tmp_path):
    from test_nextflow_run import nextflow_bin
    from test_nextflow_run import run_ok as run_nextflow_ok

    files, pairs = reads
    nextflow_bin()
    workdir = tmp_path / "nf"
    compile_request(QUERY, files, str(workdir / "main.nf"), force=True, target="nextflow", validate=False)
    run_nextflow_ok(workdir)
    _assert_reports(workdir, pairs)
