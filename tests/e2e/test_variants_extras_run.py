"""nf-core/sarek's further variant steps run end to end with the real tools (issue 18, B2).

Tiny data generated here, with planted answers:
- a call set of five records and a truth set sharing three of them (two more of its own): bcftools
  isec splits them into 2 private, 2 missed and 3 shared records, exactly the planted ones;
- a ClinVar-like database with CLNSIG for one of the calls (same position and alleles) and for a
  different allele at another call's position: SnpSift annotate and bcftools annotate copy
  `CLNSIG=Pathogenic` (and the rs id) onto the first call only;
- SnpSift filter's default (QUAL >= 20 and DP >= 10) keeps the calls planted above both limits;
- per-sample VCFs merged by bcftools merge (a column per sample, missing where uncalled) and
  per-region VCFs concatenated by bcftools concat in genome order;
- paired reads simulated at a known depth from a random genome with homozygous SNVs planted in the
  sample: BWA-MEM aligns them, mosdepth's mean depth matches the simulated depth and FreeBayes
  calls exactly the planted SNVs (position, REF, ALT, genotype 1/1).
"""

from __future__ import annotations

import gzip
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_support import compile_workflow, env, require_binaries, run_ok, set_param

pytestmark = pytest.mark.e2e

GENOME_LENGTH = 6000
READ_LENGTH = 100
FRAGMENT = 300
DEPTH = 30  # planted mean depth of the simulated sample
SNV_POSITIONS = (1000, 2500, 4000)  # 1-based, homozygous ALT in the sample


def _snpsift() -> str:
    """The SnpSift launcher: SnpSift (bioconda) or snpSift (Debian)."""
    return "SnpSift" if shutil.which("SnpSift", path=env()["PATH"]) else "snpSift"


def _write_fasta(path: Path, name: str, seq: str) -> None:
    path.write_text(f">{name}\n" + "\n".join(seq[i:i + 60] for i in range(0, len(seq), 60)) + "\n")


def _vcf(records: list[tuple], info_header: str = "") -> str:
    lines = ["##fileformat=VCFv4.2", f"##contig=<ID=chr1,length={GENOME_LENGTH}>",
             '##INFO=<ID=DP,Number=1,Type=Integer,Description="Total depth">']
    lines += [info_header] if info_header else []
    lines.append("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO")
    lines += ["\t".join(map(str, r)) for r in records]
    return "\n".join(lines) + "\n"


def _bgzip_indexed(text: str, path: Path) -> Path:
    plain = path.with_suffix("")  # x.vcf.gz -> x.vcf
    plain.write_text(text)
    subprocess.run(["bgzip", "-f", str(plain)], check=True, env=env())
    subprocess.run(["tabix", "-f", "-p", "vcf", str(path)], check=True, env=env())
    return path


def _alt(ref: str) -> str:
    return next(b for b in "ACGT" if b != ref)


@pytest.fixture(scope="module")
def call_sets(tmp_path_factory):
    """calls.vcf (5 records), the truth set (3 of them + 2 of its own) and a ClinVar-like database."""
    base = tmp_path_factory.mktemp("variants_extras")
    rng = random.Random(1818)
    genome = "".join(rng.choice("ACGT") for _ in range(GENOME_LENGTH))
    _write_fasta(base / "genome.fa", "chr1", genome)
    snv = {pos: (genome[pos - 1], _alt(genome[pos - 1])) for pos in (500, 1500, 2500, 3500, 4500, 5000, 5500)}
    # QUAL/DP: 500 and 1500 pass SnpSift filter's default, 2500 fails QUAL, 3500 fails DP, 4500 passes
    quality = {500: (60, 30), 1500: (50, 25), 2500: (10, 30), 3500: (60, 5), 4500: (40, 40), 5000: (60, 30),
               5500: (60, 30)}
    record = {p: ("chr1", p, ".", snv[p][0], snv[p][1], quality[p][0], "PASS", f"DP={quality[p][1]}") for p in snv}
    calls = [record[p] for p in (500, 1500, 2500, 3500, 4500)]
    truth = [record[p] for p in (500, 1500, 2500, 5000, 5500)]
    (base / "calls.vcf").write_text(_vcf(calls))
    _bgzip_indexed(_vcf(truth), base / "truth.vcf.gz")
    # ClinVar's own INFO fields (clinvar.vcf.gz declares these three, among others)
    clinvar_header = "\n".join([
        '##INFO=<ID=CLNSIG,Number=.,Type=String,Description="Clinical significance for this single variant">',
        '##INFO=<ID=CLNDN,Number=.,Type=String,Description="Preferred ClinVar disease name">',
        '##INFO=<ID=CLNREVSTAT,Number=.,Type=String,Description="ClinVar review status">'])
    other_alt = next(b for b in "ACGT" if b not in snv[1500])
    database = [("chr1", 500, "rs1818", snv[500][0], snv[500][1], ".", ".",
                 "CLNSIG=Pathogenic;CLNDN=Planted_disease;CLNREVSTAT=criteria_provided,_single_submitter"),
                # the same position as a call, another allele: must not be copied
                ("chr1", 1500, "rs1819", snv[1500][0], other_alt, ".", ".",
                 "CLNSIG=Benign;CLNDN=not_provided;CLNREVSTAT=no_assertion_criteria_provided")]
    _bgzip_indexed(_vcf(database, clinvar_header), base / "clinvar.vcf.gz")
    return base


def _place(workdir: Path, name: str, source: Path) -> None:
    dest = workdir / "resources" / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, dest)
    if Path(f"{source}.tbi").exists():
        shutil.copy(f"{source}.tbi", f"{dest}.tbi")


def _records(vcf: Path) -> list[list[str]]:
    opener = gzip.open if vcf.suffix == ".gz" else open
    with opener(vcf, "rt") as fh:
        return [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")]


def _info(record: list[str]) -> dict[str, str]:
    return dict(kv.split("=", 1) if "=" in kv else (kv, "") for kv in record[7].split(";"))


@pytest.fixture(scope="module")
def isec_clinvar(call_sets):
    require_binaries("bcftools", "bgzip", "tabix", _snpsift(), "snakemake")
    query = ("compare the variant calls with the truth set using bcftools isec, then annotate them with "
             "ClinVar using SnpSift annotate")
    workdir = compile_workflow(query, [str(call_sets / "calls.vcf")], call_sets / "out" / "isec_clinvar")
    _place(workdir, "reference_call_set.vcf.gz", call_sets / "truth.vcf.gz")
    _place(workdir, "variant_database.vcf.gz", call_sets / "clinvar.vcf.gz")
    run_ok(workdir)
    return workdir


def test_bcftools_isec_splits_the_planted_shared_and_private_records(isec_clinvar):
    results = isec_clinvar / "results" / "call_set_comparison"
    counts = dict(line.split("\t") for line in (results / "isec_counts.tsv").read_text().splitlines()[1:])
    assert counts == {"private": "2", "missed": "2", "shared": "3"}
    assert [int(r[1]) for r in _records(results / "isec_private.vcf.gz")] == [3500, 4500]
    assert [int(r[1]) for r in _records(results / "isec_missed.vcf.gz")] == [5000, 5500]
    assert [int(r[1]) for r in _records(results / "isec_shared.vcf.gz")] == [500, 1500, 2500]


def test_snpsift_annotate_carries_the_planted_clinvar_significance(isec_clinvar):
    annotated = next((isec_clinvar / "results").rglob("snpsift_annotated.vcf.gz"))
    by_pos = {int(r[1]): r for r in _records(annotated)}
    assert sorted(by_pos) == [500, 1500, 2500, 3500, 4500]
    assert _info(by_pos[500]).get("CLNSIG") == "Pathogenic" and by_pos[500][2] == "rs1818"
    # another allele at the same position is another variant: nothing copied
    assert all("CLNSIG" not in _info(by_pos[p]) for p in (1500, 2500, 3500, 4500))


def test_snpsift_filter_then_bcftools_annotate(call_sets):
    require_binaries("bcftools", "bgzip", "tabix", _snpsift(), "snakemake")
    query = "filter the variants with SnpSift filter, then annotate them with ClinVar using bcftools annotate"
    workdir = compile_workflow(query, [str(call_sets / "calls.vcf")], call_sets / "out" / "filter_annotate")
    _place(workdir, "variant_database.vcf.gz", call_sets / "clinvar.vcf.gz")
    run_ok(workdir)
    # QUAL >= 20 and DP >= 10: 2500 (QUAL 10) and 3500 (DP 5) are removed
    filtered = next((workdir / "results").rglob("snpsift_filtered.vcf.gz"))
    assert [int(r[1]) for r in _records(filtered)] == [500, 1500, 4500]
    annotated = next((workdir / "results").rglob("database_annotated.vcf.gz"))
    by_pos = {int(r[1]): r for r in _records(annotated)}
    # the plan may annotate the calls or the filtered calls: either way every record is kept and only
    # the planted call gets ClinVar's significance and id
    assert {500, 1500, 4500} <= set(by_pos) <= {500, 1500, 2500, 3500, 4500}
    assert _info(by_pos[500]).get("CLNSIG") == "Pathogenic" and by_pos[500][2] == "rs1818"
    assert _info(by_pos[500]).get("CLNDN") == "Planted_disease"
    assert all("CLNSIG" not in _info(by_pos[p]) and by_pos[p][2] == "." for p in by_pos if p != 500)


# --------------------------------------------------------------------------- reads: mosdepth, FreeBayes

def _revcomp(seq: str) -> str:
    return seq[::-1].translate(str.maketrans("ACGT", "TGCA"))


def _simulate_pairs(sample_genome: str, n_pairs: int, rng: random.Random
                    ) -> tuple[list[str], list[str], set[int]]:
    """Error-free pairs of READ_LENGTH from FRAGMENT-bp fragments spread evenly along the genome, and
    the fragments' distinct starts (pairs of one start are duplicates to MarkDuplicates)."""
    r1, r2 = [], []
    starts: set[int] = set()
    qual = "I" * READ_LENGTH
    for i in range(n_pairs):
        start = rng.randrange(0, len(sample_genome) - FRAGMENT)
        starts.add(start)
        fragment = sample_genome[start:start + FRAGMENT]
        a, b = fragment[:READ_LENGTH], _revcomp(fragment[-READ_LENGTH:])
        if rng.random() < 0.5:
            a, b = b, a
        r1.append(f"@pair{i}/1\n{a}\n+\n{qual}\n")
        r2.append(f"@pair{i}/2\n{b}\n+\n{qual}\n")
    return r1, r2, starts


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    base = tmp_path_factory.mktemp("variants_reads")
    rng = random.Random(4242)
    genome = "".join(rng.choice("ACGT") for _ in range(GENOME_LENGTH))
    _write_fasta(base / "genome.fa", "chr1", genome)
    sample = list(genome)
    planted = {}
    for pos in SNV_POSITIONS:
        planted[pos] = (genome[pos - 1], _alt(genome[pos - 1]))
        sample[pos - 1] = planted[pos][1]
    n_pairs = DEPTH * GENOME_LENGTH // (2 * READ_LENGTH)
    r1, r2, starts = _simulate_pairs("".join(sample), n_pairs, rng)
    (base / "reads").mkdir()
    for mate, lines in (("R1", r1), ("R2", r2)):
        with gzip.open(base / "reads" / f"donor_{mate}.fastq.gz", "wt") as fh:
            fh.writelines(lines)
    return base, planted, len(starts)


@pytest.fixture(scope="module")
def depth_and_calls(reads):
    require_binaries("bwa", "samtools", "mosdepth", "freebayes", "bgzip", "tabix", "snakemake")
    base, planted, n_fragments = reads
    query = ("align the reads with BWA-MEM, report the sequencing depth with mosdepth and call variants "
             "with FreeBayes")
    files = [str(p) for p in sorted((base / "reads").glob("*.fastq.gz"))] + [str(base / "genome.fa")]
    workdir = compile_workflow(query, files, base / "out")
    set_param(workdir, "freebayes", "extra", "--min-alternate-count 5")
    run_ok(workdir)
    return workdir, planted, n_fragments


def test_mosdepth_mean_depth_is_the_simulated_depth(depth_and_calls):
    # germline calling marks duplicates first (GATK best practice), so mosdepth reads the
    # duplicate-marked BAM and counts each simulated fragment once (pairs of one start are duplicates)
    workdir, _, n_fragments = depth_and_calls
    assert (workdir / "results" / "duplicate_marking").is_dir()
    summary = next((workdir / "results").rglob("donor.mosdepth.summary.txt")).read_text().splitlines()
    rows = {r.split("\t")[0]: r.split("\t") for r in summary[1:]}
    simulated = 2 * n_fragments * READ_LENGTH / GENOME_LENGTH
    assert abs(float(rows["total"][3]) - simulated) < 0.05 * simulated, rows["total"]


def test_freebayes_calls_exactly_the_planted_snvs(depth_and_calls):
    workdir, planted, _ = depth_and_calls
    calls = next((workdir / "results").rglob("calls.vcf.gz"))
    records = _records(calls)
    found = {int(r[1]): (r[3], r[4]) for r in records}
    assert found == planted
    fmt = records[0][8].split(":")
    assert all(r[9].split(":")[fmt.index("GT")] == "1/1" for r in records)


# --------------------------------------------------------------------------- CNVkit: a planted copy gain

GAIN = (20000, 40000)  # the tumour's duplicated region (twice the normal's coverage)
CNV_GENOME = 60000


def _simulate_weighted(genome: str, n_pairs: int, gain: tuple[int, int] | None,
                       rng: random.Random) -> tuple[list[str], list[str]]:
    """Pairs as _simulate_pairs, fragments starting inside `gain` drawn twice as often."""
    r1, r2 = [], []
    qual = "I" * READ_LENGTH
    while len(r1) < n_pairs:
        start = rng.randrange(0, len(genome) - FRAGMENT)
        weight = 2 if gain and gain[0] <= start < gain[1] else 1
        if rng.random() >= weight / 2:
            continue
        fragment = genome[start:start + FRAGMENT]
        i = len(r1)
        r1.append(f"@pair{i}/1\n{fragment[:READ_LENGTH]}\n+\n{qual}\n")
        r2.append(f"@pair{i}/2\n{_revcomp(fragment[-READ_LENGTH:])}\n+\n{qual}\n")
    return r1, r2


@pytest.fixture(scope="module")
def copy_number(tmp_path_factory):
    require_binaries("bwa", "samtools", "cnvkit", "snakemake")
    base = tmp_path_factory.mktemp("variants_cnv")
    rng = random.Random(7)
    genome = "".join(rng.choice("ACGT") for _ in range(CNV_GENOME))
    _write_fasta(base / "genome.fa", "chr1", genome)
    (base / "reads").mkdir()
    n_pairs = 20 * CNV_GENOME // (2 * READ_LENGTH)
    for sample, gain in (("normal", None), ("tumour", GAIN)):
        gained = n_pairs * 4 // 3 if gain else n_pairs  # the gain adds a third of the genome's reads
        for mate, lines in zip(("R1", "R2"), _simulate_weighted(genome, gained, gain, rng)):
            with gzip.open(base / "reads" / f"{sample}_{mate}.fastq.gz", "wt") as fh:
                fh.writelines(lines)
    query = "align the reads with BWA-MEM and call copy number with CNVkit (the normal sample as reference)"
    files = [str(p) for p in sorted((base / "reads").glob("*.fastq.gz"))] + [str(base / "genome.fa")]
    workdir = compile_workflow(query, files, base / "out")
    set_param(workdir, "cnvkit_batch", "normal_samples", "normal")
    # 1 kb bins: CNVkit sizes WGS bins from the depth, too few on a 60 kb genome for segmentation
    set_param(workdir, "cnvkit_batch", "extra", "--target-avg-size 1000")
    run_ok(workdir)
    return workdir


def test_cnvkit_finds_the_planted_gain_in_the_tumour_only(copy_number):
    table = next((copy_number / "results").rglob("copy_number_segments.tsv")).read_text().splitlines()
    header = table[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in table[1:]]
    assert {r["sample"] for r in rows} == {"tumour"}  # the normal is the reference, not called
    gained = [r for r in rows if float(r["log2"]) > 0.6]
    assert len(gained) == 1 and int(gained[0]["cn"]) >= 3, rows
    start, end = int(gained[0]["start"]), int(gained[0]["end"])
    overlap = min(end, GAIN[1]) - max(start, GAIN[0])
    assert overlap > 0.8 * (GAIN[1] - GAIN[0]) and (end - start) < 1.25 * (GAIN[1] - GAIN[0]), (start, end)
    assert all(abs(float(r["log2"])) < 0.3 for r in rows if r is not gained[0]), rows


def _genotyped_vcf(samples: list[str], records: list[tuple]) -> str:
    """A VCF with GT columns: records are (pos, ref, alt, {sample: genotype})."""
    lines = ["##fileformat=VCFv4.2", f"##contig=<ID=chr1,length={GENOME_LENGTH}>",
             '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + "\t".join(samples)]
    lines += [f"chr1\t{pos}\t.\t{ref}\t{alt}\t60\tPASS\t.\tGT\t" + "\t".join(gts[s] for s in samples)
              for pos, ref, alt, gts in records]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def call_set_parts(tmp_path_factory):
    """Parts of one planted call set: two samples' own VCFs (tumour has 500 and 1500, normal 1500 and
    2500), and the same two samples' calls split in two regions of chr1, given region 2 first."""
    base = tmp_path_factory.mktemp("call_set_parts")
    snv = {500: ("A", "G"), 1500: ("C", "T"), 2500: ("G", "A"), 3500: ("T", "C"), 4500: ("A", "C")}
    (base / "samples").mkdir()
    (base / "samples" / "tumour.vcf").write_text(_genotyped_vcf(
        ["tumour"], [(p, *snv[p], {"tumour": "0/1"}) for p in (500, 1500)]))
    (base / "samples" / "normal.vcf").write_text(_genotyped_vcf(
        ["normal"], [(p, *snv[p], {"normal": "1/1"}) for p in (1500, 2500)]))
    both = {p: (p, *snv[p], {"s1": "0/1", "s2": "0/0"}) for p in snv}
    (base / "regions").mkdir()
    (base / "regions" / "part2.vcf").write_text(_genotyped_vcf(["s1", "s2"], [both[p] for p in (3500, 4500)]))
    (base / "regions" / "part1.vcf").write_text(_genotyped_vcf(["s1", "s2"], [both[p] for p in (500, 1500, 2500)]))
    return base


def _compile_unchecked(query: str, files: list[str], workdir: Path) -> Path:
    """Compiled without compile's `snakemake -n` pre-check, which the named-tool cases run for
    both tools (CI time): the run itself is the check here."""
    from bioplan.compile import compile_request

    compile_request(query, files, str(workdir / "Snakefile"), force=True, validate=False)
    return workdir


def _samples_and_genotypes(vcf: Path) -> tuple[list[str], dict[int, list[str]]]:
    with gzip.open(vcf, "rt") as fh:
        header = next(line for line in fh if line.startswith("#CHROM")).rstrip("\n").split("\t")
    return header[9:], {int(r[1]): r[9:] for r in _records(vcf)}


def test_bcftools_merge_and_concat_rebuild_the_planted_call_set(call_set_parts):
    """Per-sample VCFs (their sample columns differ) are merged: one column per sample, a missing
    genotype where a sample has no call; per-region VCFs of the same samples are concatenated in
    genome order although the later region comes first."""
    require_binaries("bcftools", "snakemake")
    samples = sorted(str(p) for p in (call_set_parts / "samples").glob("*.vcf"))
    merged_dir = _compile_unchecked("merge these VCFs into one multi-sample VCF", samples, call_set_parts / "out_merge")
    run_ok(merged_dir)
    names, genotypes = _samples_and_genotypes(merged_dir / "results" / "variant_merging" / "merged.vcf.gz")
    assert sorted(names) == ["normal", "tumour"]
    by_sample = {p: dict(zip(names, gts)) for p, gts in genotypes.items()}
    assert by_sample == {500: {"tumour": "0/1", "normal": "./."}, 1500: {"tumour": "0/1", "normal": "1/1"},
                         2500: {"tumour": "./.", "normal": "1/1"}}
    assert (merged_dir / "results" / "variant_merging" / "merged.vcf.gz.tbi").is_file()

    regions = [str(call_set_parts / "regions" / n) for n in ("part2.vcf", "part1.vcf")]
    concat_dir = _compile_unchecked("concatenate the per-chromosome VCFs with bcftools concat", regions,
                                    call_set_parts / "out_concat")
    run_ok(concat_dir)
    names, genotypes = _samples_and_genotypes(concat_dir / "results" / "variant_concatenation" /
                                              "concatenated.vcf.gz")
    assert names == ["s1", "s2"]
    assert list(genotypes) == [500, 1500, 2500, 3500, 4500]
