"""Mitochondrial read removal (samtools_mito_filter) run on three tiny BAMs: a UCSC-named genome (chrM), an
Ensembl-named one (MT) and one without a mitochondrial contig. Every read on the mitochondrial contig goes, and so
does every read whose mate is there (no orphan mate is left); every other read stays, the unmapped pair too; the
log counts the removed reads; the BAM without a mitochondrial contig keeps every read and its log says so.
About 5 CPU-s (a compile and one Snakemake run of six samtools jobs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from e2e_support import compile_workflow, env, require_binaries, run_ok

pytestmark = pytest.mark.e2e

READ = "ACGTTGCAAC" * 3
QUAL = "I" * len(READ)
GENOMES = {"ucsc": ("chr1", "chrM"), "ensembl": ("1", "MT"), "nomito": ("chr1", "chr2")}
NUCLEAR_PAIRS, MITO_PAIRS, SPLIT_PAIRS = 12, 8, 3  # split: one mate on chr1, the other on the second contig


def _pair(name: str, ref1: str, pos1: int, ref2: str, pos2: int) -> list[str]:
    same = ref1 == ref2
    tlen = pos2 + len(READ) - pos1 if same else 0
    first = [name, "99" if same else "65", ref1, str(pos1), "60", f"{len(READ)}M", "=" if same else ref2,
             str(pos2), str(tlen), READ, QUAL]
    second = [name, "147" if same else "129", ref2, str(pos2), "60", f"{len(READ)}M", "=" if same else ref1,
              str(pos1), str(-tlen), READ, QUAL]
    return ["\t".join(first), "\t".join(second)]


def _bam(folder: Path, sample: str, nuclear: str, second: str) -> Path:
    lines = ["@HD\tVN:1.6\tSO:coordinate", f"@SQ\tSN:{nuclear}\tLN:100000", f"@SQ\tSN:{second}\tLN:16569"]
    for i in range(NUCLEAR_PAIRS):
        lines += _pair(f"nuc{i}", nuclear, 1000 + 500 * i, nuclear, 1200 + 500 * i)
    for i in range(MITO_PAIRS):
        lines += _pair(f"mito{i}", second, 100 + 900 * i, second, 300 + 900 * i)
    for i in range(SPLIT_PAIRS):
        lines += _pair(f"split{i}", nuclear, 50000 + 700 * i, second, 9000 + 700 * i)
    lines += [f"unmapped\t{flag}\t*\t0\t0\t*\t*\t0\t0\t{READ}\t{QUAL}" for flag in (77, 141)]
    sam = folder / f"{sample}.sam"
    sam.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bam = folder / f"{sample}.bam"
    subprocess.run(["samtools", "sort", "-o", str(bam), str(sam)], check=True, env=env(), capture_output=True)
    return bam


def _reads(bam: Path) -> list[list[str]]:
    out = subprocess.run(["samtools", "view", str(bam)], check=True, env=env(), capture_output=True, text=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


@pytest.fixture(scope="module")
def filtered(tmp_path_factory):
    require_binaries("samtools", "snakemake")
    base = tmp_path_factory.mktemp("mito")
    (base / "bams").mkdir()
    bams = [str(_bam(base / "bams", sample, *contigs)) for sample, contigs in GENOMES.items()]
    workdir = compile_workflow("ATAC-seq: mark duplicates with samtools markdup and remove the mitochondrial reads",
                               bams, base / "out")
    run_ok(workdir)
    return workdir


@pytest.mark.parametrize(("sample", "mito"), [("ucsc", "chrM"), ("ensembl", "MT")])
def test_mitochondrial_reads_and_their_mates_go(filtered, sample, mito):
    reads = _reads(filtered / "results/mitochondrial_read_removal" / sample / f"{sample}.nomito.bam")
    assert not [r for r in reads if mito in (r[2], r[6])]
    names = {r[0] for r in reads}
    assert names == {f"nuc{i}" for i in range(NUCLEAR_PAIRS)} | {"unmapped"}
    assert len(reads) == 2 * len(names)  # both mates of every pair kept
    log = (filtered / "logs/mitochondrial_read_removal" / f"{sample}.log").read_text(encoding="utf-8")
    assert f"removed {2 * (MITO_PAIRS + SPLIT_PAIRS)} reads on or with a mate on: {mito}" in log
    assert (filtered / "results/mitochondrial_read_removal" / sample / f"{sample}.nomito.bam.bai").stat().st_size


def test_a_genome_without_a_mitochondrial_contig_keeps_every_read(filtered):
    reads = _reads(filtered / "results/mitochondrial_read_removal/nomito/nomito.nomito.bam")
    assert len(reads) == 2 * (NUCLEAR_PAIRS + MITO_PAIRS + SPLIT_PAIRS + 1)
    log = (filtered / "logs/mitochondrial_read_removal/nomito.log").read_text(encoding="utf-8")
    assert "no mitochondrial contig (chrM,MT,M,chrMT,Mt,Mito) in the BAM header: every read kept" in log
