"""Tiny synthetic data sets with planted signals, for bioplan's examples, tests and `bioplan eval`.

    python examples/generate.py OUTDIR [--only CLASS ...]     # in a checkout
    python -m bioplan.evaluate.example_data OUTDIR [--only CLASS ...]   # any install

It lives inside the package so that an installed bioplan carries it: `bioplan eval` generates
the example data its cases read. `examples/generate.py` is the checkout's entry to this module.

It writes one sub-directory of OUTDIR per reference task class (see ``CLASSES``).
Every file is byte-identical on every run: each class draws from its own
``numpy.random.default_rng(seed)``, gzip members carry no name and ``mtime=0``,
nothing records a date, a path or a user. Generating one class alone (``--only``)
gives the same bytes as generating everything. Byte identity holds for one
Python/zlib/HDF5 build; another zlib may compress differently (the decompressed
text stays identical).

Each class writes a ``truth.json`` with what was planted (DE genes, fold changes,
true read counts, variant consequences, cell types, abundances), so tests can
compare a workflow's results with the truth.

The data are synthetic: gene, transcript and taxon identifiers look like Ensembl /
NCBI ones but name nothing real, and sequences are random. ``examples/README.md``
describes each class and the files it holds.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

CLASSES = ("bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics", "hostile")

# One seed per data source; a class that reuses another's data (variants, hostile)
# rebuilds it from the same seed, so `--only` never changes any byte.
_SEEDS = {
    "bulk_de": 1001,
    "reference": 2002,  # genome + gene models shared by rnaseq_fastq and variants
    "rnaseq_reads": 2003,
    "variants": 3003,
    "single_cell": 4004,
    "metagenomics": 5005,
}

_GZIP_LEVEL = 6
_FASTA_WIDTH = 60
_BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
_COMPLEMENT = str.maketrans("ACGTNacgtn", "TGCANtgcan")

# Illumina TruSeq read-through sequences (adapter, index, flow-cell primer, poly-A).
_ADAPTER_R1 = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCACGATCTCGTATGCCGTCTTCTGCTTG" + "A" * 40
_ADAPTER_R2 = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTAGATCTCGGTGGTCGCCGTATCATT" + "A" * 40

_CODON_TABLE = {
    a + b + c: aa
    for (a, b, c), aa in zip(
        ((a, b, c) for a in "TCAG" for b in "TCAG" for c in "TCAG"),
        "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG",
    )
}
_STOPS = ("TAA", "TAG", "TGA")
_SENSE_CODONS = tuple(sorted(c for c, aa in _CODON_TABLE.items() if aa != "*"))


# --------------------------------------------------------------------------- helpers


def _revcomp(seq: str) -> str:
    return seq.translate(_COMPLEMENT)[::-1]


def _translate(seq: str) -> str:
    return "".join(_CODON_TABLE.get(seq[i : i + 3], "X") for i in range(0, len(seq) - 2, 3))


def _random_seq(rng: np.random.Generator, n: int, gc: float) -> str:
    p = [(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]  # A C G T
    return _BASES[rng.choice(4, size=n, p=p)].tobytes().decode()


def _fasta(records: Iterable[tuple[str, str]]) -> bytes:
    lines = []
    for header, seq in records:
        lines.append(f">{header}")
        lines.extend(seq[i : i + _FASTA_WIDTH] for i in range(0, len(seq), _FASTA_WIDTH))
    return ("\n".join(lines) + "\n").encode()


def _gz(data: bytes) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=_GZIP_LEVEL) as gz:
        gz.write(data)
    return buf.getvalue()


def _json(obj) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _table(rows: Iterable[Iterable], delimiter: str) -> bytes:
    """CSV/TSV with minimal quoting (only fields that need it, e.g. hostile sample names)."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerows(rows)
    return buf.getvalue().encode()


def _gmt(sets: Iterable[tuple[str, str, list]]) -> bytes:
    return "".join(f"{name}\t{desc}\t" + "\t".join(map(str, genes)) + "\n" for name, desc, genes in sets).encode()


def _unique_names(rng: np.random.Generator, n: int, make: Callable[[], str], taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        name = make()
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def _mouse_symbols(rng: np.random.Generator, n: int, taken: set[str] | None = None) -> list[str]:
    """Mouse-style symbols ('Kelt3', 'Dorb12'): fictional, capitalised, unique."""
    cons, vows = "bcdfghklmnprstvz", "aeiou"

    def make() -> str:
        stem = cons[rng.integers(16)].upper() + vows[rng.integers(5)] + cons[rng.integers(16)]
        if rng.random() < 0.5:
            stem += cons[rng.integers(16)]
        return f"{stem}{int(rng.integers(1, 20))}"

    return _unique_names(rng, n, make, set() if taken is None else taken)


# --------------------------------------------------------------------------- reads


def _qualities(rng: np.random.Generator, n: int, length: int) -> np.ndarray:
    """Phred scores, Illumina-like: high, slowly decaying along the read, ~6% with a bad tail."""
    pos = np.arange(length)
    base = 38.0 - 7.0 * (pos / length) ** 2
    base[:3] -= 2.0
    q = np.rint(base + rng.normal(0.0, 2.0, (n, length)))
    bad = rng.random(n) < 0.06
    tail = rng.integers(8, 26, n)
    in_tail = bad[:, None] & (pos[None, :] >= (length - tail)[:, None])
    q = np.where(in_tail, rng.integers(2, 16, (n, length)), q)
    return np.clip(q, 2, 41).astype(np.uint8)


def _sequencing_errors(rng: np.random.Generator, seqs: np.ndarray, quals: np.ndarray) -> np.ndarray:
    """Substitute bases with the probability their quality claims; Q2 bases become N."""
    p_err = 10.0 ** (-quals.astype(np.float64) / 10.0)
    err = rng.random(seqs.shape) < p_err
    shift = rng.integers(1, 4, seqs.shape)
    idx = np.full(256, 255, dtype=np.uint8)
    idx[_BASES] = np.arange(4, dtype=np.uint8)
    code = idx[seqs]
    ok = code < 4
    substituted = _BASES[(code.astype(np.int64) + shift) % 4]
    out = np.where(err & ok, substituted, seqs)
    return np.where(quals <= 2, np.uint8(ord("N")), out).astype(np.uint8)


def _simulate_pairs(
    rng: np.random.Generator,
    sources: list[str],
    origin: np.ndarray,
    read_len: int,
    frag_mean: float,
    frag_sd: float,
    adapter_frac: float = 0.0,
) -> tuple[list[str], list[str], int]:
    """Fragments drawn from `sources[origin[i]]`, unstranded; returns R1s, R2s, #adapter pairs."""
    n = len(origin)
    lengths = np.rint(rng.normal(frag_mean, frag_sd, n)).astype(int)
    short = rng.random(n) < adapter_frac
    lengths = np.where(short, rng.integers(35, read_len - 5, n), np.maximum(lengths, read_len + 20))
    flips = rng.random(n) < 0.5
    u = rng.random(n)
    r1s, r2s = [], []
    for i in range(n):
        src = sources[origin[i]]
        flen = min(int(lengths[i]), len(src))
        start = int(u[i] * (len(src) - flen + 1))
        frag = src[start : start + flen]
        if flips[i]:
            frag = _revcomp(frag)
        r1s.append((frag + _ADAPTER_R1)[:read_len])
        r2s.append((_revcomp(frag) + _ADAPTER_R2)[:read_len])
    return r1s, r2s, int(short.sum())


def _fastq(
    rng: np.random.Generator, seqs: list[str], names: list[str], mate: int, barcode: str
) -> bytes:
    length = len(seqs[0])
    arr = np.frombuffer("".join(seqs).encode(), dtype=np.uint8).reshape(len(seqs), length)
    quals = _qualities(rng, len(seqs), length)
    arr = _sequencing_errors(rng, arr, quals)
    seq_rows = arr.tobytes().decode()
    qual_rows = (quals + 33).astype(np.uint8).tobytes().decode()
    out = []
    for i, name in enumerate(names):
        s = seq_rows[i * length : (i + 1) * length]
        q = qual_rows[i * length : (i + 1) * length]
        out.append(f"@{name} {mate}:N:0:{barcode}\n{s}\n+\n{q}\n")
    return "".join(out).encode()


def _read_names(run: int, n: int, rng: np.random.Generator) -> list[str]:
    ys = rng.integers(1000, 30000, n)
    return [f"SYN:{run}:HSYNTHXX:1:{1101 + i // 2000}:{1000 + (i % 2000) * 13}:{int(ys[i])}" for i in range(n)]


_BARCODES = ("ATCACG", "CGATGT", "TTAGGC", "TGACCA", "ACAGTG", "GCCAAT", "CAGATC", "ACTTGA")


# --------------------------------------------------------------------------- class 1: bulk_de


def _bulk_gene_ids(rng: np.random.Generator, n_genes: int) -> tuple[list[str], list[int], list[str]]:
    """Ensembl ids (what the counts use), Entrez ids (what the gene sets use) and symbols."""
    ens_num = np.sort(rng.choice(np.arange(1000, 130000), n_genes, replace=False))
    ensembl = [f"ENSMUSG{int(x):011d}" for x in ens_num]
    # Real mouse annotation has some Entrez ids in the 100-million range; mirror that mix.
    entrez_small = rng.choice(np.arange(11287, 110000), n_genes - 40, replace=False)
    entrez_large = rng.choice(np.arange(100_030_000, 100_050_000), 40, replace=False)
    entrez = [int(x) for x in rng.permutation(np.concatenate([entrez_small, entrez_large]))]
    symbols = _mouse_symbols(rng, n_genes)
    return ensembl, entrez, symbols


class _BulkExpression(NamedTuple):
    mu: np.ndarray  # control mean per gene
    lfc: np.ndarray  # true log2 fold change per gene (0 unless planted)
    de: np.ndarray  # planted DE gene indices: 20 up then 20 down
    up: np.ndarray
    down: np.ndarray
    size_factors: np.ndarray
    counts: np.ndarray  # genes x samples


def _bulk_expression(rng: np.random.Generator, n_genes: int, conditions: list[str]) -> _BulkExpression:
    """Negative-binomial counts with 20 up and 20 down genes planted among moderately expressed ones."""
    mu = np.clip(np.exp(rng.normal(5.0, 1.6, n_genes)), 0.3, 60000)
    alpha = (0.05 + 1.0 / mu) * np.exp(rng.normal(0.0, 0.4, n_genes))
    eligible = np.flatnonzero((mu >= 150) & (mu <= 8000))
    de = rng.choice(eligible, 40, replace=False)
    up, down = np.sort(de[:20]), np.sort(de[20:])
    lfc = np.zeros(n_genes)
    lfc[up] = rng.uniform(2.0, 3.5, 20)
    lfc[down] = -rng.uniform(2.0, 3.5, 20)

    size_factors = np.exp(rng.normal(0.0, 0.15, len(conditions)))
    counts = np.zeros((n_genes, len(conditions)), dtype=np.int64)
    for j, cond in enumerate(conditions):
        mean = mu * size_factors[j] * (2.0 ** lfc if cond == "treated" else 1.0)
        r = 1.0 / alpha
        counts[:, j] = rng.negative_binomial(r, r / (r + mean))
    return _BulkExpression(mu, lfc, de, up, down, size_factors, counts)


def _bulk_gene_sets(rng: np.random.Generator, n_genes: int, expr: _BulkExpression) -> tuple[list, list]:
    """KEGG-like and GO-like sets as (name, description, gene indices); the first ones are planted."""
    # Decoys never contain a planted DE gene, so only planted sets are enriched.
    non_de = np.setdiff1d(np.arange(n_genes), expr.de)
    up_perm, down_perm = rng.permutation(expr.up), rng.permutation(expr.down)
    kegg_members = np.sort(np.concatenate([up_perm[:15], rng.choice(non_de, 10, replace=False)]))
    go_up_members = np.sort(np.concatenate([rng.permutation(expr.up)[:10], rng.choice(non_de, 10, replace=False)]))
    go_down_members = np.sort(np.concatenate([down_perm[:12], rng.choice(non_de, 8, replace=False)]))

    def decoys(n: int) -> list[np.ndarray]:
        return [np.sort(rng.choice(non_de, int(rng.integers(15, 51)), replace=False)) for _ in range(n)]

    kegg_sets = [
        ("KEGG_PLANTED_UP_PATHWAY", "mmu99001 synthetic KEGG-like pathway (planted: 15 up genes)", kegg_members)
    ]
    kegg_sets += [
        (f"KEGG_RANDOM_PATHWAY_{k:02d}", f"mmu990{k:02d} synthetic KEGG-like pathway (random)", m)
        for k, m in enumerate(decoys(11), start=2)
    ]
    go_sets = [
        ("GOBP_PLANTED_UP_PROCESS", "GO:9900001 synthetic GO-like process (planted: 10 up genes)", go_up_members),
        ("GOBP_PLANTED_DOWN_PROCESS", "GO:9900002 synthetic GO-like process (planted: 12 down genes)", go_down_members),
    ]
    go_sets += [
        (f"GOBP_RANDOM_PROCESS_{k:02d}", f"GO:99000{k:02d} synthetic GO-like process (random)", m)
        for k, m in enumerate(decoys(14), start=3)
    ]
    return kegg_sets, go_sets


def _sets_as_ids(sets: list, ids: list) -> list:
    return [(name, desc, [ids[i] for i in members]) for name, desc, members in sets]


def _bulk_planted_sets(kegg_sets: list, go_sets: list, entrez: list[int], de: np.ndarray) -> dict:
    planted_sets = {}
    for (name, _desc, members), library in [
        (kegg_sets[0], "kegg"),
        (go_sets[0], "go"),
        (go_sets[1], "go"),
    ]:
        planted_sets[name] = {
            "library": library,
            "files": ["gene_sets.gmt", f"gene_sets_{library}.gmt"]
            + (["gene_sets_go.symbols.gmt"] if library == "go" else []),
            "size": len(members),
            "planted_de_members_entrez": [entrez[i] for i in members if i in set(de)],
            "direction": "up" if "UP" in name else "down",
        }
    return planted_sets


def _build_bulk_de() -> dict:
    rng = np.random.default_rng(_SEEDS["bulk_de"])
    n_genes = 600
    samples = ["ctrl_1", "ctrl_2", "ctrl_3", "treated_1", "treated_2", "treated_3"]
    conditions = ["control"] * 3 + ["treated"] * 3
    ensembl, entrez, symbols = _bulk_gene_ids(rng, n_genes)
    expr = _bulk_expression(rng, n_genes, conditions)
    kegg_sets, go_sets = _bulk_gene_sets(rng, n_genes, expr)
    counts = expr.counts

    files: dict[str, bytes] = {}
    files["counts.csv"] = _table(
        [["gene_id", *samples]] + [[ensembl[i], *map(int, counts[i])] for i in range(n_genes)], ","
    )
    files["samples.tsv"] = _table([["sample", "condition"], *zip(samples, conditions)], "\t")
    files["id_mapping.tsv"] = _table(
        [["ensembl_gene_id", "entrez_id", "symbol"]] + [[ensembl[i], entrez[i], symbols[i]] for i in range(n_genes)],
        "\t",
    )
    files["gene_sets.gmt"] = _gmt(_sets_as_ids(kegg_sets + go_sets, entrez))
    files["gene_sets_kegg.gmt"] = _gmt(_sets_as_ids(kegg_sets, entrez))
    files["gene_sets_go.gmt"] = _gmt(_sets_as_ids(go_sets, entrez))
    files["gene_sets_go.symbols.gmt"] = _gmt(_sets_as_ids(go_sets, symbols))

    def gene(i: int) -> dict:
        return {
            "ensembl_gene_id": ensembl[i],
            "entrez_id": entrez[i],
            "symbol": symbols[i],
            "true_log2fc": round(float(expr.lfc[i]), 4),
            "control_mean": round(float(expr.mu[i]), 2),
        }

    truth = {
        "class": "bulk_de",
        "organism": "Mus musculus",
        "id_namespace": {"counts.csv": "ensembl_gene_id"},
        "n_genes": n_genes,
        "samples": dict(zip(samples, conditions)),
        "reference_level": "control",
        "contrast": ["condition", "treated", "control"],
        "size_factors": {s: round(float(f), 4) for s, f in zip(samples, expr.size_factors)},
        "de_up": [gene(int(i)) for i in expr.up],
        "de_down": [gene(int(i)) for i in expr.down],
        "gene_set_files": {
            "gene_sets.gmt": {"namespace": "entrez", "libraries": ["kegg", "go"],
                              "n_sets": len(kegg_sets) + len(go_sets)},
            "gene_sets_kegg.gmt": {"namespace": "entrez", "libraries": ["kegg"], "n_sets": len(kegg_sets)},
            "gene_sets_go.gmt": {"namespace": "entrez", "libraries": ["go"], "n_sets": len(go_sets)},
            "gene_sets_go.symbols.gmt": {"namespace": "symbol", "libraries": ["go"], "n_sets": len(go_sets)},
        },
        "planted_sets": _bulk_planted_sets(kegg_sets, go_sets, entrez, expr.de),
        "decoy_sets_contain_de_genes": False,
    }
    files["truth.json"] = _json(truth)
    return {"files": files, "truth": truth, "samples": samples, "conditions": conditions, "counts": counts,
            "gene_ids": ensembl}


# --------------------------------------------------------------------------- reference genome


def _place_gene(model: dict, start0: int) -> None:
    """Fill in genomic coordinates (1-based, inclusive) of a gene whose locus starts at `start0`."""
    model["start0"] = start0
    L = len(model["locus"])
    exons_g = []
    for oa, ob in model["exon_locus"]:
        if model["strand"] == "+":
            exons_g.append((start0 + oa + 1, start0 + ob))
        else:
            exons_g.append((start0 + L - ob + 1, start0 + L - oa))
    model["exons"] = exons_g  # transcript order
    model["start"], model["end"] = start0 + 1, start0 + L


def _tx_to_genome(model: dict, x: int) -> int:
    """mRNA offset (0-based) -> genomic position (1-based)."""
    for (ea, eb), (oa, _ob) in zip(model["exon_mrna"], model["exon_locus"]):
        if ea <= x < eb:
            off = oa + (x - ea)
            if model["strand"] == "+":
                return model["start0"] + off + 1
            return model["start0"] + len(model["locus"]) - off
    raise ValueError(x)


def _tx_interval(model: dict, a: int, b: int) -> list[tuple[int, int]]:
    """mRNA interval [a, b) -> genomic segments (1-based inclusive), in transcript order."""
    segs = []
    for ea, eb in model["exon_mrna"]:
        lo, hi = max(a, ea), min(b, eb)
        if lo < hi:
            g1, g2 = _tx_to_genome(model, lo), _tx_to_genome(model, hi - 1)
            segs.append((min(g1, g2), max(g1, g2)))
    return segs


def _spliced_locus(
    rng: np.random.Generator, mrna: str, utr5_len: int, cds_len: int, n_exons: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]], str]:
    """Cut the mRNA into exons (cuts inside the CDS, >= 60 bp apart) and join them with GT..AG introns.

    Returns the exons in mRNA coordinates, the same exons in locus coordinates, and the locus sequence.
    """
    lo, hi = utr5_len + 30, utr5_len + cds_len - 30
    while True:
        cuts = np.sort(rng.choice(np.arange(lo, hi), n_exons - 1, replace=False))
        if np.all(np.diff(cuts) >= 60):
            break
    bounds = [0, *map(int, cuts), len(mrna)]
    exon_mrna = list(zip(bounds[:-1], bounds[1:]))
    introns = []
    for _ in range(n_exons - 1):
        n = int(rng.integers(90, 330))
        introns.append("GT" + _random_seq(rng, n - 4, 0.38) + "AG")
    locus, exon_locus = "", []
    for e, (ea, eb) in enumerate(exon_mrna):
        exon_locus.append((len(locus), len(locus) + eb - ea))
        locus += mrna[ea:eb]
        if e < len(introns):
            locus += introns[e]
    return exon_mrna, exon_locus, locus


def _gene_model(rng: np.random.Generator, k: int, contig: str, strand: str, symbol: str) -> dict[str, Any]:
    """Gene number k: a random ORF with UTRs, spliced into 2-4 exons; genomic placement comes later."""
    n_codons = int(rng.integers(110, 200))
    body = "".join(rng.choice(_SENSE_CODONS, n_codons - 2))
    cds = "ATG" + body + _STOPS[int(rng.integers(3))]
    utr5 = _random_seq(rng, int(rng.integers(40, 121)), 0.48)
    utr3 = _random_seq(rng, int(rng.integers(120, 261)), 0.40)
    mrna = utr5 + cds + utr3
    n_exons = int(rng.integers(2, 5))
    exon_mrna, exon_locus, locus = _spliced_locus(rng, mrna, len(utr5), len(cds), n_exons)
    num = 110001 + k * 7
    return {
        "gene_id": f"ENSMUSG{num:011d}",
        "transcript_id": f"ENSMUST{num:011d}",
        "protein_id": f"ENSMUSP{num:011d}",
        "exon_ids": [f"ENSMUSE{num * 10 + e:011d}" for e in range(n_exons)],
        "gene_name": symbol,
        "contig": contig,
        "strand": strand,
        "mrna": mrna,
        "cds_start": len(utr5),
        "cds_end": len(utr5) + len(cds),
        "exon_mrna": exon_mrna,
        "exon_locus": exon_locus,
        "locus": locus,
    }


def _place_genes_in_genome(rng: np.random.Generator, models: list[dict]) -> tuple[dict[str, int], dict[str, str]]:
    """Lay the genes out along each contig with random intergenic gaps; returns contig lengths and sequences."""
    contig_len: dict[str, int] = {}
    for contig in ("chr1", "chr2"):
        pos = int(rng.integers(400, 700))
        for m in (m for m in models if m["contig"] == contig):
            _place_gene(m, pos)
            pos += len(m["locus"]) + int(rng.integers(500, 900))
        contig_len[contig] = pos
    genome = {}
    for contig, length in contig_len.items():
        seq = list(_random_seq(rng, length, 0.42))
        for m in (m for m in models if m["contig"] == contig):
            locus = m["locus"] if m["strand"] == "+" else _revcomp(m["locus"])
            seq[m["start0"] : m["start0"] + len(locus)] = locus
        genome[contig] = "".join(seq)
    return contig_len, genome


def _annotate_features(m: dict) -> None:
    """Genomic intervals of the CDS, start/stop codons and UTRs of a placed gene."""
    a, b = m["cds_start"], m["cds_end"]
    m["cds_gff"] = _tx_interval(m, a, b)  # Ensembl GFF3: CDS includes the stop codon
    m["cds_gtf"] = _tx_interval(m, a, b - 3)  # Ensembl GTF: CDS excludes the stop codon
    m["start_codon"] = _tx_interval(m, a, a + 3)
    m["stop_codon"] = _tx_interval(m, b - 3, b)
    m["utr5"] = _tx_interval(m, 0, a)
    m["utr3"] = _tx_interval(m, b, len(m["mrna"]))


def _build_reference() -> dict:
    """Two contigs (~20 kb) and ten spliced protein-coding genes on both strands."""
    rng = np.random.default_rng(_SEEDS["reference"])
    layout = [("chr1", "+"), ("chr1", "-"), ("chr1", "+"), ("chr1", "-"), ("chr1", "+"),
              ("chr2", "-"), ("chr2", "+"), ("chr2", "-"), ("chr2", "+"), ("chr2", "-")]
    symbols = _mouse_symbols(rng, len(layout))
    models: list[dict[str, Any]] = [
        _gene_model(rng, k, contig, strand, symbols[k]) for k, (contig, strand) in enumerate(layout)
    ]
    contig_len, genome = _place_genes_in_genome(rng, models)
    for m in models:
        _annotate_features(m)
    return {"genome": genome, "models": models, "contig_len": contig_len}


def _phases(segs: list[tuple[int, int]]) -> list[int]:
    out, done = [], 0
    for s, e in segs:
        out.append((3 - done % 3) % 3)
        done += e - s + 1
    return out


def _gtf_gene_lines(m: dict) -> list[str]:
    """One gene's GTF lines, Ensembl style (CDS without the stop codon; features in transcript order)."""
    lines: list[str] = []
    c, s = m["contig"], m["strand"]
    g_attr = (f'gene_id "{m["gene_id"]}"; gene_version "1"; gene_name "{m["gene_name"]}"; '
              f'gene_source "ensembl"; gene_biotype "protein_coding";')
    t_attr = (f'gene_id "{m["gene_id"]}"; gene_version "1"; transcript_id "{m["transcript_id"]}"; '
              f'transcript_version "1"; gene_name "{m["gene_name"]}"; gene_source "ensembl"; '
              f'gene_biotype "protein_coding"; transcript_name "{m["gene_name"]}-201"; '
              f'transcript_source "ensembl"; transcript_biotype "protein_coding"; tag "basic";')

    def row(feature, start, end, frame=".", extra=""):
        lines.append(f"{c}\tensembl\t{feature}\t{start}\t{end}\t.\t{s}\t{frame}\t{t_attr}{extra}")

    lines.append(f"{c}\tensembl\tgene\t{m['start']}\t{m['end']}\t.\t{s}\t.\t{g_attr}")
    row("transcript", m["start"], m["end"])
    cds_phase = dict(zip(m["cds_gtf"], _phases(m["cds_gtf"])))
    for e, (es, ee) in enumerate(m["exons"]):
        extra = f' exon_number "{e + 1}"; exon_id "{m["exon_ids"][e]}"; exon_version "1";'
        row("exon", es, ee, ".", extra)
        for cs, ce in m["cds_gtf"]:
            if es <= cs and ce <= ee:
                row("CDS", cs, ce, str(cds_phase[(cs, ce)]),
                    f' exon_number "{e + 1}"; protein_id "{m["protein_id"]}"; protein_version "1";')
        for feat in ("start_codon", "stop_codon"):
            for cs, ce in m[feat]:
                if es <= cs and ce <= ee:
                    row(feat, cs, ce, "0", f' exon_number "{e + 1}";')
    for feat, key in (("five_prime_utr", "utr5"), ("three_prime_utr", "utr3")):
        for us, ue in m[key]:
            row(feat, us, ue)
    return lines


def _gff3_gene_lines(m: dict) -> list[str]:
    """One gene's GFF3 lines, Ensembl style (what bcftools csq expects): gene, mRNA, then parts by position."""
    c, s, gid, tid = m["contig"], m["strand"], m["gene_id"], m["transcript_id"]
    feats = [
        ("gene", m["start"], m["end"], ".",
         f"ID=gene:{gid};Name={m['gene_name']};biotype=protein_coding;gene_id={gid};logic_name=ensembl;version=1"),
        ("mRNA", m["start"], m["end"], ".",
         f"ID=transcript:{tid};Parent=gene:{gid};Name={m['gene_name']}-201;biotype=protein_coding;"
         f"tag=basic;transcript_id={tid};version=1"),
    ]
    # (position, order at equal position, feature ...): UTRs sort before exons, exons before CDS.
    sub = []
    for e, (es, ee) in enumerate(m["exons"]):
        sub.append((es, 2, "exon", es, ee, ".",
                    f"Parent=transcript:{tid};Name={m['exon_ids'][e]};constitutive=1;"
                    f"exon_id={m['exon_ids'][e]};rank={e + 1};version=1"))
    for (cs, ce), phase in zip(m["cds_gff"], _phases(m["cds_gff"])):
        sub.append((cs, 3, "CDS", cs, ce, str(phase),
                    f"ID=CDS:{m['protein_id']};Parent=transcript:{tid};protein_id={m['protein_id']}"))
    for us, ue in m["utr5"]:
        sub.append((us, 1, "five_prime_UTR", us, ue, ".", f"Parent=transcript:{tid}"))
    for us, ue in m["utr3"]:
        sub.append((us, 1, "three_prime_UTR", us, ue, ".", f"Parent=transcript:{tid}"))
    lines = [f"{c}\tensembl\t{ftype}\t{fs}\t{fe}\t.\t{s}\t{ph}\t{attr}" for ftype, fs, fe, ph, attr in feats]
    for _k, _o, ftype, fs, fe, ph, attr in sorted(sub, key=lambda r: (r[0], r[1])):
        lines.append(f"{c}\tensembl\t{ftype}\t{fs}\t{fe}\t.\t{s}\t{ph}\t{attr}")
    lines.append("###")
    return lines


def _reference_files(ref: dict) -> dict[str, bytes]:
    genome, models = ref["genome"], ref["models"]
    models = sorted(models, key=lambda m: (m["contig"], m["start"]))
    files = {"genome.fa": _fasta(genome.items())}

    gtf = ["#!genome-build synthetic-bioplan-1", "#!genome-version synthetic"]
    for m in models:
        gtf += _gtf_gene_lines(m)
    files["genes.gtf"] = ("\n".join(gtf) + "\n").encode()

    gff = ["##gff-version 3"]
    gff += [f"##sequence-region   {c} 1 {n}" for c, n in ref["contig_len"].items()]
    gff += ["#!genome-build synthetic-bioplan-1"]
    for m in models:
        gff += _gff3_gene_lines(m)
    files["genes.gff3"] = ("\n".join(gff) + "\n").encode()

    files["transcripts.fa"] = _fasta(
        (f"{m['transcript_id']} cdna chromosome:synthetic:{m['contig']}:{m['start']}:{m['end']}:"
         f"{1 if m['strand'] == '+' else -1} gene:{m['gene_id']} gene_biotype:protein_coding "
         f"transcript_biotype:protein_coding gene_symbol:{m['gene_name']}", m["mrna"])
        for m in models
    )
    return files


def _gene_summary(m: dict) -> dict:
    return {
        "gene_id": m["gene_id"], "transcript_id": m["transcript_id"], "gene_name": m["gene_name"],
        "contig": m["contig"], "strand": m["strand"], "start": m["start"], "end": m["end"],
        "n_exons": len(m["exons"]), "mrna_length": len(m["mrna"]),
        "cds_length": m["cds_end"] - m["cds_start"],
    }


# --------------------------------------------------------------------------- class 2: rnaseq_fastq


def _rnaseq_sample(
    rng: np.random.Generator, j: int, share: np.ndarray, sources: list[str], n_pairs: int, read_len: int
) -> tuple[bytes, bytes, np.ndarray, np.ndarray, int]:
    """Sample j's R1 and R2 FASTQ, read pairs per gene, gene of origin per pair, and adapter read-through pairs."""
    # Per-sample jitter around the condition's expected share, as biological replicates differ.
    share = share * np.exp(rng.normal(0.0, 0.1, len(share)))
    share /= share.sum()
    per_gene = rng.multinomial(n_pairs, share)
    origin = rng.permutation(np.repeat(np.arange(len(share)), per_gene))
    r1, r2, n_adapt = _simulate_pairs(rng, sources, origin, read_len, 220.0, 35.0, adapter_frac=0.02)
    names = _read_names(j + 1, n_pairs, rng)
    fq1 = _fastq(rng, r1, names, 1, _BARCODES[j])
    fq2 = _fastq(rng, r2, names, 2, _BARCODES[j])
    return fq1, fq2, per_gene, origin, n_adapt


def _rnaseq_truth(
    models: list[dict], samples: list[str], conditions: list[str], n_pairs: int, read_len: int,
    adapters: dict[str, int], true_counts: dict, expected_share: dict[str, list[float]],
    up: int, down: int, silent: int,
) -> dict:
    n = len(models)
    return {
        "class": "rnaseq_fastq",
        "organism": "Mus musculus (synthetic genome, Ensembl-style ids)",
        "samples": dict(zip(samples, conditions)),
        "reference_level": "control",
        "layout": {"paired": "reads/<sample>_R1.fastq.gz + _R2", "single": "reads_se/<sample>.fastq.gz (= R1)"},
        "read_length": read_len,
        "read_pairs_per_sample": n_pairs,
        "fragment_length": {"mean": 220, "sd": 35},
        "strandedness": "unstranded",
        "quality_encoding": "phred33",
        "adapter_readthrough_pairs": adapters,
        "adapters": {"r1": _ADAPTER_R1[:33], "r2": _ADAPTER_R2[:33]},
        "true_counts": true_counts,
        "planted_fold_changes_note": "log2fc relative to the unchanged genes (what median-of-ratios "
                                      "normalisation estimates); raw count ratios are compressed by composition",
        "planted_fold_changes": {
            models[up]["gene_id"]: {"gene_name": models[up]["gene_name"], "log2fc": 2.0},
            models[down]["gene_id"]: {"gene_name": models[down]["gene_name"], "log2fc": -2.0},
        },
        "not_expressed": [models[silent]["gene_id"]],
        "expected_share": {
            cond: {models[g]["gene_id"]: round(v[g], 5) for g in range(n)} for cond, v in expected_share.items()
        },
        "genes": [_gene_summary(m) for m in models],
    }


def _build_rnaseq(ref: dict | None = None) -> dict:
    ref = ref or _build_reference()
    rng = np.random.default_rng(_SEEDS["rnaseq_reads"])
    models = sorted(ref["models"], key=lambda m: (m["contig"], m["start"]))
    samples = ["ctrl_1", "ctrl_2", "treated_1", "treated_2"]
    conditions = ["control", "control", "treated", "treated"]
    n_pairs, read_len = 2000, 75

    n = len(models)
    weight = np.exp(rng.normal(0.0, 0.8, n))
    silent = 7  # one gene is not expressed at all
    weight[silent] = 0.0
    up, down = 2, 5
    log2fc = np.zeros(n)
    log2fc[up], log2fc[down] = 2.0, -2.0

    sources = [m["mrna"] for m in models]
    files: dict[str, bytes] = {}
    true_counts: dict[str, dict[str, int]] = {}
    adapters: dict[str, int] = {}
    records: dict[str, dict] = {}
    expected_share: dict[str, list[float]] = {}
    for j, (sample, cond) in enumerate(zip(samples, conditions)):
        share = weight * (2.0 ** log2fc if cond == "treated" else 1.0)
        expected_share[cond] = list(share / share.sum())
        fq1, fq2, per_gene, origin, n_adapt = _rnaseq_sample(rng, j, share, sources, n_pairs, read_len)
        files[f"reads/{sample}_R1.fastq.gz"] = _gz(fq1)
        files[f"reads/{sample}_R2.fastq.gz"] = _gz(fq2)
        files[f"reads_se/{sample}.fastq.gz"] = _gz(fq1)
        true_counts[sample] = {models[g]["gene_id"]: int(per_gene[g]) for g in range(n)}
        adapters[sample] = n_adapt
        records[sample] = {"fq1": fq1, "fq2": fq2, "origin": origin}

    files["samples.tsv"] = _table([["sample", "condition"], *zip(samples, conditions)], "\t")
    truth = _rnaseq_truth(models, samples, conditions, n_pairs, read_len, adapters, true_counts, expected_share,
                          up, down, silent)
    files["truth.json"] = _json(truth)
    files.update(_reference_files(ref))
    return {"files": files, "truth": truth, "records": records, "samples": samples,
            "conditions": conditions, "models": models}


# --------------------------------------------------------------------------- class 3: variants


def _region_map(ref: dict) -> dict[str, np.ndarray]:
    """Per-base region code with safety margins (so consequences are unambiguous).

    0 intergenic (>= 60 bp from any gene), 1 intron, 2 CDS, 3 5'UTR, 4 3'UTR; 9 = margin/unsafe.
    Intron, UTR and CDS positions keep >= 12 bp from exon boundaries and from CDS ends.
    """
    regions = {c: np.zeros(n + 2, dtype=np.uint8) for c, n in ref["contig_len"].items()}
    for m in ref["models"]:
        r = regions[m["contig"]]
        r[max(1, m["start"] - 60) : m["end"] + 61] = 9
        r[m["start"] : m["end"] + 1] = 1
        for code, segs in ((2, m["cds_gff"]), (3, m["utr5"]), (4, m["utr3"])):
            for s, e in segs:
                r[s : e + 1] = code
        edges = [p for s, e in m["exons"] for p in (s, e)]
        edges += [p for s, e in m["cds_gff"] for p in (s, e)]
        for p in edges:
            r[max(1, p - 12) : p + 13] = 9
        r[m["start"] : m["start"] + 13] = 9
        r[m["end"] - 12 : m["end"] + 1] = 9
    for r in regions.values():
        r[0] = 9
        r[-1] = 9
        r[:30] = 9
        r[-30:] = 9
    return regions


def _mrna_pos(m: dict, gpos: int) -> int:
    """Genomic position (1-based) inside an exon -> mRNA offset (0-based)."""
    for (ea, _eb), (es, ee) in zip(m["exon_mrna"], m["exons"]):
        if es <= gpos <= ee:
            return ea + (gpos - es if m["strand"] == "+" else ee - gpos)
    raise ValueError(gpos)


class _VariantSites:
    """The state shared while planting variants: which positions are taken, and the calls so far.

    Every pick draws from one rng in a fixed order, so the planted set is reproducible.
    """

    def __init__(self, ref: dict, rng: np.random.Generator) -> None:
        self.rng = rng
        self.genome, self.models = ref["genome"], ref["models"]
        self.contigs = list(ref["contig_len"])
        self.regions = _region_map(ref)
        self.used: list[tuple[str, int]] = []
        self.variants: list[dict] = []

    def free(self, c: str, p: int) -> bool:
        # Planted variants stay >= 15 bp apart, so each one is called and annotated on its own.
        return all(not (c == uc and abs(p - up_) < 15) for uc, up_ in self.used)

    def pick(self, code: int, gene_filter=None) -> tuple[str, int]:
        cands = [(c, int(p)) for c in self.contigs for p in np.flatnonzero(self.regions[c] == code)]
        if gene_filter is not None:
            cands = [(c, p) for c, p in cands if gene_filter(c, p)]
        for k in self.rng.permutation(len(cands)):
            c, p = cands[k]
            if self.free(c, p):
                self.used.append((c, p))
                return c, p
        raise RuntimeError("no position left")

    def gene_at(self, c: str, p: int) -> dict | None:
        for m in self.models:
            if m["contig"] == c and m["start"] <= p <= m["end"]:
                return m
        return None

    def alt_base(self, ref_base: str) -> str:
        others = [b for b in "ACGT" if b != ref_base]
        return others[int(self.rng.integers(3))]

    def add(self, c, p, ref_a, alt_a, kind, region, so, csq, m=None, extra=None) -> None:
        v = {"chrom": c, "pos": p, "ref": ref_a, "alt": alt_a, "type": kind, "region": region,
             "so_term": so, "bcftools_csq": csq, "gene_id": m["gene_id"] if m else None,
             "gene_name": m["gene_name"] if m else None, "hits_cds": region == "CDS"}
        if extra:
            v.update(extra)
        self.variants.append(v)


# The CDS SNP consequences planted, one gene each, and their Sequence Ontology terms.
_WANTED_CDS_SNPS = ["synonymous", "synonymous", "missense", "missense", "missense", "stop_gained"]
_CDS_SNP_SO = {"synonymous": "synonymous_variant", "missense": "missense_variant", "stop_gained": "stop_gained"}


def _cds_positions_by_gene(sites: _VariantSites) -> dict[str, list[int]]:
    cds_cands: dict[str, list[int]] = {m["gene_id"]: [] for m in sites.models}
    for c in sites.contigs:
        for pos in np.flatnonzero(sites.regions[c] == 2):
            gene = sites.gene_at(c, int(pos))
            assert gene is not None  # a CDS position lies inside a gene
            cds_cands[gene["gene_id"]].append(int(pos))
    return cds_cands


def _try_cds_snp(sites: _VariantSites, m: dict, p: int, wanted: str) -> bool:
    """Plant a SNP of consequence `wanted` at genomic position p of gene m, if some base gives it."""
    x = _mrna_pos(m, p)
    ci = (x - m["cds_start"]) // 3
    # Keep off the first two and last three codons: start/stop-codon effects would blur the consequence.
    if ci < 2 or ci > (m["cds_end"] - m["cds_start"]) // 3 - 3:
        return False
    codon_start = m["cds_start"] + 3 * ci
    codon = m["mrna"][codon_start : codon_start + 3]
    ref_g = sites.genome[m["contig"]][p - 1]
    for b in sites.rng.permutation(list("ACGT")):
        b = str(b)
        if b == ref_g:
            continue
        tb = b if m["strand"] == "+" else b.translate(_COMPLEMENT)
        new = codon[: x - codon_start] + tb + codon[x - codon_start + 1 :]
        aa0, aa1 = _CODON_TABLE[codon], _CODON_TABLE[new]
        kind = "stop_gained" if aa1 == "*" else ("synonymous" if aa0 == aa1 else "missense")
        if kind == wanted:
            sites.used.append((m["contig"], p))
            sites.add(m["contig"], p, ref_g, b, "SNP", "CDS", _CDS_SNP_SO[wanted], wanted, m,
                      {"codon_change": f"{codon}>{new}", "aa_change": f"{aa0}{ci + 1}{aa1}"})
            return True
    return False


def _plant_cds_snps(sites: _VariantSites, gene_order: list[dict]) -> None:
    """CDS SNPs with a chosen consequence, spread over genes on both strands."""
    cds_cands = _cds_positions_by_gene(sites)
    for w, m in zip(_WANTED_CDS_SNPS, gene_order):
        cands = cds_cands[m["gene_id"]]
        found = False
        for k in sites.rng.permutation(len(cands)):
            p = cands[k]
            if sites.free(m["contig"], p) and _try_cds_snp(sites, m, p, w):
                found = True
                break
        if not found:
            raise RuntimeError(f"could not plant {w} in {m['gene_id']}")


def _plant_noncoding_snps(sites: _VariantSites) -> None:
    for code, region, so_t, csq_t, n in ((3, "5_prime_UTR", "5_prime_UTR_variant", "5_prime_utr", 1),
                                         (4, "3_prime_UTR", "3_prime_UTR_variant", "3_prime_utr", 1),
                                         (1, "intron", "intron_variant", "intron", 3),
                                         (0, "intergenic", "intergenic_variant", None, 4)):
        for _ in range(n):
            c, p = sites.pick(code)
            r = sites.genome[c][p - 1]
            sites.add(c, p, r, sites.alt_base(r), "SNP", region, so_t, csq_t, sites.gene_at(c, p) if code else None)


def _plant_indels(sites: _VariantSites, m_fs: dict) -> None:
    """A 1-bp deletion in a CDS of m_fs (frameshift) and a 2-bp insertion between genes.

    Both are left-aligned: the deleted base differs from its left neighbour, and the last
    inserted base differs from the anchor base.
    """
    genome = sites.genome
    while True:
        c, p = sites.pick(2, lambda c, p: sites.gene_at(c, p) is m_fs)
        seq = genome[c]
        if seq[p - 1] != seq[p - 2] and seq[p - 1] != seq[p]:
            break
    sites.add(c, p - 1, seq[p - 2 : p], seq[p - 2], "INDEL", "CDS", "frameshift_variant", "frameshift", m_fs)
    while True:
        c, p = sites.pick(0)
        anchor = genome[c][p - 1]
        ins = _random_seq(sites.rng, 2, 0.5)
        if ins[-1] != anchor and ins[0] != genome[c][p]:
            break
    sites.add(c, p, anchor, anchor + ins, "INDEL", "intergenic", "intergenic_variant", None)


def _vcf_header(contig_len: dict[str, int], sample_names: list[str]) -> list[str]:
    return [
        "##fileformat=VCFv4.2",
        '##FILTER=<ID=PASS,Description="All filters passed">',
        "##source=bioplan-examples",
        "##reference=genome.fa",
        *(f"##contig=<ID={c},length={n}>" for c, n in contig_len.items()),
        '##INFO=<ID=DP,Number=1,Type=Integer,Description="Raw read depth">',
        '##INFO=<ID=AC,Number=A,Type=Integer,Description="Allele count in genotypes, for each ALT allele">',
        '##INFO=<ID=AN,Number=1,Type=Integer,Description="Total number of alleles in called genotypes">',
        '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
        '##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Read depth">',
        "#" + "\t".join(["CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO", "FORMAT", *sample_names]),
    ]


_GENOTYPE_PATTERNS = [("0/1", "0/0"), ("0/0", "0/1"), ("0/1", "0/1"), ("1/1", "0/1"), ("0/1", "1/1"), ("1/1", "1/1")]


def _vcf_records(
    rng: np.random.Generator, variants: list[dict], low: list[int], sample_names: list[str]
) -> tuple[list[str], dict[str, int]]:
    """VCF data lines (also recording qual and genotypes into each variant) and non-ref counts per sample."""
    lines = []
    per_sample = {s: 0 for s in sample_names}
    for i, v in enumerate(variants):
        gts = _GENOTYPE_PATTERNS[int(rng.integers(len(_GENOTYPE_PATTERNS)))]
        dps = [int(x) for x in rng.integers(12, 60, 2)]
        qual = round(float(rng.uniform(5, 19)) if i in low else float(rng.uniform(45, 225)), 1)
        ac = sum(g.count("1") for g in gts)
        v.update({"qual": qual, "low_quality": i in low, "genotypes": dict(zip(sample_names, gts))})
        for s, g in zip(sample_names, gts):
            per_sample[s] += g != "0/0"
        lines.append("\t".join([v["chrom"], str(v["pos"]), ".", v["ref"], v["alt"], f"{qual:g}", ".",
                                f"DP={sum(dps)};AC={ac};AN=4", "GT:DP",
                                *(f"{g}:{d}" for g, d in zip(gts, dps))]))
    return lines, per_sample


def _variants_truth(
    variants: list[dict], models: list[dict], low: list[int], sample_names: list[str], per_sample: dict[str, int]
) -> dict:
    return {
        "class": "variants",
        "samples": sample_names,
        "n_variants": len(variants),
        "n_snps": sum(v["type"] == "SNP" for v in variants),
        "n_indels": sum(v["type"] == "INDEL" for v in variants),
        "n_cds": sum(v["hits_cds"] for v in variants),
        "n_low_quality": len(low),
        "low_quality_rule": "QUAL < 20",
        "genotypes_phased": False,
        "tool_notes": {
            "bcftools_csq": "genotypes are unphased: pass --phase a (or m/r); the GFF3 is what csq reads",
            "snpeff_vep": "the genome is synthetic: build a custom database from genome.fa + genes.gtf",
        },
        "non_ref_genotypes_per_sample": per_sample,
        "variants": variants,
        "genes": [_gene_summary(m) for m in sorted(models, key=lambda m: (m["contig"], m["start"]))],
        "note": "genome.fa, genes.gtf and genes.gff3 are byte-identical to rnaseq_fastq's",
    }


def _vcf_parts(contig_len: dict[str, int], sample_names: list[str], lines: list[str]) -> dict[str, bytes]:
    """The same calls as parts of one call set, for bcftools merge and concat: one VCF per sample
    (per_sample/<sample>.vcf: its genotype column, INFO/DP its own depth) and one VCF per contig
    (per_region/<contig>.vcf: both samples)."""
    parts: dict[str, bytes] = {}
    for k, sample in enumerate(sample_names):
        records = []
        for line in lines:
            cols = line.split("\t")
            call = cols[9 + k]
            records.append("\t".join([*cols[:7], f"DP={call.split(':')[1]}", cols[8], call]))
        parts[f"per_sample/{sample}.vcf"] = ("\n".join(_vcf_header(contig_len, [sample]) + records) + "\n").encode()
    for contig in contig_len:
        records = [line for line in lines if line.split("\t")[0] == contig]
        if records:
            text = "\n".join(_vcf_header(contig_len, sample_names) + records) + "\n"
            parts[f"per_region/{contig}.vcf"] = text.encode()
    return parts


def _build_variants(ref: dict | None = None) -> dict:
    ref = ref or _build_reference()
    rng = np.random.default_rng(_SEEDS["variants"])
    sites = _VariantSites(ref, rng)
    models = sites.models
    gene_order = [models[int(k)] for k in rng.permutation(len(models))]
    _plant_cds_snps(sites, gene_order)
    _plant_noncoding_snps(sites)
    _plant_indels(sites, gene_order[len(_WANTED_CDS_SNPS)])
    variants = sites.variants
    variants.sort(key=lambda v: (sites.contigs.index(v["chrom"]), v["pos"]))
    # Two low-quality calls (QUAL < 20) that a quality filter should drop: one intron, one intergenic SNP.
    low = [next(i for i, v in enumerate(variants) if v["region"] == "intron"),
           next(i for i, v in enumerate(variants) if v["region"] == "intergenic" and v["type"] == "SNP")]
    sample_names = ["sample1", "sample2"]
    lines, per_sample = _vcf_records(rng, variants, low, sample_names)
    files = _reference_files(ref)
    del files["transcripts.fa"]
    files["calls.vcf"] = ("\n".join(_vcf_header(ref["contig_len"], sample_names) + lines) + "\n").encode()
    files.update(_vcf_parts(ref["contig_len"], sample_names, lines))
    truth = _variants_truth(variants, models, low, sample_names, per_sample)
    files["truth.json"] = _json(truth)
    return {"files": files, "truth": truth}


# --------------------------------------------------------------------------- class 4: single_cell

_SC_MARKERS = {
    "T_cell": ["CD3D", "CD3E", "CD3G", "CD2", "CD7", "IL7R", "LCK", "TRAC", "CD247", "LEF1", "TCF7", "CD28"],
    "B_cell": ["MS4A1", "CD79A", "CD79B", "CD19", "CD22", "BANK1", "PAX5", "FCRLA", "VPREB3", "BLK", "TCL1A",
               "IGHM"],
    "Monocyte": ["CD14", "LYZ", "S100A8", "S100A9", "S100A12", "FCN1", "CST3", "CSF1R", "VCAN", "MNDA", "CD68",
                 "LGALS2"],
}
_SC_MT = ["MT-ND1", "MT-ND2", "MT-CO1", "MT-CO2", "MT-ATP8", "MT-ATP6", "MT-CO3", "MT-ND3", "MT-ND4L",
          "MT-ND4", "MT-ND5", "MT-ND6", "MT-CYB"]
_SC_RIBO = ["RPL3", "RPL4", "RPL5", "RPL7", "RPL10", "RPL13", "RPS3", "RPS4X", "RPS6", "RPS8", "RPS12",
            "RPS18", "RPS27A", "RPLP0", "RPLP1"]
_SC_HOUSEKEEPING = ["ACTB", "GAPDH", "B2M", "MALAT1", "TMSB4X", "EEF1A1", "FTL", "FTH1", "TPT1", "PTMA"]


def _sc_gene_names(rng: np.random.Generator, n_genes: int) -> tuple[list[str], list[str]]:
    """The named genes (markers, MT, ribosomal, housekeeping) and all genes: named + random filler."""
    named = [g for ms in _SC_MARKERS.values() for g in ms] + _SC_MT + _SC_RIBO + _SC_HOUSEKEEPING
    families = ["ZNF", "TMEM", "SLC", "CCDC", "FAM", "KLHL", "ANKRD", "LRRC", "PRR", "ZC3H", "WDR", "ARHGAP"]
    filler = _unique_names(
        rng, n_genes - len(named),
        lambda: f"{families[rng.integers(len(families))]}{int(rng.integers(2, 400))}", set(named),
    )
    return named, named + filler


def _sc_type_profiles(rng: np.random.Generator, gidx: dict[str, int], types: list[str], mt: np.ndarray) -> np.ndarray:
    """Per cell type, the expected fraction of a cell's counts per gene (rows sum to 1; 4% mitochondrial)."""
    n_genes = len(gidx)
    base = np.exp(rng.normal(-0.3, 1.0, n_genes))
    for g in _SC_RIBO:
        base[gidx[g]] = np.exp(rng.normal(2.6, 0.3))
    for g in _SC_HOUSEKEEPING:
        base[gidx[g]] = np.exp(rng.normal(2.3, 0.4))
    profiles = np.zeros((3, n_genes))
    for ti, _name in enumerate(types):
        p = base.copy()
        for tt, other in enumerate(types):
            idx = [gidx[g] for g in _SC_MARKERS[other]]
            p[idx] = np.exp(rng.normal(1.8, 0.3, len(idx))) if tt == ti else np.exp(rng.normal(-2.3, 0.4, len(idx)))
        p[mt] = 0.0
        p /= p.sum()
        mt_w = np.exp(rng.normal(0.0, 0.3, len(mt)))
        profiles[ti] = p * 0.96
        profiles[ti, mt] = 0.04 * mt_w / mt_w.sum()
    return profiles


def _sc_counts(
    rng: np.random.Generator, profiles: np.ndarray, labels: np.ndarray, mt: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Gamma-Poisson counts per cell, and the 3 cells per type planted with 25-40% MT counts (for QC to drop)."""
    n_cells, n_genes = len(labels), profiles.shape[1]
    high_mt = np.sort(np.concatenate([rng.choice(np.flatnonzero(labels == t), 3, replace=False) for t in range(3)]))
    lib = np.exp(rng.normal(np.log(900), 0.35, n_cells)) * np.where(labels == 2, 1.3, 1.0)
    mean = profiles[labels] * lib[:, None]
    mt_frac = rng.uniform(0.25, 0.40, len(high_mt))
    for k, c in enumerate(high_mt):
        row = profiles[labels[c]].copy()
        row[mt] *= mt_frac[k] / row[mt].sum()
        others = np.setdiff1d(np.arange(n_genes), mt)
        row[others] *= (1 - mt_frac[k]) / row[others].sum()
        mean[c] = row * lib[c]
    disp = 0.2
    counts = rng.poisson(rng.gamma(1.0 / disp, mean * disp)).astype(np.float32)
    return counts, high_mt


def _sc_gene_sets(rng: np.random.Generator, genes: list[str], named: list[str], types: list[str]) -> list:
    """Gene sets in symbols: one planted set per cell type (10 of 12 markers + 5 decoys), random decoys."""
    non_marker = [g for g in genes if g not in set(named[:36]) and not g.startswith("MT-")]
    sets = []
    for t in types:
        picked = list(rng.permutation(_SC_MARKERS[t])[:10])
        decoy = list(rng.choice(non_marker, 5, replace=False))
        sets.append((f"PLANTED_{t.upper()}_SIGNATURE", f"synthetic signature of {t} (planted)",
                     sorted(map(str, picked + decoy))))
    for k in range(12):
        members = rng.choice(non_marker, int(rng.integers(15, 40)), replace=False)
        sets.append((f"RANDOM_SET_{k + 1:02d}", "synthetic random gene set", sorted(map(str, members))))
    return sets


def _sc_truth(
    counts: np.ndarray, mt: np.ndarray, high_mt: np.ndarray, labels: np.ndarray, obs_names: list[str],
    types: list[str], n_per_type: dict[str, int],
) -> dict:
    n_cells, n_genes = counts.shape
    totals = counts.sum(axis=1)
    obs_mt = counts[:, mt].sum(axis=1) / totals
    return {
        "class": "single_cell",
        "organism": "Homo sapiens (human gene symbols; expression synthetic)",
        "shape": {"n_obs": n_cells, "n_vars": n_genes},
        "x": "scipy CSR float32 holding raw integer counts; var index = symbols, var['gene_ids'] = ENSG-like ids",
        "obs_columns": ["sample"],
        "cell_types": {t: int(n_per_type[t]) for t in types},
        "markers": _SC_MARKERS,
        "mt_genes": _SC_MT,
        "high_mt_cells": [obs_names[int(c)] for c in high_mt],
        "high_mt_fraction_min": round(float(obs_mt[high_mt].min()), 4),
        "other_cells_mt_fraction_max": round(float(np.delete(obs_mt, high_mt).max()), 4),
        "cell_type_of": {obs_names[c]: types[int(labels[c])] for c in range(n_cells)},
        "planted_sets": {f"PLANTED_{t.upper()}_SIGNATURE": t for t in types},
        "gene_set_files": {"gene_sets.gmt": {"namespace": "symbol"}, "cell_markers.gmt": {"namespace": "symbol"}},
        "qc_note": "only 250 genes: per-cell gene counts are ~100-200, so filters like min_genes=200 drop most cells",
        "n_genes_by_counts_median": int(np.median((counts > 0).sum(axis=1))),
    }


def _build_single_cell() -> dict:
    rng = np.random.default_rng(_SEEDS["single_cell"])
    n_genes = 250
    named, genes = _sc_gene_names(rng, n_genes)
    gidx = {g: i for i, g in enumerate(genes)}
    types = list(_SC_MARKERS)
    n_per_type = {"T_cell": 130, "B_cell": 80, "Monocyte": 90}
    labels = rng.permutation(np.repeat(np.arange(3), [n_per_type[t] for t in types]))
    n_cells = len(labels)
    mt = np.array([gidx[g] for g in _SC_MT])
    profiles = _sc_type_profiles(rng, gidx, types, mt)
    counts, high_mt = _sc_counts(rng, profiles, labels, mt)

    samples = np.where(rng.random(n_cells) < 0.5, "donor_A", "donor_B")
    barcodes = _unique_names(rng, n_cells, lambda: _random_seq(rng, 16, 0.5), set())
    obs_names = [f"{bc}-{1 if s == 'donor_A' else 2}" for bc, s in zip(barcodes, samples)]
    ensg = rng.choice(np.arange(100000, 290000), n_genes, replace=False)

    def write_h5ad(path: Path) -> None:
        _write_h5ad(path, counts, obs_names, samples, ("donor_A", "donor_B"), genes,
                    [f"ENSG{int(x):011d}" for x in ensg])

    files: dict[str, object] = {
        "pbmc_tiny.h5ad": write_h5ad,
        "gene_sets.gmt": _gmt(_sc_gene_sets(rng, genes, named, types)),
        "cell_markers.gmt": _gmt((t, f"{t} markers (planted, {len(ms)} genes)", ms) for t, ms in _SC_MARKERS.items()),
    }
    truth = _sc_truth(counts, mt, high_mt, labels, obs_names, types, n_per_type)
    files["truth.json"] = _json(truth)
    return {"files": files, "truth": truth, "counts": counts, "genes": genes}


# --------------------------------------------------------------------------- class 5: metagenomics

_TAXA = [  # taxid, parent, rank, name
    (1, 1, "no rank", "root"),
    (2, 1, "superkingdom", "Bacteria"),
    (1001, 2, "phylum", "Synthetobacterota"),
    (1002, 2, "phylum", "Exemplarota"),
    (1101, 1001, "class", "Synthetobacteria"),
    (1102, 1002, "class", "Exemplaria"),
    (1201, 1101, "order", "Synthetobacterales"),
    (1202, 1102, "order", "Exemplariales"),
    (1301, 1201, "family", "Synthetobacteraceae"),
    (1302, 1202, "family", "Exemplariaceae"),
    (1401, 1301, "genus", "Synthobacter"),
    (1402, 1301, "genus", "Mockibacter"),
    (1403, 1302, "genus", "Exemplarium"),
    (1501, 1401, "species", "Synthobacter alpha"),
    (1502, 1401, "species", "Synthobacter beta"),
    (1503, 1402, "species", "Mockibacter gamma"),
    (1504, 1403, "species", "Exemplarium delta"),
]


def _taxonomy_files() -> dict[str, bytes]:
    nodes, names = [], []
    for taxid, parent, rank, name in _TAXA:
        div, gc = (8, 1) if taxid == 1 else (0, 11)
        fields = [taxid, parent, rank, "", div, 0, gc, 0, 0, 0, 0, 0, ""]
        nodes.append("\t|\t".join(map(str, fields)) + "\t|\n")
        names.append(f"{taxid}\t|\t{name}\t|\t\t|\tscientific name\t|\n")
        if taxid == 1:
            names.append("1\t|\tall\t|\t\t|\tsynonym\t|\n")
    return {"taxonomy/nodes.dmp": "".join(nodes).encode(), "taxonomy/names.dmp": "".join(names).encode()}


_META_SPECIES = [1501, 1502, 1503, 1504]
_META_GC, _META_LENGTHS = [0.38, 0.45, 0.52, 0.63], [8000, 8200, 7800, 8400]


def _metagenome_sources(rng: np.random.Generator) -> tuple[list[str], str]:
    """The four species' genomes and the host genome."""
    genomes = [_random_seq(rng, n, gc) for n, gc in zip(_META_LENGTHS, _META_GC)]
    # The two Synthobacter species share a 400-bp segment: reads from it are genus-level for an LCA classifier.
    shared = genomes[0][2000:2400]
    genomes[1] = genomes[1][:5000] + shared + genomes[1][5400:]
    host = _random_seq(rng, 12000, 0.41)
    return genomes, host


def _metagenome_sample(
    rng: np.random.Generator, j: int, base: np.ndarray, sources: list[str], n_pairs: int, read_len: int
) -> tuple[bytes, bytes, np.ndarray]:
    """Sample j's R1 and R2 FASTQ (not yet gzipped) and its read pairs per source (4 species, then host)."""
    share = base * np.exp(rng.normal(0.0, 0.15, 4))
    share /= share.sum()
    host_frac = rng.uniform(0.02, 0.05)
    probs = np.concatenate([share * (1 - host_frac), [host_frac]])
    per_source = rng.multinomial(n_pairs, probs)
    origin = rng.permutation(np.repeat(np.arange(5), per_source))
    r1, r2, _ = _simulate_pairs(rng, sources, origin, read_len, 300.0, 40.0)
    names = _read_names(10 + j, n_pairs, rng)
    fq1 = _fastq(rng, r1, names, 1, _BARCODES[j])
    fq2 = _fastq(rng, r2, names, 2, _BARCODES[j])
    return fq1, fq2, per_source


# Species index 3 is planted 8x more abundant in group B than in group A.
_META_PLANTED, _META_FOLD = 3, 8.0


def _metagenome_group_shares() -> tuple[np.ndarray, np.ndarray]:
    """Expected species shares in groups A and B; B scales the others down so each sums to 1."""
    base_a = np.array([0.40, 0.30, 0.25, 0.05])
    planted, fold = _META_PLANTED, _META_FOLD
    base_b = base_a * (1 - fold * base_a[planted]) / (1 - base_a[planted])
    base_b[planted] = fold * base_a[planted]
    return base_a, base_b


def _observed_fold_change(rel: dict, samples: list[str], groups: list[str], taxid: int) -> float:
    def group_mean(g: str) -> float:
        return float(np.mean([rel[s][str(taxid)] for s, gg in zip(samples, groups) if gg == g]))

    return round(group_mean("B") / group_mean("A"), 3)


def _build_metagenomics() -> dict:
    rng = np.random.default_rng(_SEEDS["metagenomics"])
    species = _META_SPECIES
    name_of = {t: n for t, _p, _r, n in _TAXA}
    genomes, host = _metagenome_sources(rng)

    samples = ["A_1", "A_2", "A_3", "B_1", "B_2", "B_3"]
    groups = ["A"] * 3 + ["B"] * 3
    planted, fold = _META_PLANTED, _META_FOLD
    base_a, base_b = _metagenome_group_shares()
    n_pairs, read_len = 2000, 100
    files: dict[str, bytes] = {}
    files["genomes.fa"] = _fasta(
        (f"seq{k + 1}|kraken:taxid|{t} {name_of[t]} synthetic genome", g)
        for k, (t, g) in enumerate(zip(species, genomes))
    )
    files["host.fa"] = _fasta([("host_chr1 synthetic host genome", host)])
    files.update(_taxonomy_files())
    true_counts, rel = {}, {}
    for j, (sample, group) in enumerate(zip(samples, groups)):
        fq1, fq2, per_source = _metagenome_sample(
            rng, j, base_a if group == "A" else base_b, genomes + [host], n_pairs, read_len
        )
        files[f"reads/{sample}_R1.fastq.gz"] = _gz(fq1)
        files[f"reads/{sample}_R2.fastq.gz"] = _gz(fq2)
        true_counts[sample] = {**{str(t): int(per_source[k]) for k, t in enumerate(species)},
                               "host": int(per_source[4])}
        bact = per_source[:4].sum()
        rel[sample] = {str(t): round(float(per_source[k] / bact), 5) for k, t in enumerate(species)}
    files["samples.tsv"] = _table([["sample", "group"], *zip(samples, groups)], "\t")

    truth = {
        "class": "metagenomics",
        "samples": dict(zip(samples, groups)),
        "reference_group": "A",
        "read_length": read_len,
        "read_pairs_per_sample": n_pairs,
        "fragment_length": {"mean": 300, "sd": 40},
        "genomes": {f"seq{k + 1}": {"taxid": t, "name": name_of[t], "length": len(g), "gc": _META_GC[k]}
                    for k, (t, g) in enumerate(zip(species, genomes))},
        "shared_segment": {"between": [1501, 1502], "length": 400,
                           "note": "reads from it are assigned to genus 1401 by LCA classifiers"},
        "taxonomy": {str(t): {"parent": p, "rank": r, "name": n} for t, p, r, n in _TAXA},
        "true_read_pairs": true_counts,
        "true_relative_abundance": rel,
        "expected_relative_abundance": {"A": {str(t): round(float(v), 5) for t, v in zip(species, base_a)},
                                        "B": {str(t): round(float(v), 5) for t, v in zip(species, base_b)}},
        "planted": {"taxid": species[planted], "name": name_of[species[planted]], "higher_in": "B",
                    "expected_fold_change": fold,
                    "observed_fold_change": _observed_fold_change(rel, samples, groups, species[planted])},
        "host": {"file": "host.fa", "in_kraken_library": False, "fraction_range": [0.02, 0.05]},
        "kraken2_build": "kraken2-build --add-to-library genomes.fa; copy taxonomy/*.dmp to <db>/taxonomy/; "
                         "bracken-build -l 100",
    }
    files["truth.json"] = _json(truth)
    return {"files": files, "truth": truth}


# --------------------------------------------------------------------------- hostile

_HOSTILE_NAMES = {  # original sample -> hostile sample name (legal file names; harmless canaries)
    "ctrl_1": "ctrl 1",
    "ctrl_2": 'ctrl "2"',
    "ctrl_3": "ctrl '3'",
    "treated_1": "treated $(touch INJECTED)",
    "treated_2": "treated;touch INJECTED_SEMI",
    "treated_3": "treated `touch INJECTED_BT`",
}
_HOSTILE_CANARIES = ["INJECTED", "INJECTED_SEMI", "INJECTED_BT"]


def _build_hostile(bulk: dict | None = None, rnaseq: dict | None = None) -> dict:
    bulk = bulk or _build_bulk_de()
    rnaseq = rnaseq or _build_rnaseq()
    files: dict[str, bytes] = {}
    names = [_HOSTILE_NAMES[s] for s in bulk["samples"]]
    counts_name = "counts;touch INJECTED.csv"  # no '$' or '`' in a path a SLURM job names: codegen/snakemake.py
    samples_name = "samples;touch INJECTED_SEMI.tsv"
    files[counts_name] = _table(
        [["gene_id", *names]] + [[g, *map(int, row)] for g, row in zip(bulk["gene_ids"], bulk["counts"])], ","
    )
    files[samples_name] = _table([["sample", "condition"], *zip(names, bulk["conditions"])], "\t")

    # A few FASTQ pairs per rnaseq sample, renamed (first 250 pairs), with reference copies.
    n_keep = 250
    # FASTQ files name samples, which are the jobs' wildcards: ids holding '$' or '`' are refused (a SLURM run
    # without profiles/slurm submits with --wrap="...": codegen/names.py ID_SYNTAX), so their shell is ';' and '&'
    # (nor a "'" at an id's ends: a SLURM job reads its target with the quotes at the ends stripped)
    read_map = {"ctrl_1": "ctrl 1", "ctrl_2": "ctrl '2' b", "treated_1": "treated 'x'&touch INJECTED",
                "treated_2": "treated;touch INJECTED_SEMI"}
    true_counts = {}
    for s in rnaseq["samples"]:
        rec = rnaseq["records"][s]
        for mate, key in (("R1", "fq1"), ("R2", "fq2")):
            lines = rec[key].split(b"\n")[: 4 * n_keep]
            files[f"reads/{read_map[s]}_{mate}.fastq.gz"] = _gz(b"\n".join(lines) + b"\n")
        origin = rec["origin"][:n_keep]
        true_counts[read_map[s]] = {m["gene_id"]: int((origin == g).sum()) for g, m in enumerate(rnaseq["models"])}
    files["reads samples.tsv"] = _table(
        [["sample", "condition"], *((read_map[s], c) for s, c in zip(rnaseq["samples"], rnaseq["conditions"]))], "\t"
    )
    files["genome (copy).fa"] = rnaseq["files"]["genome.fa"]
    files["genes (copy).gtf"] = rnaseq["files"]["genes.gtf"]
    truth = {
        "class": "hostile",
        "purpose": "file and sample names with spaces, quotes, $(...), backticks and ';': an emitted workflow "
                   "must treat them as data; no file named like a canary may ever appear",
        "canaries": _HOSTILE_CANARIES,
        "bulk": {"counts": counts_name, "samples": samples_name,
                 "sample_names": dict(zip(bulk["samples"], names)), "same_data_as": "bulk_de"},
        "reads": {"samples": "reads samples.tsv", "sample_names": read_map, "read_pairs_per_sample": n_keep,
                  "same_data_as": "rnaseq_fastq (first 250 pairs of each sample)",
                  "genome": "genome (copy).fa", "annotation": "genes (copy).gtf", "true_counts": true_counts},
    }
    files["truth.json"] = _json(truth)
    return {"files": files, "truth": truth}


# --------------------------------------------------------------------------- AnnData without anndata

# The AnnData on-disk format (anndata's "anndata" 0.1.0 encoding, as anndata 0.8-0.12 write it),
# written with h5py, a dependency of bioplan, so a plain `pip install bioplan` generates the
# single-cell example (and `bioplan eval` its cases) without anndata. anndata and scanpy read it.

def _h5_attrs(obj, encoding_type: str, version: str, **more) -> None:
    obj.attrs["encoding-type"] = encoding_type
    obj.attrs["encoding-version"] = version
    for key, value in more.items():
        obj.attrs[key] = value


def _h5_strings(group, name: str, values) -> None:
    import h5py

    ds = group.create_dataset(name, data=np.array(list(values), dtype=object), dtype=h5py.string_dtype("utf-8"))
    _h5_attrs(ds, "string-array", "0.2.0")


def _write_h5ad(path: Path, counts: np.ndarray, obs_names, groups, categories, var_names, gene_ids) -> None:
    """cells x genes `counts` as a CSR matrix in X; obs: index and a categorical `sample`; var: index
    and `gene_ids`; empty uns, obsm, varm, obsp, varp, layers."""
    import h5py

    rows, cols = np.nonzero(counts)  # row-major order: the CSR order
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=counts.shape[0]))]).astype(np.int32)
    with h5py.File(path, "w") as f:
        _h5_attrs(f, "anndata", "0.1.0")
        x = f.create_group("X")
        _h5_attrs(x, "csr_matrix", "0.1.0", shape=np.array(counts.shape, dtype=np.int64))
        x.create_dataset("data", data=counts[rows, cols].astype(np.float32), maxshape=(None,))
        x.create_dataset("indices", data=cols.astype(np.int32), maxshape=(None,))
        x.create_dataset("indptr", data=indptr, maxshape=(None,))
        obs = f.create_group("obs")
        _h5_attrs(obs, "dataframe", "0.2.0", _index="_index", **{"column-order": np.array(["sample"], dtype=object)})
        _h5_strings(obs, "_index", obs_names)
        sample = obs.create_group("sample")
        _h5_attrs(sample, "categorical", "0.2.0", ordered=np.bool_(False))
        _h5_strings(sample, "categories", categories)
        codes = sample.create_dataset("codes", data=np.array([list(categories).index(g) for g in groups],
                                                             dtype=np.int8))
        _h5_attrs(codes, "array", "0.2.0")
        var = f.create_group("var")
        _h5_attrs(var, "dataframe", "0.2.0", _index="_index", **{"column-order": np.array(["gene_ids"], dtype=object)})
        _h5_strings(var, "_index", var_names)
        _h5_strings(var, "gene_ids", gene_ids)
        for name in ("layers", "obsm", "obsp", "uns", "varm", "varp"):
            _h5_attrs(f.create_group(name), "dict", "0.1.0")


# --------------------------------------------------------------------------- driver


def _write(outdir: Path, rel: str, content) -> Path:
    path = outdir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if callable(content):
        content(path)
    else:
        path.write_bytes(content)
    return path


def generate(outdir: Path, only: Iterable[str] | None = None) -> dict:
    """Write the data of the selected classes (default: all) under `outdir`/<class>/.

    Returns {class: {"dir": Path, "files": [Path, ...], "truth": dict}}.
    """
    outdir = Path(outdir)
    selected = list(CLASSES) if not only else [c for c in CLASSES if c in set(only)]
    unknown = set(only or ()) - set(CLASSES)
    if unknown:
        raise ValueError(f"unknown class(es): {', '.join(sorted(unknown))}; choose from {', '.join(CLASSES)}")
    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            if name == "reference":
                cache[name] = _build_reference()
            elif name == "bulk_de":
                cache[name] = _build_bulk_de()
            elif name == "rnaseq_fastq":
                cache[name] = _build_rnaseq(get("reference"))
            elif name == "variants":
                cache[name] = _build_variants(get("reference"))
            elif name == "single_cell":
                cache[name] = _build_single_cell()
            elif name == "metagenomics":
                cache[name] = _build_metagenomics()
            elif name == "hostile":
                cache[name] = _build_hostile(get("bulk_de"), get("rnaseq_fastq"))
        return cache[name]

    result = {}
    for cls in selected:
        built = get(cls)
        cdir = outdir / cls
        written = [_write(cdir, rel, content) for rel, content in sorted(built["files"].items())]
        result[cls] = {"dir": cdir, "files": written, "truth": built["truth"]}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path, help="directory to write <class>/ sub-directories into")
    parser.add_argument("--only", nargs="+", action="extend", choices=CLASSES, metavar="CLASS",
                        help=f"generate only these classes ({', '.join(CLASSES)})")
    args = parser.parse_args(argv)
    result = generate(args.outdir, args.only)
    for cls, info in result.items():
        size = sum(p.stat().st_size for p in info["files"])
        print(f"{cls:13s} {len(info['files']):3d} files {size / 1024:8.1f} KiB  {info['dir']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
