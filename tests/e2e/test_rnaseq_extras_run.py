"""nf-core/rnaseq's further tools run end to end (issue 18, B1): RSEM, SortMeRNA, UMI-tools, RSeQC.

Each workflow is compiled from a request naming the tools and run with the real tools on the rnaseq
example's reads (reads cut from the known transcripts of genes.gtf, with known counts per sample),
two samples per run to keep it short, and checked against what was planted:
- RSEM: each gene's expected count is the true number of fragments drawn from it (within 10%), the
  unexpressed gene gets none, and the planted fold changes show (up in treated, down in treated);
- SortMeRNA: reads drawn from a planted rRNA sequence (given as the rRNA database) are all removed
  and every mRNA read pair is kept, as pairs;
- UMI-tools: reads carry an 8-base UMI in front of read 1; each planted molecule amplified into 5
  PCR copies with one UMI leaves exactly one copy after `umi_tools dedup`, while two molecules at
  one position with distant UMIs both stay, and the extracted reads keep the UMI in their names;
- RSeQC: infer_experiment calls the (unstranded) example library unstranded and read_distribution
  puts most tags in exons.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from e2e_support import BIN, INSTALL_HINT, env, generate, keep_intermediates, run_ok, set_param, truth

pytestmark = pytest.mark.e2e

SAMPLES = ("ctrl_1", "treated_1")
UMI_LENGTH = 8
PCR_GROUPS = 100  # pairs amplified into PCR_COPIES copies sharing one UMI
PCR_COPIES = 5
TWINS = 50  # pairs present twice, as two molecules with distant UMIs
PLANTED_RRNA_PAIRS = 300


def _require(*binaries: str) -> None:
    missing = [b for b in (*binaries, "snakemake") if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


def _compile(query: str, files: list[str], workdir: Path, declared: dict[str, str] | None = None) -> Path:
    from bioplan.compile import compile_request

    # no pre-check (a `snakemake -n` start): each test runs the whole workflow next (e2e_support.compile_workflow)
    compile_request(query, files, str(workdir / "Snakefile"), force=True, declared=declared, validate=False)
    return workdir


def _fastq(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt") as fh:
        lines = fh.read().splitlines()
    return [lines[i:i + 4] for i in range(0, len(lines), 4)]


def _write_fastq(path: Path, records: list[str]) -> None:
    with gzip.open(path, "wt") as fh:
        fh.write("".join(records))


def _reads(d: Path) -> list[str]:
    return [str(d / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    base = tmp_path_factory.mktemp("rnaseq_extras")
    d = generate(base, "rnaseq_fastq") / "rnaseq_fastq"
    return base, d, truth(base / "data", "rnaseq_fastq")


# ---------------------------------------------------------------- RSEM

@pytest.fixture(scope="module")
def rsem(example):
    _require("rsem-prepare-reference", "rsem-calculate-expression", "bowtie2")
    base, d, t = example
    workdir = _compile("mouse RNA-seq: quantify transcripts with RSEM",
                       [*_reads(d), str(d / "transcripts.fa")], base / "rsem")
    # Bowtie2 builds the tiny example's index in a second; STAR's default index takes a minute
    set_param(workdir, "rsem_prepare_reference", "aligner", "bowtie2")
    set_param(workdir, "rsem_calculate_expression", "aligner", "bowtie2")
    run_ok(workdir)
    counts = {}
    for s in SAMPLES:
        with open(workdir / "results/transcript_quantification" / s / f"{s}.genes.results") as fh:
            counts[s] = {r["gene_id"]: float(r["expected_count"]) for r in csv.DictReader(fh, delimiter="\t")}
    return counts, t


def test_rsem_gene_counts_are_the_true_fragment_counts(rsem):
    counts, t = rsem
    for s in SAMPLES:
        assert set(counts[s]) == set(t["true_counts"][s]), s  # gene ids from the transcripts' headers
        for gene, true in t["true_counts"][s].items():
            assert abs(counts[s][gene] - true) <= max(5.0, 0.1 * true), (s, gene, counts[s][gene], true)
        for gene in t["not_expressed"]:
            assert counts[s][gene] == 0.0, (s, gene)


def test_rsem_counts_carry_the_planted_fold_changes(rsem):
    counts, t = rsem
    share = {s: {g: c / sum(counts[s].values()) for g, c in counts[s].items()} for s in SAMPLES}
    for gene, planted in t["planted_fold_changes"].items():
        ratio = share["treated_1"][gene] / share["ctrl_1"][gene]
        assert (ratio > 2.0) if planted["log2fc"] > 0 else (ratio < 0.5), (gene, ratio, planted)


# ---------------------------------------------------------------- SortMeRNA

def _plant_rrna(d: Path, out: Path) -> tuple[Path, list[str]]:
    """Reads of a random 1.8 kb 'rRNA' added to each sample's pairs; the rRNA FASTA is the database."""
    rng = random.Random(18)
    rrna = "".join(rng.choice("ACGT") for _ in range(1800))
    database = out / "rRNA_silva.fasta"
    database.write_text(">planted_rRNA\n" + "\n".join(rrna[i:i + 60] for i in range(0, len(rrna), 60)) + "\n")
    complement = str.maketrans("ACGT", "TGCA")
    files = []
    for s in SAMPLES:
        mates = {m: ["\n".join(r) + "\n" for r in _fastq(d / "reads" / f"{s}_R{m}.fastq.gz")] for m in (1, 2)}
        for i in range(PLANTED_RRNA_PAIRS):
            start = rng.randrange(0, len(rrna) - 220)
            fragment = rrna[start:start + 220]
            for m, seq in ((1, fragment[:75]), (2, fragment.translate(complement)[::-1][:75])):
                mates[m].append(f"@RRNA:{i} {m}:N:0:ATCACG\n{seq}\n+\n{'I' * 75}\n")
        for m in (1, 2):
            _write_fastq(out / f"{s}_R{m}.fastq.gz", mates[m])
            files.append(str(out / f"{s}_R{m}.fastq.gz"))
    return database, files


@pytest.fixture(scope="module")
def sortmerna(example):
    _require("sortmerna")
    base, d, _ = example
    planted = base / "sortmerna_reads"
    planted.mkdir()
    database, files = _plant_rrna(d, planted)
    workdir = _compile("mouse RNA-seq: remove rRNA reads with SortMeRNA", [*files, str(database)],
                       base / "sortmerna", declared={str(database): "rrna_database"})
    run_ok(workdir)
    return workdir, d


def test_sortmerna_removes_the_planted_rrna_reads_and_keeps_the_pairs(sortmerna):
    workdir, d = sortmerna
    for s in SAMPLES:
        names = {}
        for m in (1, 2):
            kept = _fastq(workdir / "results/rrna_removal" / s / f"filtered_{m}.fastq.gz")
            names[m] = [r[0].split()[0] for r in kept]
        assert not [n for n in names[1] + names[2] if n.startswith("@RRNA:")], s
        original = [r[0].split()[0] for r in _fastq(d / "reads" / f"{s}_R1.fastq.gz")]
        # every mRNA pair kept (SortMeRNA's threads may reorder them), mates in step
        assert names[1] == names[2] and sorted(names[1]) == sorted(original), s
        log = (workdir / "results/rrna_removal" / s / f"{s}.sortmerna.log").read_text()
        assert re.search(rf"passing E-value threshold = {2 * PLANTED_RRNA_PAIRS}\b", log), s


# ---------------------------------------------------------------- UMI-tools

def _plant_umis(d: Path, out: Path) -> list[str]:
    """Read 1 gets an 8-base UMI; PCR groups are PCR_COPIES copies of one pair with one UMI, twins two
    copies with distant UMIs (two molecules at one position); the names say which is which."""
    rng = random.Random(20)
    files = []
    for s in SAMPLES:
        out1, out2 = [], []
        pairs = zip(_fastq(d / "reads" / f"{s}_R1.fastq.gz"), _fastq(d / "reads" / f"{s}_R2.fastq.gz"))
        for i, (r1, r2) in enumerate(pairs):
            umi = "".join(rng.choice("ACGT") for _ in range(UMI_LENGTH))
            if i < PCR_GROUPS:
                copies = [(f"PCR{i}x{k}", umi) for k in range(PCR_COPIES)]
            elif i < PCR_GROUPS + TWINS:
                copies = [(f"TWIN{i}xa", "AAAAAAAA"), (f"TWIN{i}xb", "GGGGGGGG")]
            else:
                copies = [(f"MOL{i}", umi)]
            for name, u in copies:
                out1.append(f"@{name} 1:N:0:ATCACG\n{u}{r1[1]}\n+\n{'I' * UMI_LENGTH}{r1[3]}\n")
                out2.append(f"@{name} 2:N:0:ATCACG\n{r2[1]}\n+\n{r2[3]}\n")
        for m, records in ((1, out1), (2, out2)):
            _write_fastq(out / f"{s}_R{m}.fastq.gz", records)
            files.append(str(out / f"{s}_R{m}.fastq.gz"))
    return files


@pytest.fixture(scope="module")
def umitools(example):
    _require("umi_tools", "hisat2", "hisat2-build", "samtools", "featureCounts")
    base, d, _ = example
    planted = base / "umi_reads"
    planted.mkdir()
    files = _plant_umis(d, planted)
    workdir = _compile("mouse RNA-seq: extract the UMIs with UMI-tools, align the reads to the genome with HISAT2, "
                       "deduplicate by UMI and count reads per gene with featureCounts",
                       [*files, str(d / "genome.fa"), str(d / "genes.gtf")], base / "umi")
    keep_intermediates(workdir)  # the BAM before deduplication is the comparison
    run_ok(workdir)
    return workdir


def _molecules(bam: Path) -> Counter:
    """Properly paired read 1 alignments per planted molecule name (PCR<i>, TWIN<i>x<a|b>, MOL<i>); a pair
    with one mate unaligned has no fragment position, which umi_tools dedup --paired needs."""
    import pysam

    found: Counter = Counter()
    with pysam.AlignmentFile(str(bam)) as fh:
        for r in fh:
            if r.is_read1 and r.is_proper_pair and not (r.is_unmapped or r.is_secondary or r.is_supplementary):
                found[re.sub(r"x\d+$", "", r.query_name.rsplit("_", 1)[0])] += 1
    return found


def test_umi_dedup_collapses_pcr_copies_and_keeps_distinct_molecules(umitools):
    workdir = umitools
    for s in SAMPLES:
        before = _molecules(workdir / "results/read_alignment" / s / f"{s}.bam")
        after = _molecules(workdir / "results/umi_deduplication" / s / f"{s}.umi_dedup.bam")
        groups = [k for k, n in before.items() if k.startswith("PCR") and n == PCR_COPIES]
        assert len(groups) >= 0.9 * PCR_GROUPS, (s, len(groups))
        assert all(after[g] == 1 for g in groups), (s, [g for g in groups if after[g] != 1][:5])
        twins = [k for k in before if k.startswith("TWIN")]
        assert len(twins) >= 1.8 * TWINS and sum(after[k] == 1 for k in twins) >= 0.95 * len(twins), s
        molecules = [k for k in before if k.startswith("MOL")]
        assert sum(after[k] == 1 for k in molecules) >= 0.95 * len(molecules), s


def test_umi_extract_moves_the_umi_into_the_read_names(umitools):
    workdir = umitools
    for s in SAMPLES:
        first = _fastq(workdir / "results/umi_extraction" / s / "extracted_1.fastq.gz")[:50]
        for header, seq, _, _ in first:
            umi = header.split()[0].rsplit("_", 1)[1]
            assert re.fullmatch(f"[ACGTN]{{{UMI_LENGTH}}}", umi) and len(seq) == 75, header


# ---------------------------------------------------------------- RSeQC

@pytest.fixture(scope="module")
def rseqc(example):
    _require("hisat2", "hisat2-build", "samtools")
    if shutil.which("infer_experiment.py", path=str(BIN)) is None:
        message = f"RSeQC missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base, d, _ = example
    workdir = _compile("mouse RNA-seq: align the reads to the genome with HISAT2, infer the strandedness with "
                       "RSeQC infer_experiment and the read distribution with RSeQC read_distribution",
                       [*_reads(d), str(d / "genome.fa"), str(d / "genes.gtf")], base / "rseqc")
    run_ok(workdir)
    return workdir, truth(base / "data", "rnaseq_fastq")


def test_rseqc_calls_the_example_library_unstranded(rseqc):
    workdir, t = rseqc
    assert t["strandedness"] == "unstranded"
    for s in SAMPLES:
        text = (workdir / "results/strandedness_inference" / s / f"{s}.infer_experiment.txt").read_text()
        forward = float(re.search(r'"1\+\+,1--,2\+-,2-\+": ([0-9.]+)', text).group(1))
        reverse = float(re.search(r'"1\+-,1-\+,2\+\+,2--": ([0-9.]+)', text).group(1))
        assert forward > 0.35 and reverse > 0.35 and abs(forward - reverse) < 0.15, (s, forward, reverse)


def test_rseqc_read_distribution_puts_the_tags_in_exons(rseqc):
    workdir, _ = rseqc
    for s in SAMPLES:
        text = (workdir / "results/rnaseq_alignment_qc" / s / f"{s}.read_distribution.txt").read_text()
        # Group, Total_bases, Tag_count, Tags/Kb (lines padded with spaces)
        tags = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+\d+\s+(\d+)\s+[0-9.]+\s*$", text, re.M)}
        exonic = tags["CDS_Exons"] + tags["5'UTR_Exons"] + tags["3'UTR_Exons"]
        assert exonic > 0.9 * sum(tags.values()), (s, tags)
