"""16S amplicon sequencing end to end (issue 18, nf-core/ampliseq's DADA2 route) on generated reads.

Three genera are planted as 200 bp amplicon bodies between the EMP 515F/806R primers, read as 2x150
pairs with substitution errors at low-quality bases, in three samples with known counts; a chimera of
two of them (the left half of one, the right half of another) is planted at a low count. The
training set holds the three genera's reference sequences (each with a few differences from the
amplicon) beside three decoy genera. The run (cutadapt primer removal, DADA2 filterAndTrim,
learnErrors, dada + mergePairs, removeBimeraDenovo, assignTaxonomy, the genus table and the bar
plot) must recover exactly the planted ASVs with their planted counts, find the chimera and remove
it, and assign every ASV its planted genus.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
import shutil
from pathlib import Path

import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, run_ok

pytestmark = pytest.mark.e2e

FWD = "GTGCCAGCAGCCGCGGTAA"  # 515F (GTGYCAGCMGCCGCGGTAA) with its degenerate bases resolved
REV = "GGACTACAAGGGTATCTAAT"  # 806R (GGACTACNVGGGTWTCTAAT) likewise
BODY = 200
READ = 150
GENERA = {  # genus -> lineage above it
    "Lactobacillus": "Bacteria;Firmicutes;Bacilli;Lactobacillales;Lactobacillaceae",
    "Bacteroides": "Bacteria;Bacteroidota;Bacteroidia;Bacteroidales;Bacteroidaceae",
    "Escherichia": "Bacteria;Proteobacteria;Gammaproteobacteria;Enterobacterales;Enterobacteriaceae",
}
DECOYS = {
    "Bifidobacterium": "Bacteria;Actinobacteriota;Actinobacteria;Bifidobacteriales;Bifidobacteriaceae",
    "Clostridium": "Bacteria;Firmicutes;Clostridia;Clostridiales;Clostridiaceae",
    "Pseudomonas": "Bacteria;Proteobacteria;Gammaproteobacteria;Pseudomonadales;Pseudomonadaceae",
}
COUNTS = {  # sample -> read pairs per planted genus
    "gut_a": {"Lactobacillus": 300, "Bacteroides": 200, "Escherichia": 100},
    "gut_b": {"Lactobacillus": 100, "Bacteroides": 150, "Escherichia": 350},
    "gut_c": {"Lactobacillus": 200, "Bacteroides": 300, "Escherichia": 150},
}
CHIMERA = ("Lactobacillus", "Bacteroides", 12)  # left parent, right parent, read pairs in gut_a and gut_b
ERROR_RATE = 0.004
REQUEST = ("16S rRNA amplicon sequencing: remove the primers with cutadapt, then DADA2: filterAndTrim, learn the "
           "error rates, denoise into ASVs, remove chimeras and assign taxonomy against SILVA; make a genus table "
           "and a taxonomy barplot")


def revcomp(seq: str) -> str:
    return seq.translate(str.maketrans("ACGT", "TGCA"))[::-1]


def random_seq(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("ACGT") for _ in range(n))


def mutate(rng: random.Random, seq: str, n: int) -> str:
    """`seq` with `n` substitutions at distinct positions."""
    out = list(seq)
    for pos in rng.sample(range(len(seq)), n):
        out[pos] = rng.choice([b for b in "ACGT" if b != seq[pos]])
    return "".join(out)


def sequenced(rng: random.Random, template: str) -> tuple[str, str]:
    """(bases, qualities) of one read: a substitution at rate ERROR_RATE, each at a low-quality
    base (Q8-14); high quality (Q34-38) elsewhere, with some low-quality bases called right."""
    bases, quals = [], []
    for base in template:
        if rng.random() < ERROR_RATE:
            bases.append(rng.choice([b for b in "ACGT" if b != base]))
            quals.append(rng.randint(8, 14))
        else:
            bases.append(base)
            quals.append(rng.randint(8, 14) if rng.random() < 0.004 else rng.randint(34, 38))
    return "".join(bases), "".join(chr(q + 33) for q in quals)


def write_pairs(path1: Path, path2: Path, amplicons: list[tuple[str, str]], rng: random.Random) -> None:
    with gzip.open(path1, "wt") as r1, gzip.open(path2, "wt") as r2:
        for i, (name, amplicon) in enumerate(amplicons, start=1):
            for handle, template, mate in ((r1, amplicon[:READ], 1), (r2, revcomp(amplicon)[:READ], 2)):
                bases, quals = sequenced(rng, template)
                handle.write(f"@{name}_{i} {mate}:N:0:1\n{bases}\n+\n{quals}\n")


def make_data(d: Path) -> dict:
    """Reads, training set and the truth: planted ASV bodies and counts, the chimera, the genera."""
    rng = random.Random(18)
    bodies = {genus: random_seq(rng, BODY) for genus in GENERA}
    left, right, chimera_count = CHIMERA
    chimera = bodies[left][: BODY // 2] + bodies[right][BODY // 2:]
    reads = d / "reads"
    reads.mkdir(parents=True)
    for sample, counts in COUNTS.items():
        amplicons = [(genus, FWD + bodies[genus] + revcomp(REV)) for genus, n in counts.items() for _ in range(n)]
        if sample in ("gut_a", "gut_b"):
            amplicons += [("chimera", FWD + chimera + revcomp(REV))] * chimera_count
        rng.shuffle(amplicons)
        write_pairs(reads / f"{sample}_R1.fastq.gz", reads / f"{sample}_R2.fastq.gz", amplicons, rng)
    with gzip.open(d / "training_set.fa.gz", "wt") as fh:
        refs = [(genus, lineage, bodies[genus]) for genus, lineage in GENERA.items()]
        refs += [(genus, lineage, random_seq(rng, BODY)) for genus, lineage in DECOYS.items()]
        for genus, lineage, body in refs:
            for copy in range(3):  # three strains per genus, each a few bases from the amplicon
                flank_l, flank_r = random_seq(rng, 40), random_seq(rng, 40)
                fh.write(f">{lineage};{genus};\n{flank_l}{mutate(rng, body, 2 + copy)}{flank_r}\n")
    return {"bodies": bodies, "chimera": chimera}


@pytest.fixture(scope="module")
def amplicon_run(tmp_path_factory):
    missing = [b for b in ("cutadapt", "Rscript", "snakemake") if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("amplicon")
    truth = make_data(base / "data")
    reads = [str(base / "data" / "reads" / f"{s}_R{m}.fastq.gz") for s in COUNTS for m in (1, 2)]
    # the training set is recognised by its lineage headers (formats.yaml dada2_training_fasta)
    workdir = compile_workflow(REQUEST, [*reads, str(base / "data" / "training_set.fa.gz")], base / "out")
    run_ok(workdir)
    return workdir, truth


def _rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _within(observed: int, planted: int) -> bool:
    """A planted count recovered: reads lost to filtering or unmerged pairs, never more than 5%."""
    return planted * 0.95 <= observed <= planted


def test_dada2_recovers_the_planted_asvs_with_their_counts(amplicon_run):
    workdir, truth = amplicon_run
    nochim = {r["sequence"]: r for r in _rows(workdir / "results/chimera_removal/asv_table_nochim.tsv")}
    assert set(nochim) == set(truth["bodies"].values()), "the chimera-free ASVs are not exactly the planted ones"
    for genus, body in truth["bodies"].items():
        for sample, counts in COUNTS.items():
            assert _within(int(nochim[body][sample]), counts[genus]), (genus, sample, nochim[body][sample])


def test_the_planted_chimera_is_inferred_then_removed(amplicon_run):
    workdir, truth = amplicon_run
    denoised = {r["sequence"]: r for r in _rows(workdir / "results/asv_inference/asv_table.tsv")}
    assert truth["chimera"] in denoised, "dada did not infer the planted chimera as an ASV"
    assert int(denoised[truth["chimera"]]["gut_a"]) > 0 and int(denoised[truth["chimera"]]["gut_c"]) == 0
    nochim = {r["sequence"] for r in _rows(workdir / "results/chimera_removal/asv_table_nochim.tsv")}
    assert truth["chimera"] not in nochim


def test_every_asv_gets_its_planted_genus(amplicon_run):
    workdir, truth = amplicon_run
    genus_of = {body: genus for genus, body in truth["bodies"].items()}
    rows = _rows(workdir / "results/asv_taxonomy_assignment/asv_taxonomy.tsv")
    assert {r["sequence"] for r in rows} == set(genus_of)
    for row in rows:
        genus = genus_of[row["sequence"]]
        assert row["Genus"] == genus, row
        assert row["Family"] == GENERA[genus].split(";")[-1], row
        assert float(row["confidence_Genus"]) >= 50, row


def test_the_genus_table_sums_each_genus_and_the_barplot_is_drawn(amplicon_run):
    workdir, _ = amplicon_run
    rows = {r["taxon"]: r for r in _rows(workdir / "results/taxonomy_abundance_summary/taxonomy_abundance_table.tsv")}
    assert set(rows) == set(GENERA)
    for genus, row in rows.items():
        assert row["rank"] == "Genus" and row["lineage"] == f"{GENERA[genus]};{genus}"
        for sample, counts in COUNTS.items():
            assert _within(int(row[sample]), counts[genus]), (genus, sample, row[sample])
    plot = workdir / "results/taxonomy_barplot_plotting/taxonomy_barplot.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
