"""ChIP-seq with duplicate QC, peaks and bigWig tracks (issue 18): Bowtie2, Picard MarkDuplicates,
MACS2 callpeak (nf-core/chipseq's peak caller; MACS3 is compiled and checked only, it has no Linux
wheels) and deepTools bamCoverage run on reads of a small synthetic genome.

Two ChIP samples are sequenced as error-free 50 bp pairs: uniform background fragments, a
planted enrichment of fragments around six binding sites, and a known share of PCR duplicates
(exact copies of pairs). The compiled workflow aligns, marks duplicates, calls peaks per sample
and writes a CPM-normalised bigWig per sample:
- Picard flags the planted duplicates (its duplication rate is the planted rate within 2 points);
- MACS2, on the samples' BAMs pooled, calls a narrow peak over every planted site with a summit
  within 100 bp of it, and no peak elsewhere;
- the bigWig signal over the sites is more than 5x the genome-wide mean.
"""

from __future__ import annotations

import gzip
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, run_ok

pytestmark = pytest.mark.e2e

SAMPLES = ("chip_1", "chip_2")
QUERY = ("ChIP-seq: align the reads with Bowtie2, mark duplicates with Picard, call peaks with MACS2 "
         "and make CPM-normalised bigWig coverage tracks with deepTools bamCoverage")
CHROMOSOMES = {"chr1": 60_000, "chr2": 40_000}
SITES = (("chr1", 10_000), ("chr1", 25_000), ("chr1", 45_000), ("chr2", 8_000), ("chr2", 20_000), ("chr2", 33_000))
READ_LENGTH = 50
BACKGROUND_FRAGMENTS, SITE_FRAGMENTS = 4000, 250
DUPLICATE_SHARE = 0.10  # of the pairs written, exact copies of another pair
COMPLEMENT = str.maketrans("ACGT", "TGCA")


def _revcomp(seq: str) -> str:
    return seq.translate(COMPLEMENT)[::-1]


def _require(*binaries: str) -> None:
    missing = [b for b in binaries if shutil.which(b, path=env()["PATH"]) is None]
    if not (shutil.which("picard", path=env()["PATH"]) or shutil.which("PicardCommandLine", path=env()["PATH"])):
        missing.append("picard")
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


def _fragments(rng: random.Random) -> list[tuple[str, int, int]]:
    frags = []
    for _ in range(BACKGROUND_FRAGMENTS):
        chrom = rng.choices(list(CHROMOSOMES), weights=list(CHROMOSOMES.values()))[0]
        length = rng.randint(150, 250)
        start = rng.randint(0, CHROMOSOMES[chrom] - length)
        frags.append((chrom, start, length))
    for chrom, site in SITES:
        for _ in range(SITE_FRAGMENTS):
            length = rng.randint(150, 250)
            centre = int(rng.gauss(site, 30))
            frags.append((chrom, centre - length // 2, length))
    return frags


def _write_sample(genome: dict[str, str], rng: random.Random, r1: Path, r2: Path) -> int:
    """Writes the pairs (with DUPLICATE_SHARE exact copies); returns the number of copies."""
    pairs = []
    for chrom, start, length in _fragments(rng):
        fragment = genome[chrom][start:start + length]
        if rng.random() < 0.5:
            fragment = _revcomp(fragment)
        pairs.append((fragment[:READ_LENGTH], _revcomp(fragment)[:READ_LENGTH]))
    copies = int(len(pairs) * DUPLICATE_SHARE / (1 - DUPLICATE_SHARE))
    pairs += [pairs[rng.randrange(len(pairs))] for _ in range(copies)]
    rng.shuffle(pairs)
    quality = "I" * READ_LENGTH
    with gzip.open(r1, "wt") as f1, gzip.open(r2, "wt") as f2:
        for n, (a, b) in enumerate(pairs):
            f1.write(f"@frag{n} 1:N:0:ACGT\n{a}\n+\n{quality}\n")
            f2.write(f"@frag{n} 2:N:0:ACGT\n{b}\n+\n{quality}\n")
    return copies


@pytest.fixture(scope="module")
def chip(tmp_path_factory):
    _require("bowtie2", "bowtie2-build", "samtools", "macs2", "bamCoverage", "snakemake")
    base = tmp_path_factory.mktemp("chipseq")
    rng = random.Random(18)
    genome = {c: "".join(rng.choice("ACGT") for _ in range(n)) for c, n in CHROMOSOMES.items()}
    (base / "genome.fa").write_text("".join(f">{c}\n{s}\n" for c, s in genome.items()))
    (base / "reads").mkdir()
    copies = {s: _write_sample(genome, rng, base / "reads" / f"{s}_R1.fastq.gz", base / "reads" / f"{s}_R2.fastq.gz")
              for s in SAMPLES}
    reads = [str(base / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
    workdir = compile_workflow(QUERY, [*reads, str(base / "genome.fa")], base / "out")
    run_ok(workdir)
    return workdir, copies


def _one(workdir: Path, step: str, sample: str, pattern: str) -> Path:
    found = sorted((workdir / "results" / step / sample).glob(pattern))
    assert len(found) == 1, (step, sample, pattern, found)
    return found[0]


def test_picard_flags_the_planted_duplicates(chip):
    workdir, copies = chip
    for sample in SAMPLES:
        metrics = _one(workdir, "duplicate_marking", sample, "*markdup_metrics.txt").read_text().splitlines()
        header = next(i for i, line in enumerate(metrics) if line.startswith("LIBRARY"))
        row = dict(zip(metrics[header].split("\t"), metrics[header + 1].split("\t")))
        pairs = BACKGROUND_FRAGMENTS + SITE_FRAGMENTS * len(SITES) + copies[sample]
        planted = copies[sample] / pairs
        # random fragments at the same position also count (Picard cannot tell them from copies)
        assert planted - 0.02 <= float(row["PERCENT_DUPLICATION"]) <= planted + 0.02, (sample, row)
        bam = _one(workdir, "duplicate_marking", sample, "*.bam")
        flagged = subprocess.run(["samtools", "view", "-c", "-f", "1024", str(bam)], capture_output=True, text=True,
                                 check=True, env=env()).stdout
        assert int(flagged) >= 2 * copies[sample]  # both mates of every copy


def test_macs2_calls_a_peak_over_every_planted_site(chip):
    """The samples' deduplicated BAMs are pooled into one peak set (peak calls are per study)."""
    workdir, _ = chip
    peaks = [line.split("\t") for line in (workdir / "results/peak_calling/peaks.narrowPeak").read_text().splitlines()]
    summits = [(p[0], int(p[1]) + int(p[9])) for p in peaks]
    for chrom, site in SITES:
        assert sum(c == chrom and abs(s - site) <= 100 for c, s in summits) == 1, (chrom, site, summits)
    assert len(peaks) == len(SITES), peaks  # exactly the planted sites: no peak in the background
    assert all(p[3].startswith("pooled_peak_") for p in peaks)


def test_bigwig_signal_is_enriched_over_the_sites(chip):
    workdir, _ = chip
    probe = ("import pyBigWig, sys, json\n"
             "bw = pyBigWig.open(sys.argv[1])\n"
             "sites = json.loads(sys.argv[2])\n"
             "total = sum(bw.stats(c, 0, n, type='sum', exact=True)[0] or 0 for c, n in bw.chroms().items())\n"
             "mean = total / sum(bw.chroms().values())\n"
             "print(min(bw.stats(c, s - 100, s + 100, exact=True)[0] / mean for c, s in sites))\n")
    import json

    python = shutil.which("python3", path="/usr/bin")  # Debian's python3-deeptools brings pyBigWig there
    for sample in SAMPLES:
        track = _one(workdir, "coverage_computation", sample, "*.bw")
        enrichment = subprocess.run([python, "-c", probe, str(track), json.dumps(SITES)], capture_output=True,
                                    text=True, check=True).stdout
        assert float(enrichment) > 5, (sample, enrichment)
