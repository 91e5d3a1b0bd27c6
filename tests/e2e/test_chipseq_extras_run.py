"""nf-core/chipseq's and nf-core/atacseq's further tools run on reads of a small synthetic genome
(issue 18, B3): deepTools plotFingerprint, multiBamSummary + plotCorrelation, computeMatrix +
plotProfile / plotHeatmap, alignmentSieve --ATACshift and bamPEFragmentSize, Picard
CollectInsertSizeMetrics, MACS2 per replicate, bedtools merge (consensus peaks) and intersect -v
(blacklist), featureCounts per peak and DESeq2 differential accessibility. IDR is compiled only
(tests/tool_cases/chipseq.yaml: neither in Debian nor on PyPI).

Reads are error-free 50 bp pairs of 150-250 bp fragments: uniform background plus fragments piled
around planted sites, each site the TSS of a transcript of the GTF (other transcripts start in the
background); every sample's site depth varies a little (biological noise, so that DESeq2 can
estimate dispersions).
- ChIP QC (two ChIP replicates and an input): the ChIP samples' reads concentrate in few bins (the
  fingerprint) and they correlate with each other better than with the input; the TSS profile of
  each ChIP sample peaks at the TSS; Picard's median insert size is the planted one; MACS2 calls a
  peak on the blacklisted site and the blacklist filter removes it and only it.
- ATAC (two control and two treated samples, one site opened 4x in the treated ones): the shifted
  reads start 4 bp later on the forward strand and end 5 bp earlier on the reverse; the fragment
  sizes are the planted ones less the 9 bp of the shift; the consensus peak set is the planted
  sites, one region each, called in every sample; DESeq2 finds the opened site, and only it (at
  padj < 0.05 and a 2-fold change); the
  TSS heatmap's signal peaks at the TSS.
- ATAC sample-level exploration (engineer B): the PCA of the samples on the DESeq2-VST counts in the
  consensus peaks separates the two conditions along PC1 and each sample's nearest neighbour in the
  sample distance matrix is its replicate (nf-core/atacseq's PCA and clustering); the genes near the
  consensus peaks (nearest TSS within 3 kb) are the planted sites' genes, each at distance 0, and none
  of the background TSSs' genes.
"""

from __future__ import annotations

import gzip
import math
import random
import re
import shutil
import statistics
from pathlib import Path

import pytest
from e2e_support import INSTALL_HINT, KEEP_FREED_MEMORY, compile_workflow, env, run_ok, set_param

from conftest import skip_or_fail_in_ci

pytestmark = pytest.mark.e2e

CHROMOSOMES = {"chr1": 60_000, "chr2": 40_000}
SITES = (("chr1", 6_000), ("chr1", 14_000), ("chr1", 22_000), ("chr1", 30_000), ("chr1", 38_000), ("chr1", 46_000),
         ("chr1", 54_000), ("chr2", 6_000), ("chr2", 14_000), ("chr2", 22_000), ("chr2", 30_000))
BACKGROUND_TSS = (("chr1", 10_000), ("chr1", 34_000), ("chr2", 18_000), ("chr2", 36_000))
BLACKLISTED = ("chr2", 30_000)
OPENED = ("chr1", 38_000)  # 4x the fragments in the treated ATAC samples
READ_LENGTH = 50
BACKGROUND_FRAGMENTS, SITE_FRAGMENTS = 4000, 200
COMPLEMENT = str.maketrans("ACGT", "TGCA")

CHIP_QUERY = ("ChIP-seq: align the reads with Bowtie2, mark duplicates with Picard, call peaks with MACS2, remove "
              "peaks in blacklisted regions with bedtools intersect, plot fingerprints with plotFingerprint, compute "
              "the sample correlation with multiBamSummary and plotCorrelation, collect insert size metrics with "
              "Picard CollectInsertSizeMetrics, make CPM-normalised bigWig tracks with bamCoverage, compute the "
              "signal around TSS with computeMatrix and plot the TSS profile with plotProfile")
ATAC_QUERY = ("ATAC-seq: align the reads with Bowtie2, mark duplicates, shift the reads for Tn5 with alignmentSieve, "
              "plot the fragment size distribution with bamPEFragmentSize, call peaks per sample with MACS2, create "
              "a consensus peak set across all samples with bedtools merge, count the reads in the consensus peaks "
              "with featureCounts, run differential accessibility analysis with DESeq2, a PCA of the samples and a "
              "sample distance heatmap on the variance-stabilised peak counts, list the genes near the consensus "
              "peaks, make CPM-normalised bigWig tracks with bamCoverage, compute the signal around TSS with "
              "computeMatrix and plot a TSS heatmap with plotHeatmap")
# shift, consensus, counts, VST and PCA make the chain from the reads 10 operations deep: within the default
# max_hops (12), so the compile below uses the default as a user's would
TOOLS = ("bowtie2", "bowtie2-build", "samtools", "macs2", "bedtools", "featureCounts", "Rscript", "bamCoverage",
         "plotFingerprint", "multiBamSummary", "plotCorrelation", "computeMatrix", "plotProfile", "plotHeatmap",
         "alignmentSieve", "bamPEFragmentSize", "snakemake")


def _require() -> None:
    path = env()["PATH"]
    missing = [b for b in TOOLS if shutil.which(b, path=path) is None]
    if not (shutil.which("picard", path=path) or shutil.which("PicardCommandLine", path=path)):
        missing.append("picard")
    if missing:
        skip_or_fail_in_ci(f"{', '.join(missing)} missing; {INSTALL_HINT}")


def _revcomp(seq: str) -> str:
    return seq.translate(COMPLEMENT)[::-1]


def _fragments(rng: random.Random, site_depth: dict[tuple[str, int], int]) -> list[tuple[str, int, int]]:
    frags = []
    for _ in range(BACKGROUND_FRAGMENTS):
        chrom = rng.choices(list(CHROMOSOMES), weights=list(CHROMOSOMES.values()))[0]
        length = rng.randint(150, 250)
        frags.append((chrom, rng.randint(0, CHROMOSOMES[chrom] - length), length))
    for (chrom, site), depth in site_depth.items():
        for _ in range(depth):
            length = rng.randint(150, 250)
            frags.append((chrom, int(rng.gauss(site, 30)) - length // 2, length))
    return frags


def _write_sample(genome: dict[str, str], rng: random.Random, reads: Path, sample: str,
                  site_depth: dict[tuple[str, int], int]) -> None:
    quality = "I" * READ_LENGTH
    with gzip.open(reads / f"{sample}_R1.fastq.gz", "wt") as f1, gzip.open(reads / f"{sample}_R2.fastq.gz", "wt") as f2:
        for n, (chrom, start, length) in enumerate(_fragments(rng, site_depth)):
            fragment = genome[chrom][start:start + length]
            if rng.random() < 0.5:
                fragment = _revcomp(fragment)
            f1.write(f"@frag{n} 1:N:0:ACGT\n{fragment[:READ_LENGTH]}\n+\n{quality}\n")
            f2.write(f"@frag{n} 2:N:0:ACGT\n{_revcomp(fragment)[:READ_LENGTH]}\n+\n{quality}\n")


def _depths(rng: random.Random, enriched: bool, opened: bool = False) -> dict[tuple[str, int], int]:
    """Fragments per site: SITE_FRAGMENTS with a log-normal biological factor (none for an input)."""
    if not enriched:
        return {}
    return {s: int(SITE_FRAGMENTS * math.exp(rng.gauss(0, 0.2)) * (4 if opened and s == OPENED else 1)) for s in SITES}


def _write_references(base: Path, genome: dict[str, str]) -> None:
    (base / "genome.fa").write_text("".join(f">{c}\n{s}\n" for c, s in genome.items()))
    lines = []
    for n, (chrom, tss) in enumerate(SITES + BACKGROUND_TSS, 1):
        attrs = f'gene_id "gene{n}"; transcript_id "tx{n}";'
        for feature in ("gene", "transcript", "exon"):
            lines.append(f"{chrom}\tsynthetic\t{feature}\t{tss + 1}\t{tss + 1500}\t.\t+\t.\t{attrs}")
    (base / "genes.gtf").write_text("\n".join(lines) + "\n")


def _dataset(base: Path, samples: dict[str, dict[tuple[str, int], int]], genome: dict[str, str],
             rng: random.Random) -> list[str]:
    (base / "reads").mkdir(parents=True)
    for sample, depth in samples.items():
        _write_sample(genome, rng, base / "reads", sample, depth)
    return [str(base / "reads" / f"{s}_R{m}.fastq.gz") for s in samples for m in (1, 2)]


def _genome(rng: random.Random) -> dict[str, str]:
    return {c: "".join(rng.choice("ACGT") for _ in range(n)) for c, n in CHROMOSOMES.items()}


@pytest.fixture(scope="module")
def chip(tmp_path_factory):
    _require()
    base = tmp_path_factory.mktemp("chip_extras")
    rng = random.Random(1818)
    genome = _genome(rng)
    _write_references(base, genome)
    reads = _dataset(base, {"chip_1": _depths(rng, True), "chip_2": _depths(rng, True),
                            "input_1": _depths(rng, False)}, genome, rng)
    workdir = compile_workflow(CHIP_QUERY, [*reads, str(base / "genome.fa"), str(base / "genes.gtf")], base / "out")
    chrom, site = BLACKLISTED
    blacklist = workdir / "resources" / "genome_blacklist.bed"
    blacklist.parent.mkdir(parents=True, exist_ok=True)
    blacklist.write_text(f"{chrom}\t{site - 500}\t{site + 500}\tplanted_blacklist\n")
    set_param(workdir, "deeptools_multibamsummary", "bin_size", 2000)
    set_param(workdir, "deeptools_plotfingerprint", "bin_size", 1000)
    set_param(workdir, "deeptools_plotfingerprint", "number_of_samples", 1000)  # the 100 bins of this genome
    # plotFingerprint's quality metrics build 10-million-element arrays per sample, whatever the bins
    run_ok(workdir, extra_env=KEEP_FREED_MEMORY)
    return workdir


@pytest.fixture(scope="module")
def atac(tmp_path_factory):
    _require()
    base = tmp_path_factory.mktemp("atac_extras")
    rng = random.Random(1819)
    genome = _genome(rng)
    _write_references(base, genome)
    groups = {"ctrl_1": False, "ctrl_2": False, "treated_1": True, "treated_2": True}
    reads = _dataset(base, {s: _depths(rng, True, opened) for s, opened in groups.items()}, genome, rng)
    (base / "samples.tsv").write_text("sample\tcondition\n" + "".join(
        f"{s}\t{'treated' if opened else 'control'}\n" for s, opened in groups.items()))
    files = [*reads, str(base / "genome.fa"), str(base / "genes.gtf"), str(base / "samples.tsv")]
    workdir = compile_workflow(ATAC_QUERY, files, base / "out")  # no pre-check: the run builds the same DAG
    run_ok(workdir)
    return workdir


def _one(workdir: Path, step: str, pattern: str) -> Path:
    found = sorted((workdir / "results" / step).glob(pattern))
    assert len(found) == 1, (step, pattern, found)
    return found[0]


def _table(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines() if line and not line.startswith("#")]


def _overlaps(row: list[str], chrom: str, pos: int, pad: int = 0) -> bool:
    return row[0] == chrom and int(row[1]) - pad <= pos <= int(row[2]) + pad


# ------------------------------------------------------------------------------------------ ChIP QC
def test_fingerprint_concentrates_the_chip_reads_in_few_bins(chip):
    """plotFingerprint's raw counts (1 kb windows sampled over the genome): the top tenth of the windows
    holds far more of a ChIP sample's reads (the planted sites) than of the input's (uniform reads,
    about a tenth)."""
    rows = _table(_one(chip, "chip_enrichment_qc", "*raw.txt"))
    header = [h.strip("'") for h in rows[0]]
    counts = {name: sorted((float(r[i]) for r in rows[1:]), reverse=True) for i, name in enumerate(header)}
    top = {name: sum(c[:len(c) // 10]) / sum(c) for name, c in counts.items()}
    assert top["chip_1"] > 0.3 and top["chip_2"] > 0.3, top
    assert top["input_1"] < 0.2 and min(top["chip_1"], top["chip_2"]) > 2 * top["input_1"], top
    metrics = _table(_one(chip, "chip_enrichment_qc", "*qcmetrics.txt"))
    assert sorted(r[0] for r in metrics[1:]) == ["chip_1", "chip_2", "input_1"], metrics


def test_the_chip_replicates_correlate_better_with_each_other_than_with_the_input(chip):
    rows = _table(_one(chip, "sample_correlation", "*.tsv"))
    names = [n.strip("'") for n in rows[0][1:]]
    cor = {(r[0].strip("'"), names[j]): float(v) for r in rows[1:] for j, v in enumerate(r[1:])}
    assert cor["chip_1", "chip_2"] > 0.5, cor  # 2 kb bins: most hold background only
    assert cor["chip_1", "chip_2"] > cor["chip_1", "input_1"] + 0.3, cor
    assert cor["chip_1", "chip_2"] > cor["chip_2", "input_1"] + 0.3, cor
    assert _one(chip, "sample_correlation", "*.png").stat().st_size > 0


def test_the_tss_profile_of_each_chip_sample_peaks_at_the_tss(chip):
    """plotProfile's data: per sample, the mean signal over the TSS-centred bins; the planted sites are
    TSSs, so the maximum lies within 250 bp of the TSS and exceeds 3x the profile's ends."""
    rows = _table(_one(chip, "signal_profile_plotting", "*.tab"))
    for sample in ("chip_1", "chip_2"):
        values = [float(v) for v in next(r for r in rows if r[0] == sample)[2:] if v]
        centre = len(values) // 2  # 3 kb either side of the TSS in 50 bp bins
        peak = max(range(len(values)), key=values.__getitem__)
        assert abs(peak - centre) * 50 <= 250, (sample, peak, centre, values)
        ends = (statistics.mean(values[:5]) + statistics.mean(values[-5:])) / 2
        assert values[peak] > 3 * ends, (sample, values)
    assert _one(chip, "signal_profile_plotting", "*.png").stat().st_size > 0


def test_picard_insert_sizes_are_the_planted_fragment_lengths(chip):
    for sample in ("chip_1", "chip_2", "input_1"):
        lines = _one(chip, f"fragment_size_qc/{sample}", "*insert_size_metrics.txt").read_text().splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("MEDIAN_INSERT_SIZE"))
        row = dict(zip(lines[header].split("\t"), lines[header + 1].split("\t")))
        assert 185 <= float(row["MEDIAN_INSERT_SIZE"]) <= 215, (sample, row)  # uniform 150-250


def test_the_blacklist_filter_removes_the_blacklisted_peak_and_only_it(chip):
    """MACS2's summits (kept; its narrowPeak is an intermediate file) name every peak: the filtered
    peaks are all of them but the one on the blacklisted site, lines unchanged otherwise."""
    summits = _table(_one(chip, "peak_calling", "summits.bed"))
    kept = _table(_one(chip, "blacklist_filtering", "*.bed"))
    blacklisted = [s[3] for s in summits if _overlaps(s, *BLACKLISTED, pad=500)]
    assert len(blacklisted) == 1, summits  # MACS2 called it
    assert not any(_overlaps(p, *BLACKLISTED, pad=500) for p in kept), kept
    assert [p[3] for p in kept] == [s[3] for s in summits if s[3] not in blacklisted], (kept, summits)
    assert all(len(p) == 10 for p in kept), kept  # narrowPeak lines, unchanged
    for chrom, site in SITES:
        if (chrom, site) != BLACKLISTED:
            assert sum(_overlaps(p, chrom, site) for p in kept) == 1, (chrom, site, kept)


# ------------------------------------------------------------------------------------------ ATAC-seq
def test_alignmentsieve_shifts_the_reads_to_the_tn5_cut_sites(atac):
    """Forward-strand reads start 4 bp later, reverse-strand reads end 5 bp earlier (same read, by name)."""
    import pysam

    before = _one(atac, "duplicate_marking/ctrl_1", "*.bam")
    after = _one(atac, "tn5_shift/ctrl_1", "*.shifted.bam")

    def ends(path: Path) -> dict[tuple[str | None, bool], tuple[bool, int, int | None]]:
        with pysam.AlignmentFile(str(path)) as bam:
            return {(r.query_name, r.is_read1): (r.is_reverse, r.reference_start, r.reference_end)
                    for r in bam.fetch() if r.is_proper_pair and not r.is_secondary and not r.is_supplementary}

    old, new = ends(before), ends(after)
    common = sorted(old.keys() & new.keys())
    assert len(common) > 1000, len(common)
    for key in common[:2000]:
        reverse, start, end = old[key]
        if reverse:
            assert new[key][2] == end - 5, (key, old[key], new[key])
        else:
            assert new[key][1] == start + 4, (key, old[key], new[key])


def test_fragment_sizes_are_the_planted_ones_less_the_shift(atac):
    for sample in ("ctrl_1", "treated_1"):
        rows = _table(_one(atac, f"fragment_size_qc/{sample}", "*.fragment_size.tsv"))
        row = dict(zip(rows[0], rows[1]))
        assert 180 <= float(row["Frag. Len. Median"]) <= 205, (sample, row)  # uniform 150-250, 9 bp shorter


def test_the_consensus_peaks_are_the_planted_sites_called_in_every_sample(atac):
    saf = _table(_one(atac, "peak_counting", "peaks.saf"))[1:]
    assert len(saf) == len(SITES), saf
    for chrom, site in SITES:
        assert sum(r[1] == chrom and int(r[2]) <= site <= int(r[3]) for r in saf) == 1, (chrom, site, saf)
    counts = _table(_one(atac, "peak_counting", "peak_counts.tsv"))
    assert counts[0] == ["peak_id", "ctrl_1", "ctrl_2", "treated_1", "treated_2"], counts[0]
    assert all(int(v) >= 100 for r in counts[1:] for v in r[1:]), counts  # every sample's reads in every peak


def test_deseq2_finds_the_opened_site_and_only_it(atac):
    saf = {r[0]: (r[1], int(r[2]), int(r[3])) for r in _table(_one(atac, "peak_counting", "peaks.saf"))[1:]}
    rows = _table(_one(atac, "differential_binding", "*.tsv"))
    col = {name: i for i, name in enumerate(rows[0])}
    # differentially accessible: padj < 0.05 and at least a 2-fold change (the per-sample noise of the
    # other sites shifts some by less than that)
    significant = [r for r in rows[1:] if r[col["padj"]] not in ("NA", "") and float(r[col["padj"]]) < 0.05
                   and abs(float(r[col["log2FoldChange"]])) >= 1]
    assert len(significant) == 1, rows
    assert rows[1][0] == significant[0][0], rows  # and the most significant
    chrom, start, end = saf[significant[0][0]]
    assert chrom == OPENED[0] and start <= OPENED[1] <= end, (significant, saf)
    assert float(significant[0][col["log2FoldChange"]]) > 1, significant  # treated over control


def test_the_atac_sample_pca_separates_the_conditions_along_pc1(atac):
    rows = _table(_one(atac, "sample_pca", "*.tsv"))
    col = {name: i for i, name in enumerate(rows[0])}
    pc1 = {r[0]: float(r[col["PC1"]]) for r in rows[1:] if r[0] != "percent_variance"}
    assert sorted(pc1) == ["ctrl_1", "ctrl_2", "treated_1", "treated_2"], rows
    control, treated = [pc1["ctrl_1"], pc1["ctrl_2"]], [pc1["treated_1"], pc1["treated_2"]]
    assert max(control) < min(treated) or max(treated) < min(control), pc1
    share = {name: float(v) for name, v in zip(rows[0][2:], rows[-1][2:])}
    assert rows[-1][0] == "percent_variance" and share["PC1"] > 50, share  # the opened site dominates
    assert _one(atac, "count_normalization", "*.tsv").read_text().startswith("gene_id\tctrl_1")


def test_each_atac_sample_is_nearest_to_its_replicate(atac):
    rows = _table(_one(atac, "sample_clustering", "*.tsv"))
    order = rows[0][1:]
    distance = {(r[0], s): float(v) for r in rows[1:] for s, v in zip(order, r[1:])}
    partner = {"ctrl_1": "ctrl_2", "ctrl_2": "ctrl_1", "treated_1": "treated_2", "treated_2": "treated_1"}
    for sample, replicate in partner.items():
        others = [s for s in order if s != sample]
        assert min(others, key=lambda s: distance[(sample, s)]) == replicate, (sample, rows)
    # the clustering joins each condition's replicates first: both pairs are clades of the tree
    tree = _one(atac, "sample_clustering", "*.nwk").read_text().strip()
    pairs = {frozenset(re.findall(r"(\w+):", clade)) for clade in re.findall(r"\(([^()]*)\)", tree)}
    assert {frozenset({"ctrl_1", "ctrl_2"}), frozenset({"treated_1", "treated_2"})} <= pairs, tree


def test_the_genes_near_the_consensus_peaks_are_the_planted_sites_genes(atac):
    rows = _table(_one(atac, "peak_gene_assignment", "peak_genes.tsv"))
    assert rows[0] == ["gene_id", "gene_name", "peaks", "min_distance"], rows[0]
    # _write_references numbers the genes: the sites' first, then the background TSSs'
    assert sorted(r[0] for r in rows[1:]) == sorted(f"gene{n}" for n in range(1, len(SITES) + 1)), rows
    assert all(r[2] == "1" and r[3] == "0" for r in rows[1:]), rows


def test_the_atac_tss_heatmap_signal_peaks_at_the_tss(atac):
    """plotHeatmap's matrix (computeMatrix's gzipped format: a JSON header line, then per TSS six BED
    columns and the bins of each sample in turn): the mean over the TSSs of the first sample's
    centre bins is over 3x that of its outer bins."""
    with gzip.open(_one(atac, "signal_profile_plotting", "*.mat.gz"), "rt") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("@")]
    values = [[float(v) if v not in ("", "nan") else 0.0 for v in r[6:]] for r in rows]
    per_sample = len(values[0]) // 4
    first = [statistics.mean(r[i] for r in values) for i in range(per_sample)]
    centre = first[per_sample // 2 - 2:per_sample // 2 + 2]
    outer = first[:5] + first[-5:]
    assert statistics.mean(centre) > 3 * statistics.mean(outer), first
    assert _one(atac, "signal_profile_plotting", "*.png").stat().st_size > 0
