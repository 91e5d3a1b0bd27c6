"""Runs of homozygosity (bcftools roh) on a planted call set.

Two samples genotyped at 2,000 biallelic SNPs every 9 kb along an 18 Mb chromosome: sample S1 is homozygous
(0/0 or 1/1) at every site from 5 to 12 Mb, an autozygous stretch, and carries the usual heterozygous calls
elsewhere; S2 is heterozygous at sites all along. The compiled workflow must find in S1 one run covering the
planted stretch (start and end within 100 kb of it) and no run of 1 Mb or more in S2, and write them as the
table of sample, chrom, start, end, length_bp, n_markers and quality.
"""

from __future__ import annotations

import csv
import random

import pytest
from e2e_support import compile_workflow, require_binaries, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "find the runs of homozygosity in this VCF with bcftools roh"
STRETCH = (5_000_000, 12_000_000)
SITES = [5_000 + 9_000 * i for i in range(2_000)]


def plant(folder) -> str:
    rng = random.Random(7)
    lines = ["##fileformat=VCFv4.2", "##contig=<ID=chr1,length=20000000>",
             '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\tS2"]
    for pos in SITES:
        hom = STRETCH[0] <= pos < STRETCH[1]
        s1 = rng.choice(["0/0", "1/1"]) if hom else rng.choice(["0/0", "0/1", "0/1", "1/1"])
        s2 = rng.choice(["0/0", "0/1", "0/1", "1/1"])
        lines.append(f"chr1\t{pos}\t.\tA\tG\t50\tPASS\t.\tGT\t{s1}\t{s2}")
    path = folder / "calls.vcf"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[dict[str, str]]:
    require_binaries("bcftools", "snakemake")
    base = tmp_path_factory.mktemp("roh")
    workdir = compile_workflow(REQUEST, [plant(base)], base / "out")
    run_ok(workdir)
    with open(workdir / "results/homozygosity_mapping/roh.tsv", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_the_planted_stretch_is_the_run_of_homozygosity_of_s1(runs):
    s1 = [r for r in runs if r["sample"] == "S1" and int(r["length_bp"]) >= 1_000_000]
    assert len(s1) == 1, s1
    run = s1[0]
    assert run["chrom"] == "chr1"
    assert abs(int(run["start"]) - STRETCH[0]) < 100_000 and abs(int(run["end"]) - STRETCH[1]) < 100_000, run
    assert int(run["n_markers"]) > 700 and float(run["quality"]) > 0


def test_no_long_run_in_the_heterozygous_sample(runs):
    assert not [r for r in runs if r["sample"] == "S2" and int(r["length_bp"]) >= 1_000_000]
