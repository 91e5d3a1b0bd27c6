"""A tumour/normal cohort sequenced over several lanes, run end to end with the real tools: nf-core/sarek's
sample sheet (patient, sex, status, sample, lane, fastq_1, fastq_2; one row per lane), each lane of a sample
aligned by BWA-MEM under its own read group and the lanes' BAMs merged (samtools merge), as sarek does, then
FreeBayes' somatic mode per patient.

Tiny data generated here, with planted answers: a random 6 kb genome; the tumour carries a somatic SNV
at 1500 (half its fragments) and the normal none; each sample is split over two lanes of different depth,
lane 2 of the tumour with file names equal to lane 1's (in its own folder, as demultiplexers write).
The science: each sample's BAM has one @RG per lane (ID <sample>.<lane>, SM the sample) and every read of
both lanes; the VCF has one column per sample (never per lane: SM is the sample), and the tumour's depth
at the planted SNV is the reads of both lanes that cover it, counted here from the reads.
"""

from __future__ import annotations

import gzip
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from e2e_support import env, require_binaries, run_ok
from test_tumour_normal_run import _COMPLEMENT, _with_snvs

from bioplan.compile import compile_request

pytestmark = pytest.mark.e2e

GENOME_LENGTH = 6000
READ_LENGTH = 100
FRAGMENT = 300  # mates never overlap: a position's depth is the reads over it
SOMATIC = 1500
LANE_DEPTH = {"L001": 24, "L002": 14}
QUERY = "call somatic variants with FreeBayes for each patient's tumour/normal pair, without marking duplicates"


def _lane_reads(haplotypes: list[str], rng: random.Random, depth: int, lane: str) -> tuple[list[str], list[str], int]:
    """Error-free pairs at `depth`, each fragment from one haplotype; and how many reads cover SOMATIC."""
    r1, r2 = [], []
    covering = 0
    qual = "I" * READ_LENGTH
    for i in range(depth * GENOME_LENGTH // (2 * READ_LENGTH)):
        hap = haplotypes[rng.randrange(len(haplotypes))]
        start = rng.randrange(0, GENOME_LENGTH - FRAGMENT)
        fragment = hap[start:start + FRAGMENT]
        # 0-based: read 1 spans start .. start+99, read 2 the fragment's last 100 bases
        for lo in (start, start + FRAGMENT - READ_LENGTH):
            covering += lo <= SOMATIC - 1 < lo + READ_LENGTH
        r1.append(f"@{lane}_pair{i}/1\n{fragment[:READ_LENGTH]}\n+\n{qual}\n")
        r2.append(f"@{lane}_pair{i}/2\n{fragment[-READ_LENGTH:].translate(_COMPLEMENT)[::-1]}\n+\n{qual}\n")
    return r1, r2, covering


@pytest.fixture(scope="module")
def lanes_inputs(tmp_path_factory) -> tuple[list[str], dict[str, int]]:
    """The sarek sheet of one patient's two samples in two lanes each, the genome, and each sample's reads
    over the SNV position summed over its lanes."""
    base = tmp_path_factory.mktemp("lanes")
    rng = random.Random(7)
    genome = "".join(rng.choice("ACGT") for _ in range(GENOME_LENGTH))
    (base / "genome.fa").write_text(">chr1\n" + "\n".join(genome[i:i + 60] for i in range(0, GENOME_LENGTH, 60)) + "\n")
    rows = ["patient,sex,status,sample,lane,fastq_1,fastq_2"]
    depth_at_snv: dict[str, int] = {}
    for sample, status, snvs in (("p1_normal", 0, []), ("p1_tumour", 1, [SOMATIC])):
        for lane, depth in LANE_DEPTH.items():
            folder = base / lane
            folder.mkdir(exist_ok=True)
            r1, r2, covering = _lane_reads([genome, _with_snvs(genome, snvs)], rng, depth, lane)
            depth_at_snv[sample] = depth_at_snv.get(sample, 0) + covering
            names = []
            for mate, lines in (("R1", r1), ("R2", r2)):
                # the same file names in both lanes' folders (bcl2fastq per-lane output folders)
                path = folder / f"{sample}_{mate}.fastq.gz"
                with gzip.open(path, "wt") as fh:
                    fh.writelines(lines)
                names.append(f"{lane}/{path.name}")
            rows.append(f"p1,XX,{status},{sample},{lane},{names[0]},{names[1]}")
    (base / "samplesheet.csv").write_text("\n".join(rows) + "\n")
    return [str(base / "samplesheet.csv"), str(base / "genome.fa")], depth_at_snv


@pytest.fixture(scope="module")
def lanes_run(lanes_inputs, tmp_path_factory):
    require_binaries("bwa", "samtools", "freebayes", "bgzip", "tabix", "snakemake")
    workdir = tmp_path_factory.mktemp("lanes_run")
    compile_request(QUERY, lanes_inputs[0], str(workdir / "Snakefile"), force=True, validate=False)
    run_ok(workdir)
    return workdir


def _vcf(workdir: Path) -> tuple[list[str], list[list[str]]]:
    found = sorted((workdir / "results").glob("*/p1_tumour_vs_p1_normal/somatic.vcf.gz"))
    assert len(found) == 1, found
    with gzip.open(found[0], "rt") as fh:
        lines = [line.rstrip("\n") for line in fh]
    header = next(line for line in lines if line.startswith("#CHROM")).split("\t")
    return header[9:], [line.split("\t") for line in lines if not line.startswith("#")]


def test_the_sample_sheet_keeps_one_row_per_lane(lanes_run):
    sheet = [line.split("\t") for line in (lanes_run / "config" / "samples.tsv").read_text().splitlines()]
    assert sheet[0][:4] == ["sample", "patient", "status", "lane"]
    assert sorted((row[0], row[3]) for row in sheet[1:]) == [
        ("p1_normal", "L001"), ("p1_normal", "L002"), ("p1_tumour", "L001"), ("p1_tumour", "L002")]


def _read_groups(bam: Path) -> list[dict[str, str]]:
    header = subprocess.run(["samtools", "view", "-H", str(bam)], capture_output=True, text=True, check=True,
                            env=env()).stdout
    return [dict(field.split(":", 1) for field in line.split("\t")[1:])
            for line in header.splitlines() if line.startswith("@RG")]


def _assert_one_read_group_per_lane(bam: Path, sample: str) -> None:
    """sarek's read groups: one per lane (ID <sample>.<lane>), SM and LB the sample; every read of both
    lanes once, each tagged with its lane's group (the L001_/L002_ read names say which lane it came from)."""
    groups = _read_groups(bam)
    assert sorted(g["ID"] for g in groups) == [f"{sample}.{lane}" for lane in LANE_DEPTH], groups
    assert all(g["SM"] == sample and g["LB"] == sample and g["PL"] == "ILLUMINA" for g in groups), groups
    # bwa ran as sarek runs it: batches independent of the thread count, soft-clipped supplementary alignments
    header = subprocess.run(["samtools", "view", "-H", str(bam)], capture_output=True, text=True, check=True,
                            env=env()).stdout
    bwa = [line for line in header.splitlines() if line.startswith("@PG") and "\tID:bwa" in line]
    assert bwa and all(" -K 100000000 -Y " in line for line in bwa), bwa
    reads = subprocess.run(["samtools", "view", "-F", "0x900", str(bam)], capture_output=True, text=True,
                           check=True, env=env()).stdout.splitlines()
    pairs = {lane: depth * GENOME_LENGTH // (2 * READ_LENGTH) for lane, depth in LANE_DEPTH.items()}
    assert len(reads) == 2 * sum(pairs.values())  # both lanes' reads, each once
    tagged = Counter((r.split("\t")[0].split("_")[0], next(t[5:] for t in r.split("\t")[11:] if t.startswith("RG:Z:")))
                     for r in reads)
    assert tagged == Counter({(lane, f"{sample}.{lane}"): 2 * n for lane, n in pairs.items()}), tagged


def test_each_lane_of_a_sample_is_its_own_read_group(lanes_run):
    for sample in ("p1_normal", "p1_tumour"):
        _assert_one_read_group_per_lane(next((lanes_run / "results").glob(f"read_alignment/{sample}/*.bam")), sample)
    # aligned lane by lane, not concatenated first
    assert not (lanes_run / "results" / "cat_fastq").exists()


def test_the_planted_snvs_depth_is_the_sum_of_both_lanes(lanes_run, lanes_inputs):
    samples, records = _vcf(lanes_run)
    assert sorted(samples) == ["p1_normal", "p1_tumour"]  # one column per sample, none per lane
    snv = next(r for r in records if int(r[1]) == SOMATIC)
    assert snv[6] == "PASS"
    keys = snv[8].split(":")
    for sample, values in zip(samples, snv[9:]):
        depth = int(dict(zip(keys, values.split(":")))["DP"])
        assert depth == lanes_inputs[1][sample], (sample, depth, lanes_inputs[1])
    assert {int(r[1]) for r in records if r[6] == "PASS"} == {SOMATIC}


def test_the_nextflow_pipeline_of_lanes_passes_the_strict_parser(lanes_inputs, nf_lint, tmp_path):
    """The same sheet for Nextflow: the lane rows grouped by sample into the aligner, lanes staged apart."""
    compile_request(QUERY, lanes_inputs[0], str(tmp_path / "nf" / "main.nf"), force=True, target="nextflow")
    module = (tmp_path / "nf" / "modules" / "local" / "bwa" / "mem" / "main.nf").read_text()
    assert "path(reads, stageAs: 'lane*/*')" in module and "def lanes = meta.lanes" in module
    assert "READ_ALIGNMENT (\n        ch_reads" in (tmp_path / "nf" / "workflows" / "bioplan.nf").read_text()
    proc = nf_lint(tmp_path / "nf")
    assert proc.returncode == 0 and ": OK (" in proc.stdout, proc.stdout + proc.stderr


def test_the_nextflow_pipeline_merges_the_lanes_the_same(lanes_inputs, tmp_path):
    """The Nextflow target run for real (-profile local, the same tools): each sample's lanes aligned under
    their own read groups in one task per sample, then the tumour/normal pair; the same science as the
    Snakemake run (one @RG per lane, one VCF column per sample, DP = both lanes)."""
    from test_nextflow_run import nextflow_bin, run_nextflow

    require_binaries("bwa", "samtools", "freebayes", "bgzip", "tabix")
    nextflow_bin()
    workdir = tmp_path / "nf"
    compile_request(QUERY, lanes_inputs[0], str(workdir / "main.nf"), force=True, target="nextflow",
                    validate=False)
    proc = run_nextflow(workdir)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert proc.stdout.count("Submitted process > BIOPLAN:READ_ALIGNMENT (") == 2  # one per sample, not per lane
    assert "CAT_FASTQ" not in proc.stdout
    for sample in ("p1_normal", "p1_tumour"):
        _assert_one_read_group_per_lane(next(workdir.glob(f"results/read_alignment/{sample}*.bam")), sample)
    found = sorted(workdir.glob("results/*/p1_tumour_vs_p1_normal*somatic.vcf.gz"))
    assert len(found) == 1, found
    with gzip.open(found[0], "rt") as fh:
        lines = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("##")]
    samples, records = lines[0][9:], lines[1:]
    assert sorted(samples) == ["p1_normal", "p1_tumour"]
    snv = next(r for r in records if int(r[1]) == SOMATIC)
    keys = snv[8].split(":")
    assert {s: int(dict(zip(keys, v.split(":")))["DP"]) for s, v in zip(samples, snv[9:])} == lanes_inputs[1]
    # the cohort summary: the pair's row, its records and the one passing (the planted SNV)
    table = next(workdir.glob("results/*/call_set_summary.tsv")).read_text().splitlines()
    assert table == ["pair\tvariants\tpassing", f"p1_tumour_vs_p1_normal\t{len(records)}\t1"]


# --------------------------------------------------------------------------- fastp before BWA-MEM, per lane
TRIM_QUERY = ("trim the reads with fastp, then call somatic variants with FreeBayes for each patient's tumour/normal "
              "pair, without marking duplicates")


def _assert_trimmed_per_lane(reports: Path, sample: str) -> None:
    """fastp ran once per lane (sarek's FASTP per lane): one report per lane, named <sample>.<lane>, each
    counting that lane's reads only (error-free pairs without adapters: every read kept)."""
    import json

    found = sorted(p.name for p in reports.glob("*.fastp.json"))
    assert found == [f"{sample}.{lane}.fastp.json" for lane in LANE_DEPTH], found
    for lane, depth in LANE_DEPTH.items():
        summary = json.loads((reports / f"{sample}.{lane}.fastp.json").read_text())["summary"]
        pairs = depth * GENOME_LENGTH // (2 * READ_LENGTH)
        assert summary["before_filtering"]["total_reads"] == summary["after_filtering"]["total_reads"] == 2 * pairs


def test_fastp_trims_each_lane_and_bwa_keeps_its_read_group(lanes_inputs, tmp_path):
    """fastp before BWA-MEM in a variant pipeline: each lane trimmed apart, then aligned under its own read
    group (were concatenated before fastp: one @RG per sample); MultiQC reads every lane's report."""
    require_binaries("bwa", "samtools", "freebayes", "bgzip", "tabix", "fastp", "multiqc", "snakemake")
    workdir = tmp_path / "trimmed"
    compile_request(TRIM_QUERY, lanes_inputs[0], str(workdir / "Snakefile"), force=True, validate=False)
    run_ok(workdir)
    assert not (workdir / "results" / "cat_fastq").exists()
    for sample in ("p1_normal", "p1_tumour"):
        _assert_trimmed_per_lane(workdir / "results" / "read_trimming" / sample / f"{sample}_fastp_lanes", sample)
        _assert_one_read_group_per_lane(workdir / "results" / "read_alignment" / sample / f"{sample}.bam", sample)
        # the trimmed lanes are an intermediate: deleted once aligned (keep_intermediates keeps them)
        assert not (workdir / "results" / "read_trimming" / sample / f"{sample}_trimmed_lanes").exists()
    general = (workdir / "results" / "qc_report_aggregation" / "multiqc_data" / "multiqc_general_stats.txt")
    names = {line.split("\t")[0] for line in general.read_text().splitlines()[1:]}
    # one row per lane, named after the lane's read 1 as fastp was given it (<sample>.<lane>_1)
    assert {f"{s}.{lane}_1" for s in ("p1_normal", "p1_tumour") for lane in LANE_DEPTH} <= names, names
    samples, records = _vcf(workdir)
    snv = next(r for r in records if int(r[1]) == SOMATIC)
    keys = snv[8].split(":")
    assert {s: int(dict(zip(keys, v.split(":")))["DP"]) for s, v in zip(samples, snv[9:])} == lanes_inputs[1]


def test_the_nextflow_pipeline_trims_each_lane_the_same(lanes_inputs, tmp_path):
    from test_nextflow_run import nextflow_bin, run_nextflow

    require_binaries("bwa", "samtools", "freebayes", "bgzip", "tabix", "fastp", "multiqc")
    nextflow_bin()
    workdir = tmp_path / "nf_trimmed"
    compile_request(TRIM_QUERY, lanes_inputs[0], str(workdir / "main.nf"), force=True, target="nextflow",
                    validate=False)
    proc = run_nextflow(workdir)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert proc.stdout.count("Submitted process > BIOPLAN:READ_TRIMMING (") == 2  # one per sample, lanes inside
    for sample in ("p1_normal", "p1_tumour"):
        _assert_trimmed_per_lane(next(workdir.glob(f"results/read_trimming/{sample}_fastp_lanes")), sample)
        _assert_one_read_group_per_lane(next(workdir.glob(f"results/read_alignment/{sample}*.bam")), sample)
