"""Long reads (Oxford Nanopore, PacBio HiFi/CLR): sniffed apart from short reads by their lengths and read
names, aligned with minimap2 (the preset following the platform), and a short-read aligner named for them
refused by name. The e2e test runs the emitted Snakemake workflow with the real minimap2 and samtools on
simulated Nanopore-like reads and checks each read maps where it was drawn from."""

from __future__ import annotations

import gzip
import random
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from bioplan.compile import compile_request, plan_request
from bioplan.errors import ConstraintViolationError, UnknownToolError
from bioplan.knowledge.load import load_knowledge
from bioplan.request.sniff import sniff_file

REAL_NANOPORE = Path(__file__).parent / "data" / "real_studies" / "nanook" / "ch327_file62.2D.fastq"


def _genome(rng: random.Random, length: int = 60_000) -> str:
    return "".join(rng.choice("ACGT") for _ in range(length))


def _with_errors(rng: random.Random, seq: str, rate: float = 0.04) -> str:
    """About `rate` errors per base, a third each substitutions, deletions and insertions (Nanopore-like)."""
    out = []
    for base in seq:
        r = rng.random()
        if r < rate / 3:
            out.append(rng.choice("ACGT"))
        elif r < 2 * rate / 3:
            continue
        elif r < rate:
            out.append(base + rng.choice("ACGT"))
        else:
            out.append(base)
    return "".join(out)


def _write_long_reads(path: Path, genome: str, names: str, n: int = 20, seed: int = 1) -> list[tuple[str, int]]:
    """`n` reads of 3-8 kb drawn from the genome's forward strand with errors; (read id, 0-based origin)."""
    rng = random.Random(seed)
    truth = []
    with open(path, "w") as fh:
        for i in range(n):
            length = rng.randint(3000, 8000)
            start = rng.randint(0, len(genome) - length)
            seq = _with_errors(rng, genome[start:start + length])
            name = names.format(i=i)
            truth.append((name.split()[0], start))
            fh.write(f"@{name}\n{seq}\n+\n{'5' * len(seq)}\n")
    return truth


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("long_reads")
    rng = random.Random(7)
    genome = _genome(rng)
    (d / "genome.fa").write_text(">chr1\n" + "\n".join(genome[i:i + 60] for i in range(0, len(genome), 60)) + "\n")
    truth = _write_long_reads(d / "ont.fastq", genome,
                              "read{i} runid=4a2b read={i} ch=12 start_time=2020-01-01T00:00:00Z")
    (d / "truth.tsv").write_text("".join(f"{r}\t{s}\n" for r, s in truth))
    _write_long_reads(d / "hifi.fastq", genome, "m64011_190830_220126/{i}/ccs", n=5, seed=2)
    _write_long_reads(d / "clr.fastq", genome, "m54006_160504_020705/{i}/0_9530", n=5, seed=3)
    _write_long_reads(d / "plain.fastq", genome, "r{i}", n=5, seed=4)
    with open(d / "short.fastq", "w") as fh:  # Illumina-like 150 bp single-end reads
        for i in range(50):
            start = rng.randint(0, len(genome) - 150)
            fh.write(f"@A00123:8:H7:1:1101:{1000 + i}:1000 1:N:0:1\n{genome[start:start + 150]}\n+\n{'F' * 150}\n")
    return {p.stem: p for p in d.iterdir()}


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def _sniffed(path: Path, knowledge):
    return sniff_file(str(path), {}, knowledge.formats)


@pytest.mark.parametrize(("name", "technology"), [("ont", "nanopore"), ("hifi", "pacbio_hifi"),
                                                  ("clr", "pacbio_clr"), ("plain", None)])
def test_long_reads_sniffed_with_their_platform(files, knowledge, name, technology):
    """3-8 kb reads are long reads whatever their names; the first read's name says the platform."""
    f = _sniffed(files[name], knowledge)
    assert (f.datatype, f.mate, f.fact("read_technology")) == ("long_reads", None, technology), f
    assert any("long reads: median read length" in e for e in f.evidence), f.evidence


def test_short_reads_and_real_nanopore_read(files, knowledge):
    """150 bp Illumina reads stay raw reads; the real NanoOK 2D read (297 bp) is Nanopore by its name."""
    assert _sniffed(files["short"], knowledge).datatype == "raw_reads"
    real = _sniffed(REAL_NANOPORE, knowledge)
    assert (real.datatype, real.fact("read_technology")) == ("long_reads", "nanopore"), real


@pytest.mark.parametrize(("name", "constraint", "preset"), [("ont", "long_reads_nanopore", "map-ont"),
                                                            ("hifi", "long_reads_pacbio_hifi", "map-hifi"),
                                                            ("clr", "long_reads_pacbio_clr", "map-pb")])
def test_align_long_reads_with_minimap2_preset(files, knowledge, name, constraint, preset):
    """"align the reads to the genome" of long reads is minimap2 against the genome FASTA, with the preset of
    the platform the read names show (constraints.yaml decided_by, the tool's params_when)."""
    result = plan_request("align the reads to the genome", [str(files[name]), str(files["genome"])], knowledge)
    steps = [(s.operation, s.tool) for s in result.plans[0].steps]
    assert steps == [("long_read_alignment", "minimap2_align")], steps
    assert constraint in result.spec.constraint_ids, result.spec.constraint_ids
    assert knowledge.tools["minimap2_align"].params_when[constraint]["preset"] == preset


def test_short_read_aligner_refused_by_name_for_long_reads(files, knowledge):
    with pytest.raises(ConstraintViolationError) as err:
        plan_request("align the Nanopore reads to the genome with bwa", [str(files["ont"]), str(files["genome"])],
                     knowledge)
    text = str(err.value) + " ".join(err.value.hints)
    assert "BWA-MEM cannot read the given reads" in text and "hold long-read sequencing reads" in text \
        and "use minimap2" in text, text


def test_short_reads_still_aligned_by_short_read_aligner(files, knowledge):
    result = plan_request("align the reads to the genome", [str(files["short"]), str(files["genome"])], knowledge)
    tools = {s.tool for s in result.plans[0].steps}
    assert "bwa_mem" in tools and "minimap2_align" not in tools, tools


@pytest.mark.e2e
def test_minimap2_workflow_maps_reads_to_their_origin(files, tmp_path):
    """The emitted Snakemake workflow run with Debian's minimap2 and samtools: every simulated Nanopore read
    (3-8 kb, ~4% errors) has its primary alignment on chr1 within 50 bp of where it was drawn from."""
    if not (shutil.which("minimap2") and shutil.which("samtools")):
        pytest.skip("minimap2 and samtools are not installed")
    out = tmp_path / "wf"
    compile_request("align the reads to the genome", [str(files["ont"]), str(files["genome"])], str(out),
                    validate=False)
    config = (out / "config" / "config.yaml").read_text()
    assert 'preset: "map-ont"' in config, config
    run = subprocess.run([str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "snakemake"), "--cores", "2"],
                         cwd=out, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    bam = next(out.glob("results/long_read_alignment/*/ont.bam"))
    assert (bam.parent / "ont.bam.bai").is_file()
    sam = subprocess.run(["samtools", "view", "-F", "0x904", str(bam)], capture_output=True, text=True, check=True)
    placed = {cols[0]: (cols[2], int(cols[3]) - 1) for cols in (line.split("\t") for line in sam.stdout.splitlines())}
    truth = dict((r, int(s)) for r, s in (line.split("\t") for line in (files["truth"]).read_text().splitlines()))
    assert set(placed) == set(truth), sorted(set(truth) - set(placed))
    off = {r: abs(placed[r][1] - truth[r]) for r in truth if placed[r][0] == "chr1"}
    assert len(off) == len(truth) and max(off.values()) <= 50, off


def test_without_files_the_request_says_the_platform(knowledge):
    """Without read files "Nanopore" says long reads (minimap2, map-ont); minimap2 named with nothing saying long
    reads is refused by name (bioplan's minimap2 is for long reads; nf-core/crisprseq maps short reads with it);
    "align the reads" with nothing else stays short-read alignment."""
    result = plan_request("align the Nanopore reads with minimap2", [], knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["minimap2_align"], result.plans[0].steps
    assert "long_reads_nanopore" in result.spec.constraint_ids
    with pytest.raises(UnknownToolError) as err:
        plan_request("Read mapping with minimap2", [], knowledge)
    assert "minimap2 is in bioplan for long-read sequencing reads only" in str(err.value), err.value
    result = plan_request("align the reads to the human genome", [], knowledge)
    assert "read_alignment" in result.spec.required_operations, result.spec.required_operations
    assert "long_read_alignment" not in {s.operation for s in result.plans[0].steps}


def test_long_reads_quality_control_is_fastqc_for_long_reads(files, knowledge):
    result = plan_request("quality control of the reads", [str(files["hifi"])], knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [("read_qc_long_reads", "fastqc_long_reads")]


@pytest.mark.e2e
def test_fastqc_on_long_reads_runs(files, tmp_path):
    """FastQC (Debian) on the 3-8 kb reads through the emitted workflow: a report of 5 reads, lengths in range."""
    if not shutil.which("fastqc"):
        pytest.skip("fastqc is not installed")
    out = tmp_path / "wf"
    reads = tmp_path / "hifi.fastq.gz"  # FastQC's rule links the reads as .fastq.gz (plain .fastq: see CHANGELOG)
    reads.write_bytes(gzip.compress(files["hifi"].read_bytes()))
    compile_request("quality control of the reads", [str(reads)], str(out), validate=False)
    run = subprocess.run([str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "snakemake"), "--cores", "2"],
                         cwd=out, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = next(out.glob("results/**/hifi_fastqc.zip"))
    with zipfile.ZipFile(report) as z:
        data = z.read(next(n for n in z.namelist() if n.endswith("fastqc_data.txt"))).decode()
    assert "Total Sequences\t5" in data, data[:800]
    length = next(line for line in data.splitlines() if line.startswith("Sequence length"))
    low, high = (int(x) for x in length.split("\t")[1].split("-"))
    assert 2900 <= low <= high <= 8400, length
