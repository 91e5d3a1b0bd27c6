"""A tumour/normal cohort run end to end with the real tools: two patients, each tumour called against
its own patient's normal (nf-core/sarek's sample sheet: patient, sample, status), FreeBayes' somatic mode
once per tumour/normal pair (sarek's <tumour>_vs_<normal>); patient p1 has a primary and a relapse.

Tiny data generated here, with planted answers: a random 6 kb genome; each patient's tumour carries
one somatic SNV of its own (p1 at 1500, p2 at 4500, half the reads); p1's relapse carries the primary's
SNV and one of its own (2200); patient p1 also carries a germline SNV at 3000 in all its samples.
BWA-MEM aligns the reads, FreeBayes calls each pair's tumour and normal together, and the somatic filter
marks PASS exactly that tumour's somatic SNVs: never the other patient's, the relapse-only SNV only in
p1_relapse_vs_p1_normal, and p1's germline SNV is FILTERed as normal_evidence (seen in the normal).
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from e2e_support import require_binaries, run_ok

from bioplan.compile import compile_request

pytestmark = pytest.mark.e2e

GENOME_LENGTH = 6000
READ_LENGTH = 100
FRAGMENT = 300
DEPTH = 30
SOMATIC = {"p1": 1500, "p2": 4500}  # 1-based; heterozygous in the patient's tumour (and p1's relapse) only
RELAPSE_ONLY = 2200  # heterozygous in p1's relapse only
GERMLINE = {"p1": 3000}  # heterozygous in all of the patient's samples
# each tumour against its patient's normal: the pairs and the SNVs their calls PASS
PAIRS = {"p1_tumour_vs_p1_normal": {1500}, "p1_relapse_vs_p1_normal": {1500, RELAPSE_ONLY},
         "p2_tumour_vs_p2_normal": {4500}}
QUERY = ("call somatic variants with FreeBayes for each patient's tumour/normal pair, "
         "without marking duplicates")


_COMPLEMENT = str.maketrans("ACGT", "TGCA")


def _alt(base: str) -> str:
    return {"A": "C", "C": "G", "G": "T", "T": "A"}[base]


def _with_snvs(genome: str, positions: list[int]) -> str:
    seq = list(genome)
    for pos in positions:
        seq[pos - 1] = _alt(seq[pos - 1])
    return "".join(seq)


def _reads(haplotypes: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
    """Error-free pairs at DEPTH, each fragment from one of the haplotypes (two: heterozygous)."""
    r1, r2 = [], []
    qual = "I" * READ_LENGTH
    for i in range(DEPTH * GENOME_LENGTH // (2 * READ_LENGTH)):
        hap = haplotypes[rng.randrange(len(haplotypes))]
        start = rng.randrange(0, GENOME_LENGTH - FRAGMENT)
        fragment = hap[start:start + FRAGMENT]
        r1.append(f"@pair{i}/1\n{fragment[:READ_LENGTH]}\n+\n{qual}\n")
        r2.append(f"@pair{i}/2\n{fragment[-READ_LENGTH:].translate(_COMPLEMENT)[::-1]}\n+\n{qual}\n")
    return r1, r2


@pytest.fixture(scope="module")
def cohort_inputs(tmp_path_factory) -> list[str]:
    """Two patients' reads, the sample sheet pairing them and the genome."""
    base = tmp_path_factory.mktemp("tumour_normal")
    rng = random.Random(11)
    genome = "".join(rng.choice("ACGT") for _ in range(GENOME_LENGTH))
    (base / "genome.fa").write_text(">chr1\n" + "\n".join(genome[i:i + 60] for i in range(0, GENOME_LENGTH, 60)) + "\n")
    rows = ["patient\tsample\tstatus"]
    for patient, somatic in SOMATIC.items():
        germline = [GERMLINE[patient]] if patient in GERMLINE else []
        samples = {f"{patient}_normal": ("0", germline), f"{patient}_tumour": ("1", germline + [somatic])}
        if patient == "p1":  # a relapse: the primary's SNV and one of its own
            samples[f"{patient}_relapse"] = ("1", germline + [somatic, RELAPSE_ONLY])
        for sample, (status, snvs) in samples.items():
            rows.append(f"{patient}\t{sample}\t{status}")
            # heterozygous: half the fragments from the reference, half from the variant haplotype
            # (a germline SNV with no somatic one beside it is on the same variant haplotype)
            for mate, lines in zip(("R1", "R2"), _reads([genome, _with_snvs(genome, snvs)], rng)):
                with gzip.open(base / f"{sample}_{mate}.fastq.gz", "wt") as fh:
                    fh.writelines(lines)
    (base / "samples.tsv").write_text("\n".join(rows) + "\n")
    return sorted(str(p) for p in base.glob("*.fastq.gz")) + [str(base / "samples.tsv"), str(base / "genome.fa")]


@pytest.fixture(scope="module")
def cohort_run(cohort_inputs, tmp_path_factory):
    require_binaries("bwa", "samtools", "freebayes", "bgzip", "tabix", "snakemake")
    workdir = tmp_path_factory.mktemp("tumour_normal_run")
    # no pre-check dry run: the run right after it is the check (CI's time budget)
    compile_request(QUERY, cohort_inputs, str(workdir / "Snakefile"), force=True, validate=False)
    run_ok(workdir)
    return workdir


def _records(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt") as fh:
        return [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")]


def _samples(path: Path) -> list[str]:
    with gzip.open(path, "rt") as fh:
        return next(line for line in fh if line.startswith("#CHROM")).rstrip("\n").split("\t")[9:]


def _call_set(workdir: Path, pair: str) -> Path:
    found = sorted((workdir / "results").glob(f"*/{pair}/somatic.vcf.gz"))
    assert len(found) == 1, found
    return found[0]


def test_each_tumour_is_its_own_pair_with_its_patients_normal(cohort_run):
    folders = {p.name for p in (cohort_run / "results" / "somatic_variant_calling_bgzip").iterdir()}
    assert folders == set(PAIRS)


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_each_pairs_somatic_calls_are_its_tumours_planted_snvs(cohort_run, pair):
    vcf = _call_set(cohort_run, pair)
    assert (vcf.parent / "somatic.vcf.gz.tbi").exists()
    # called against its own normal only: the VCF holds the pair's two samples, no other's
    tumour, normal = pair.split("_vs_")
    assert sorted(_samples(vcf)) == sorted([tumour, normal])
    passed = {int(r[1]) for r in _records(vcf) if r[6] == "PASS"}
    assert passed == PAIRS[pair]
    others = {pos for p, pos in SOMATIC.items() if not pair.startswith(p + "_")}
    assert not others & {int(r[1]) for r in _records(vcf)}  # the other patient's SNV is not even called


def test_the_relapse_only_snv_is_only_in_the_relapse_pair(cohort_run):
    """Science: a SNV of the relapse alone is not called at all in the primary's pair (the primary's reads
    never show it), and PASSes in the relapse's."""
    assert RELAPSE_ONLY not in {int(r[1]) for r in _records(_call_set(cohort_run, "p1_tumour_vs_p1_normal"))}
    relapse = {int(r[1]): r for r in _records(_call_set(cohort_run, "p1_relapse_vs_p1_normal"))}
    assert relapse[RELAPSE_ONLY][6] == "PASS"


def test_the_cohort_summary_counts_each_pairs_calls(cohort_run):
    """One row per pair: the records of its VCF and those passing (its planted somatic SNVs)."""
    table = (cohort_run / "results" / "somatic_variant_calling_bgzip_summary" / "call_set_summary.tsv")
    rows = [line.split("\t") for line in table.read_text().splitlines()]
    assert rows[0] == ["pair", "variants", "passing"]
    assert {r[0]: (int(r[1]), int(r[2])) for r in rows[1:]} == {
        pair: (len(_records(_call_set(cohort_run, pair))), len(passed)) for pair, passed in PAIRS.items()}


def test_a_germline_snv_seen_in_the_normal_is_not_somatic(cohort_run):
    for pair in ("p1_tumour_vs_p1_normal", "p1_relapse_vs_p1_normal"):
        records = {int(r[1]): r for r in _records(_call_set(cohort_run, pair))}
        assert records[GERMLINE["p1"]][6] == "normal_evidence"


def test_the_sample_sheet_pairs_the_patients(cohort_run):
    sheet = (cohort_run / "config" / "samples.tsv").read_text().splitlines()
    assert sheet[0].split("\t")[:3] == ["sample", "patient", "status"]
    assert {tuple(line.split("\t")[:3]) for line in sheet[1:]} == {
        ("p1_normal", "p1", "normal"), ("p1_tumour", "p1", "tumour"), ("p1_relapse", "p1", "tumour"),
        ("p2_normal", "p2", "normal"), ("p2_tumour", "p2", "tumour")}


def test_the_nextflow_pipelines_of_a_cohort_pass_the_strict_parser(cohort_inputs, nf_lint, tmp_path):
    """The same cohort for Nextflow (groupTuple on meta.patient, the patient's normal in meta), and
    Mutect2 reading each patient's contamination table (two per-patient channels joined on its meta)."""
    queries = {"freebayes": QUERY,
               "mutect2": "tumour/normal pairs: call somatic variants with Mutect2 and estimate cross-sample "
                          "contamination with GetPileupSummaries and CalculateContamination"}
    for name, query in queries.items():
        compile_request(query, cohort_inputs, str(tmp_path / name / "main.nf"), force=True, target="nextflow")
    workflow = (tmp_path / "mutect2" / "workflows" / "bioplan.nf").read_text()
    assert ".groupTuple()" in workflow and ".join(CONTAMINATION_ESTIMATION.out.table, failOnMismatch: true)" in workflow
    proc = nf_lint(*(tmp_path / name for name in queries))
    assert proc.returncode == 0 and proc.stdout.count(": OK (") == 2, proc.stdout + proc.stderr
