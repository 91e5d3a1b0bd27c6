"""Genes near the peaks: each peak's nearest transcription start site from the GTF (Snakemake script).

Inputs: peaks (BED-like: chrom, 0-based start, end, optional name; narrowPeak, broadPeak, a
consensus BED) and annotation (GTF, optionally gzipped). TSSs are the transcripts' 5' ends
(`transcript` features; `gene` features when the GTF has no transcripts; else each transcript's
exons), as ChIPseeker's annotatePeak takes them. The distance of a peak to a TSS is 0 when the TSS
lies inside the peak, else the gap to the nearer peak end; its sign follows the gene's strand
(negative: the peak is upstream of the TSS).
assign: nearest (default, ChIPseeker annotatePeak / HOMER annotatePeaks): each peak goes to its
nearest TSS's gene, kept when within max_distance; all (ChIPseeker seq2gene-like): every gene with
a TSS within max_distance of the peak.
Outputs: genes (tsv: gene_id, gene_name, peaks, min_distance; sorted by smallest |distance| then
gene id; the gene ids as the GTF writes them) and table (tsv, one row per peak-gene pair: chrom,
start, end, peak, gene_id, gene_name, distance_to_tss; peaks with no gene within max_distance get
an empty gene). Params: max_distance (bp, default 3000: ChIPseeker's promoter window -3000..3000),
assign.
"""

import bioplan_step
from bioplan_step import LOG, fail

bioplan_step.start(snakemake)  # noqa: F821 (injected by Snakemake or bin/bioplan_run.py)

import bisect
import gzip
import re

ATTRIBUTE = re.compile(r'(\w+) "([^"]*)"')


def open_text(path):
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8") if gzipped else open(path, encoding="utf-8")


def read_tss(path):
    """{chrom: sorted [(position 0-based, strand, gene_id, gene_name)]} of the transcripts' TSSs."""
    by_feature = {"transcript": {}, "gene": {}, "exon": {}}
    with open_text(path) as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 9 or cols[2] not in by_feature:
                continue
            attrs = dict(ATTRIBUTE.findall(cols[8]))
            gene = attrs.get("gene_id")
            if not gene:
                continue
            key = attrs.get("transcript_id", gene) if cols[2] != "gene" else gene
            start, end, strand = int(cols[3]) - 1, int(cols[4]) - 1, cols[6]
            name = attrs.get("gene_name", "")
            entry = by_feature[cols[2]].setdefault((cols[0], key), [start, end, strand, gene, name])
            entry[0], entry[1] = min(entry[0], start), max(entry[1], end)
    features = next((f for f in ("transcript", "gene", "exon") if by_feature[f]), None)
    if features is None:
        fail(f"the gene annotation '{path}' has no transcript, gene or exon lines with a gene_id: is it a GTF?")
    tss = {}
    for (chrom, _), (start, end, strand, gene, name) in by_feature[features].items():
        tss.setdefault(chrom, set()).add((end if strand == "-" else start, strand, gene, name))
    LOG.info("%d TSSs of %s features in '%s'", sum(len(v) for v in tss.values()), features, path)
    return {chrom: sorted(sites) for chrom, sites in tss.items()}


def read_peaks(path):
    peaks = []
    with open_text(path) as handle:
        for n, line in enumerate(handle, 1):
            if not line.strip() or line.startswith(("#", "track", "browser")):
                continue
            cols = line.rstrip("\n").split("\t")
            try:
                start, end = int(cols[1]), int(cols[2])
            except (IndexError, ValueError):
                fail(f"line {n} of the peaks '{path}' is no BED line (chrom, start, end): {line.strip()[:80]!r}")
            name = cols[3] if len(cols) > 3 and cols[3] not in ("", ".") else f"{cols[0]}:{start}-{end}"
            peaks.append((cols[0], start, end, name))
    return peaks


def signed_distance(peak_start, peak_end, tss, strand):
    """0 inside the peak; else the gap to the nearer end, negative when the peak is upstream of the TSS."""
    if peak_start <= tss < peak_end:
        return 0
    gap = peak_start - tss if peak_start > tss else -(tss - (peak_end - 1))
    return -gap if strand == "-" else gap


def genes_of(peak, sites, max_distance, assign):
    """[(distance, gene_id, gene_name)] of one peak: its nearest TSS's gene, or every gene within reach."""
    _, start, end, _ = peak
    positions = [s[0] for s in sites]
    lo = bisect.bisect_left(positions, start - max_distance)
    hi = bisect.bisect_right(positions, end - 1 + max_distance)
    hits = {}
    for pos, strand, gene, name in sites[lo:hi]:
        distance = signed_distance(start, end, pos, strand)
        if abs(distance) <= max_distance and (gene not in hits or abs(distance) < abs(hits[gene][0])):
            hits[gene] = (distance, gene, name)
    ranked = sorted(hits.values(), key=lambda h: (abs(h[0]), h[1]))
    return ranked[:1] if assign == "nearest" else ranked


def main():
    params = snakemake.params
    max_distance = int(params.max_distance if params.max_distance is not None else 3000)
    assign = params.assign or "nearest"
    if assign not in ("nearest", "all") or max_distance < 0:
        fail(f"params.assign must be nearest or all and params.max_distance >= 0 (got {assign!r}, {max_distance}).")
    tss = read_tss(snakemake.input.annotation)
    peaks = read_peaks(snakemake.input.peaks)
    if peaks and not {p[0] for p in peaks} & tss.keys():
        fail(f"no chromosome of the peaks ({', '.join(sorted({p[0] for p in peaks})[:3])}) is in the gene annotation "
             f"({', '.join(sorted(tss)[:3])}): give the GTF of the genome the reads were aligned to (same naming).")
    genes, rows = {}, []
    for peak in peaks:
        hits = genes_of(peak, tss.get(peak[0], []), max_distance, assign)
        for distance, gene, name in hits:
            rows.append((*peak, gene, name, distance))
            seen = genes.setdefault(gene, [name, 0, distance])
            seen[1] += 1
            if abs(distance) < abs(seen[2]):
                seen[2] = distance
        if not hits:
            rows.append((*peak, "", "", ""))
    with open(snakemake.output.table, "w", encoding="utf-8") as out:
        out.write("chrom\tstart\tend\tpeak\tgene_id\tgene_name\tdistance_to_tss\n")
        out.writelines("\t".join(map(str, r)) + "\n" for r in rows)
    with open(snakemake.output.genes, "w", encoding="utf-8") as out:
        out.write("gene_id\tgene_name\tpeaks\tmin_distance\n")
        for gene, (name, count, distance) in sorted(genes.items(), key=lambda g: (abs(g[1][2]), g[0])):
            out.write(f"{gene}\t{name}\t{count}\t{distance}\n")
    assigned = sum(1 for r in rows if r[4])
    LOG.info("%d peaks, %d peak-gene pairs within %d bp (%s), %d genes", len(peaks), assigned, max_distance, assign,
             len(genes))
    if not genes:
        LOG.warning("no gene has a TSS within %d bp of a peak: the gene list is empty", max_distance)


main()
