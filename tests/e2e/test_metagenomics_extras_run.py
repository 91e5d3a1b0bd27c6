"""Metagenome assembly QC, binning, DIAMOND and Krona (issue 18: nf-core/mag, funcscan, taxprofiler).

Small synthetic "isolates" (random 30 kb genomes with 16 planted protein-coding genes, from
tests/e2e/test_assembly_run.py) sequenced as error-free 100 bp pairs, and the metagenomics
example's reads, Kraken2 library and taxonomy. Each workflow is compiled from a request and run
with the real tools:
- metaSPAdes assembles the planted genome back (>= 95 % of it in contigs, every 500 bp window
  of it found in a contig) and QUAST, given that genome, reports >= 95 % genome fraction, no
  misassembly and the N50 of the contigs it counted;
- the reads of a sample mixing two genomes at 40x and 10x, mapped back to its MEGAHIT contigs, give
  each contig the depth of its genome (jgi_summarize_bam_contig_depths), and MetaBAT2 puts the
  two genomes' contigs in two different bins, each bin one genome's;
- DIAMOND blastx finds every planted protein of a sample's genome in its contigs at 100 %
  identity over the whole protein, and none of the other sample's proteins; the same pipeline
  compiled for Nextflow finds the same hits and records DIAMOND's version;
- the Krona chart of each metagenomics sample carries the four planted species and the reads
  Kraken2 left unclassified.
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest
from e2e_support import (
    compile_workflow,
    generate,
    inputs,
    require_binaries,
    run_ok,
    set_param,
    truth,
)
from test_assembly_run import planted_genome, read_fasta, revcomp, write_reads

pytestmark = pytest.mark.e2e

SAMPLES = ("isoA", "isoB")


def n50(lengths: list[int]) -> int:
    """The length of the contig at which the longest contigs first reach half the total."""
    total, running = sum(lengths), 0
    for length in sorted(lengths, reverse=True):
        running += length
        if 2 * running >= total:
            return length
    return 0


@pytest.fixture(scope="module")
def isolates(tmp_path_factory):
    """reads/<sample>_R{1,2}.fastq.gz of two planted genomes, the genomes and their proteins."""
    base = tmp_path_factory.mktemp("metagenomics_extras")
    (base / "reads").mkdir()
    rng = random.Random(18)  # the genomes of tests/e2e/test_assembly_run.py
    genomes, proteins = {}, {}
    for sample in SAMPLES:
        genomes[sample], proteins[sample] = planted_genome(rng)
        write_reads(genomes[sample], rng, base / "reads" / f"{sample}_R1.fastq.gz",
                    base / "reads" / f"{sample}_R2.fastq.gz")
    return base, genomes, proteins


def write_pairs(genome: str, rng: random.Random, coverage: int, name: str, r1, r2) -> None:
    """Error-free 100 bp pairs of 300 bp fragments from either strand at the given coverage."""
    read_length, insert = 100, 300
    quality = "I" * read_length
    for n in range(len(genome) * coverage // (2 * read_length)):
        start = rng.randint(0, len(genome) - insert)
        fragment = genome[start:start + insert]
        if rng.random() < 0.5:
            fragment = revcomp(fragment)
        r1.write(f"@{name}_{n} 1:N:0:ACGT\n{fragment[:read_length]}\n+\n{quality}\n")
        r2.write(f"@{name}_{n} 2:N:0:ACGT\n{revcomp(fragment)[:read_length]}\n+\n{quality}\n")


def _reads(base: Path, *samples: str) -> list[str]:
    return [str(base / "reads" / f"{s}_R{m}.fastq.gz") for s in samples for m in (1, 2)]


# --------------------------------------------------------------------------- metaSPAdes + QUAST


@pytest.fixture(scope="module")
def spades_quast(isolates):
    require_binaries("spades.py", "quast.py", "snakemake")
    base, genomes, _ = isolates
    reference = base / "isoA_genome.fa"
    reference.write_text(f">isoA_chromosome\n{genomes['isoA']}\n")
    query = ("shotgun metagenomics: assemble each sample with metaSPAdes and assess the assembly quality "
             "with QUAST against the reference genome")
    workdir = compile_workflow(query, [*_reads(base, "isoA"), str(reference)], base / "out" / "spades_quast")
    # the reads are error-free with one quality letter ('I'), from which SPAdes cannot tell the PHRED
    # offset; with no errors to correct, only the assembler runs (seconds instead of a minute)
    set_param(workdir, "spades", "extra", "--phred-offset 33 --only-assembler")
    # the step keeps QUAST's report.tsv (read below) and report.html; its matplotlib plots and Icarus viewer,
    # drawn in the step's temporary folder and deleted, were 3.5 of its 4.3 CPU-s (report.tsv the same bytes)
    set_param(workdir, "quast", "extra", "--no-plots --no-icarus")
    run_ok(workdir)
    return workdir, genomes["isoA"]


def test_metaspades_assembles_the_planted_genome_back(spades_quast):
    workdir, genome = spades_quast
    contigs = read_fasta(workdir / "results/genome_assembly/isoA/contigs.fa")
    assert sum(map(len, contigs.values())) >= 0.95 * len(genome), len(contigs)
    assert all(re.fullmatch(r"NODE_\d+_length_\d+_cov_[\d.]+", name) for name in contigs)  # SPAdes' own names
    both = "|".join(list(contigs.values()) + [revcomp(c) for c in contigs.values()])
    windows = [genome[i:i + 500] for i in range(0, len(genome) - 500, 500)]
    missing = [i for i, w in enumerate(windows) if w not in both]
    assert len(missing) <= 2, missing  # a window may straddle the end of a contig


def test_quast_measures_the_assembly_against_the_planted_genome(spades_quast):
    workdir, genome = spades_quast
    rows = dict(line.split("\t")[:2] for line in
                (workdir / "results/assembly_qc/isoA/quast_report.tsv").read_text().splitlines())
    assert rows["Assembly"] == "isoA"  # the column is named after the sample
    assert float(rows["Genome fraction (%)"]) >= 95.0, rows
    assert int(rows["# misassemblies"]) == 0, rows
    contigs = read_fasta(workdir / "results/genome_assembly/isoA/contigs.fa")
    counted = [len(s) for s in contigs.values() if len(s) >= 500]
    assert int(rows["N50"]) == n50(counted) and int(rows["Total length"]) == sum(counted), rows
    assert int(rows["Reference length"]) == len(genome)


# --------------------------------------------------------------------------- binning


@pytest.fixture(scope="module")
def binning(isolates):
    """One sample mixing isoA at 40x and isoB at 10x."""
    require_binaries("megahit", "bowtie2", "samtools", "jgi_summarize_bam_contig_depths", "metabat2", "snakemake")
    base, genomes, _ = isolates
    rng = random.Random(7)
    coverage = {"isoA": 40, "isoB": 10}
    with gzip.open(base / "reads" / "mixed_R1.fastq.gz", "wt") as r1, \
            gzip.open(base / "reads" / "mixed_R2.fastq.gz", "wt") as r2:
        for sample, depth in coverage.items():
            write_pairs(genomes[sample], rng, depth, sample, r1, r2)
    query = ("shotgun metagenomics: assemble each sample with MEGAHIT, map the reads back to the contigs and "
             "bin the contigs with MetaBAT2")
    workdir = compile_workflow(query, _reads(base, "mixed"), base / "out" / "binning")
    set_param(workdir, "metabat2", "min_bin_size", 10000)
    run_ok(workdir)
    return workdir, genomes, coverage


def _origin(contig: str, genomes: dict[str, str]) -> str | None:
    return next((s for s, g in genomes.items() if contig in g or revcomp(contig) in g), None)


def test_contig_depths_follow_each_genomes_coverage(binning):
    workdir, genomes, coverage = binning
    contigs = read_fasta(workdir / "results/genome_assembly/mixed/contigs.fa")
    lines = (workdir / "results/contig_depth/mixed/contig_depths.tsv").read_text().splitlines()
    assert lines[0].split("\t")[:3] == ["contigName", "contigLen", "totalAvgDepth"]
    checked = 0
    for line in lines[1:]:
        name, length, depth = line.split("\t")[:3]
        origin = _origin(contigs[name], genomes)
        if origin is None or int(length) < 2000:
            continue
        checked += 1
        assert 0.6 * coverage[origin] <= float(depth) <= 1.3 * coverage[origin], (name, origin, depth)
    assert checked >= 2


def test_metabat2_separates_the_two_genomes(binning):
    workdir, genomes, _ = binning
    bins = sorted((workdir / "results/contig_binning/mixed/bins").glob("*.fa"))
    origins = [{_origin(seq, genomes) for seq in read_fasta(b).values()} for b in bins]
    assert len(bins) == 2, origins
    assert all(len(o) == 1 for o in origins) and sorted(next(iter(o)) for o in origins) == ["isoA", "isoB"], origins
    for b, origin in zip(bins, origins):
        binned = sum(map(len, read_fasta(b).values()))
        assert binned >= 0.8 * len(genomes[next(iter(origin))]), (b.name, binned)


# --------------------------------------------------------------------------- DIAMOND


@pytest.fixture(scope="module")
def diamond(isolates):
    require_binaries("megahit", "diamond", "snakemake")
    base, _, proteins = isolates
    faa = base / "planted_proteins.faa"
    faa.write_text("".join(f">{s}_protein_{i}\n{p}\n" for s in SAMPLES for i, p in enumerate(proteins[s])))
    workdir = compile_workflow(DIAMOND_QUERY, [*_reads(base, *SAMPLES), str(faa)], base / "out" / "diamond")
    run_ok(workdir)
    return workdir, proteins


DIAMOND_QUERY = ("assemble each sample with MEGAHIT, build a DIAMOND database of the reference proteins and search "
                 "the contigs against it with DIAMOND blastx")


def _full_length_hits(table: Path) -> set[tuple[str, str]]:
    return {(h[0], h[1]) for h in (line.split("\t") for line in table.read_text().splitlines()) if float(h[2]) == 100.0}


def test_diamond_finds_each_planted_protein_in_its_own_genome_only(diamond):
    workdir, proteins = diamond
    for sample in SAMPLES:
        table = workdir / "results/protein_similarity_search" / sample / "diamond_blastx.tsv"
        hits = [line.split("\t") for line in table.read_text().splitlines()]
        full = {h[1] for h in hits if float(h[2]) == 100.0
                and int(h[3]) == len(proteins[sample][int(h[1].rsplit("_", 1)[1])])
                and h[1].startswith(sample)}
        assert full == {f"{sample}_protein_{i}" for i in range(len(proteins[sample]))}, (sample, len(full))
        other = [h for h in hits if not h[1].startswith(sample) and float(h[2]) >= 50.0 and int(h[3]) >= 50]
        assert not other, other[:3]  # random genomes share no protein


def test_nextflow_pipeline_finds_the_same_hits(isolates, diamond):
    import yaml

    from bioplan.compile import compile_request
    from test_nextflow_run import nextflow_bin
    from test_nextflow_run import run_ok as nextflow_run_ok

    nextflow_bin()  # skips (fails under CI) without a Nextflow runtime
    base, _, _ = isolates
    snakemake_dir, _ = diamond
    workdir = base / "out" / "diamond_nextflow"
    files = [*_reads(base, *SAMPLES), str(base / "planted_proteins.faa")]
    compile_request(DIAMOND_QUERY, files, str(workdir / "main.nf"), target="nextflow", force=True)
    nextflow_run_ok(workdir)
    for sample in SAMPLES:
        hits = _full_length_hits(next((workdir / "results").rglob(f"{sample}.diamond_blastx.tsv")))
        smk = snakemake_dir / "results/protein_similarity_search" / sample / "diamond_blastx.tsv"
        expected = _full_length_hits(smk)
        assert hits == expected and len(hits) >= 16, (sample, len(hits), len(expected))
    recorded = yaml.safe_load((workdir / "results/pipeline_info/software_versions.yml").read_text())
    assert re.fullmatch(r"\d+\.\d+\.\d+", recorded["PROTEIN_SIMILARITY_SEARCH"]["diamond"]), recorded


# --------------------------------------------------------------------------- Kraken2 + Krona


@pytest.fixture(scope="module")
def krona(tmp_path_factory):
    require_binaries("kraken2", "kraken2-build", "ktImportText", "snakemake")
    base = tmp_path_factory.mktemp("krona")
    data = generate(base, "metagenomics")
    files = [f for f in inputs(data, "metagenomics") if not f.endswith(("host.fa", "samples.tsv"))]
    query = ("shotgun metagenomics: classify the reads with a Kraken2 database built from the given genomes and "
             "taxonomy and draw a Krona chart of each sample")
    workdir = compile_workflow(query, files, base / "out")
    run_ok(workdir)
    return workdir, truth(data, "metagenomics")


def test_krona_charts_carry_the_planted_taxa(krona):
    workdir, planted = krona
    names = [g["name"] for g in planted["genomes"].values()]
    for sample in planted["samples"]:
        html = (workdir / "results/taxonomy_visualisation" / sample / "krona.html").read_text()
        nodes = set(re.findall(r'<node name="([^"]+)"', html))
        assert set(names) <= nodes, (sample, sorted(nodes))
        # the lineage comes from the report's indentation: a species sits under its genus and phylum
        assert {"Bacteria", "Synthobacter", "Exemplarium", "Synthetobacterota"} <= nodes
        assert "Unclassified" in nodes  # the host reads, absent from the library
