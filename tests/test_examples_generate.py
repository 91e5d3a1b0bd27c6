"""examples/generate.py: byte-identical synthetic data whose planted signals match truth.json.

The data feed the README's examples, golden-file tests and end-to-end runs of real tools, so
these tests check what those tools rely on: mates pair up, GTF and GFF3 describe the same genes,
CDS start with ATG and end with a stop, the VCF is sorted and matches the genome, and every
planted signal in truth.json is really in the data.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from conftest import _generated_examples, _run_dir

# numpy imported by the tests that compute with it, not at collection (~0.16 CPU-s in every worker); the
# module is skipped without it, as pytest.importorskip did
if importlib.util.find_spec("numpy") is None:
    pytest.skip("could not import 'numpy'", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GENERATE = EXAMPLES / "generate.py"
STOPS = {"TAA", "TAG", "TGA"}
COMP = str.maketrans("ACGTN", "TGCAN")


def revcomp(s: str) -> str:
    return s.translate(COMP)[::-1]


CODONS = {
    a + b + c: aa
    for (a, b, c), aa in zip(
        ((a, b, c) for a in "TCAG" for b in "TCAG" for c in "TCAG"),
        "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG",
    )
}


def translate(s: str) -> str:
    return "".join(CODONS[s[i : i + 3]] for i in range(0, len(s) - 2, 3))


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def gen():
    spec = importlib.util.spec_from_file_location("bioplan_examples_generate", GENERATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# single_cell writes an .h5ad; whether anndata is installed, without importing it at collection (a
# second of CPU in each xdist worker of the fast tier, whose tests here may not need it)
HAVE_ANNDATA = importlib.util.find_spec("anndata") is not None


def selected(gen) -> list[str]:
    return [c for c in gen.CLASSES if HAVE_ANNDATA or c != "single_cell"]


@pytest.fixture(scope="session")
def data(gen, tmp_path_factory) -> Path:
    """What the generator writes: the run's examples, which conftest's `workspace` has the same
    generator write once per run (every class, the same call; generating them again here cost each
    run 2 CPU-s), read only; without anndata, the classes it can write, generated here."""
    if HAVE_ANNDATA:
        return _generated_examples(_run_dir(tmp_path_factory))
    out = tmp_path_factory.mktemp("examples_data")
    gen.generate(out, only=selected(gen))
    return out


def truth(data: Path, cls: str) -> dict:
    return json.loads((data / cls / "truth.json").read_text())


def files_under(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def read_fasta(path: Path) -> dict[str, str]:
    seqs, name = {}, None
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            seqs[name] = []
        else:
            seqs[name].append(line)
    return {k: "".join(v) for k, v in seqs.items()}


def read_fastq(path: Path) -> list[tuple[str, str, str, str]]:
    lines = gzip.decompress(path.read_bytes()).decode().split("\n")
    assert lines[-1] == "" and (len(lines) - 1) % 4 == 0, path
    return [tuple(lines[i : i + 4]) for i in range(0, len(lines) - 1, 4)]


def check_pair(r1: Path, r2: Path, read_len: int) -> list:
    a, b = read_fastq(r1), read_fastq(r2)
    assert len(a) == len(b) > 0
    for (h1, s1, p1, q1), (h2, s2, p2, q2) in zip(a, b):
        assert h1.startswith("@") and h2.startswith("@")
        id1, c1 = h1[1:].split(" ")
        id2, c2 = h2[1:].split(" ")
        assert id1 == id2, (id1, id2)
        assert c1.startswith("1:N:0:") and c2.startswith("2:N:0:")
        assert p1 == p2 == "+"
        assert len(s1) == len(q1) == len(s2) == len(q2) == read_len
        assert set(s1 + s2) <= set("ACGTN")
        assert all(35 <= ord(ch) <= 74 for ch in q1 + q2)  # Phred+33, Q2..Q41
    assert len({r[0].split(" ")[0] for r in a}) == len(a), "read ids must be unique"
    return a


def kmer_index(seqs: dict[str, str], k: int) -> dict[str, set]:
    index: dict[str, set] = defaultdict(set)
    for name, s in seqs.items():
        for strand in (s, revcomp(s)):
            for i in range(len(strand) - k + 1):
                index[strand[i : i + k]].add(name)
    return index


# --------------------------------------------------------------------------- determinism


def test_generation_is_byte_identical(gen, data, tmp_path):
    gen.generate(tmp_path, only=selected(gen))
    first, second = files_under(data), files_under(tmp_path)
    assert first.keys() == second.keys()
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"not byte-identical across runs: {differ}"


def test_only_gives_the_same_bytes_as_a_full_run(gen, data, tmp_path):
    result = gen.generate(tmp_path, only=["variants", "hostile"])
    assert sorted(result) == ["hostile", "variants"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile", "variants"]
    for cls in ("variants", "hostile"):
        assert files_under(tmp_path / cls) == files_under(data / cls)
    with pytest.raises(ValueError):
        gen.generate(tmp_path, only=["no_such_class"])


def test_gzip_members_carry_no_name_and_no_time(data):
    for path in data.rglob("*.gz"):
        head = path.read_bytes()[:10]
        assert head[:3] == b"\x1f\x8b\x08"
        assert head[3] == 0, f"{path}: FNAME or other flags set"
        assert head[4:8] == b"\0\0\0\0", f"{path}: mtime set"


def test_cli_writes_one_class(tmp_path):
    proc = subprocess.run([sys.executable, str(GENERATE), str(tmp_path), "--only", "bulk_de"],
                          capture_output=True, text=True, check=True)
    assert "bulk_de" in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bulk_de"]
    assert (tmp_path / "bulk_de" / "counts.csv").is_file()


def test_outdir_is_small(data):
    total = sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
    assert total < 10 * 1024 * 1024


# --------------------------------------------------------------------------- bulk_de


def test_bulk_de_counts_and_planted_de(data):
    import numpy as np

    d, t = data / "bulk_de", truth(data, "bulk_de")
    rows = list(csv.reader((d / "counts.csv").open()))
    header, body = rows[0], rows[1:]
    assert header == ["gene_id", "ctrl_1", "ctrl_2", "ctrl_3", "treated_1", "treated_2", "treated_3"]
    assert len(body) == t["n_genes"] == 600
    ids = [r[0] for r in body]
    assert all(re.fullmatch(r"ENSMUSG\d{11}", g) for g in ids) and len(set(ids)) == 600
    counts = np.array([[int(x) for x in r[1:]] for r in body])
    assert counts.min() >= 0
    samples = list(csv.reader((d / "samples.tsv").open(), delimiter="\t"))
    assert samples[0] == ["sample", "condition"]
    assert {s: c for s, c in samples[1:]} == t["samples"]

    # median-of-ratios normalisation, then per-gene log2 fold change treated/control
    expressed = (counts > 0).all(axis=1)
    logc = np.log(counts[expressed])
    sf = np.exp(np.median(logc - logc.mean(axis=1, keepdims=True), axis=0))
    norm = counts / sf
    lfc = np.log2((norm[:, 3:].mean(axis=1) + 1) / (norm[:, :3].mean(axis=1) + 1))
    row = {g: i for i, g in enumerate(ids)}
    up = [row[g["ensembl_gene_id"]] for g in t["de_up"]]
    down = [row[g["ensembl_gene_id"]] for g in t["de_down"]]
    assert len(up) == len(down) == 20
    assert all(abs(g["true_log2fc"]) >= 2 for g in t["de_up"] + t["de_down"])
    assert lfc[up].min() > 1.0 and lfc[down].max() < -1.0
    rest = np.setdiff1d(np.arange(600), up + down)
    assert abs(np.median(lfc[rest])) < 0.2


def test_bulk_de_mapping_and_gene_sets(data):
    d, t = data / "bulk_de", truth(data, "bulk_de")
    mapping = list(csv.reader((d / "id_mapping.tsv").open(), delimiter="\t"))
    assert mapping[0] == ["ensembl_gene_id", "entrez_id", "symbol"]
    ens = [r[0] for r in mapping[1:]]
    entrez = {r[1] for r in mapping[1:]}
    symbols = {r[2] for r in mapping[1:]}
    counts_ids = [r[0] for r in csv.reader((d / "counts.csv").open())][1:]
    assert ens == counts_ids
    assert len(entrez) == len(symbols) == 600 and all(e.isdigit() for e in entrez)

    def gmt(name):
        sets = {}
        for line in (d / name).read_text().splitlines():
            fields = line.split("\t")
            assert len(fields) >= 3 and fields[0] not in sets
            sets[fields[0]] = fields[2:]
        return sets

    kegg, go, both, go_sym = (gmt(n) for n in ("gene_sets_kegg.gmt", "gene_sets_go.gmt", "gene_sets.gmt",
                                               "gene_sets_go.symbols.gmt"))
    assert both == {**kegg, **go}
    assert all(n.startswith("KEGG_") for n in kegg) and all(n.startswith("GOBP_") for n in go)
    for sets, universe in ((both, entrez), (go_sym, symbols)):
        assert all(set(genes) <= universe for genes in sets.values())
    assert go_sym.keys() == go.keys()
    sym_of = {r[1]: r[2] for r in mapping[1:]}
    assert all([sym_of[e] for e in go[n]] == go_sym[n] for n in go)

    up = {str(g["entrez_id"]) for g in t["de_up"]}
    down = {str(g["entrez_id"]) for g in t["de_down"]}
    assert len(set(kegg["KEGG_PLANTED_UP_PATHWAY"]) & up) == 15
    assert len(set(go["GOBP_PLANTED_UP_PROCESS"]) & up) == 10
    assert len(set(go["GOBP_PLANTED_DOWN_PROCESS"]) & down) == 12
    for name, info in t["planted_sets"].items():
        assert {str(x) for x in info["planted_de_members_entrez"]} == set(both[name]) & (up | down)
    decoys = [n for n in both if n not in t["planted_sets"]]
    assert len(decoys) >= 20
    assert all(not set(both[n]) & (up | down) for n in decoys)
    assert t["gene_set_files"]["gene_sets_go.symbols.gmt"]["namespace"] == "symbol"


# --------------------------------------------------------------------------- reference (rnaseq_fastq, variants)


def parse_attrs_gtf(s: str) -> dict:
    return dict(re.findall(r'(\S+) "([^"]*)";', s))


def parse_attrs_gff(s: str) -> dict:
    return dict(kv.split("=", 1) for kv in s.split(";"))


def load_gtf(path: Path) -> dict:
    tx: dict = defaultdict(lambda: defaultdict(list))
    genes = {}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        c, _src, feat, s, e, _sc, strand, frame, attr = line.split("\t")
        a = parse_attrs_gtf(attr)
        if feat == "gene":
            genes[a["gene_id"]] = (c, int(s), int(e), strand, a["gene_name"])
        else:
            assert a["gene_id"] in genes, "gene line must come first"
            tx[a["transcript_id"]][feat].append((int(s), int(e), frame))
            tx[a["transcript_id"]]["gene"] = a["gene_id"]
    return {"genes": genes, "tx": tx}


def load_gff3(path: Path) -> dict:
    lines = path.read_text().splitlines()
    assert lines[0] == "##gff-version 3"
    genes, tx_parent, tx = {}, {}, defaultdict(lambda: defaultdict(list))
    for line in lines:
        if line.startswith("#"):
            continue
        c, _src, feat, s, e, _sc, strand, phase, attr = line.split("\t")
        a = parse_attrs_gff(attr)
        if feat == "gene":
            assert a["ID"].startswith("gene:") and a["biotype"] == "protein_coding"
            genes[a["ID"][5:]] = (c, int(s), int(e), strand, a["Name"])
        elif feat == "mRNA":
            assert a["ID"].startswith("transcript:") and a["Parent"].startswith("gene:")
            tx_parent[a["ID"][11:]] = a["Parent"][5:]
        else:
            assert a["Parent"].startswith("transcript:")
            tx[a["Parent"][11:]][feat].append((int(s), int(e), phase))
    return {"genes": genes, "tx": tx, "parent": tx_parent}


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s == out[-1][1] + 1:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def spliced(genome: dict, contig: str, strand: str, segs) -> str:
    seq = "".join(genome[contig][s - 1 : e] for s, e in sorted(segs))
    return seq if strand == "+" else revcomp(seq)


def expected_phases(segs, strand):
    ordered = sorted(segs, reverse=strand == "-")
    out, done = [], 0
    for s, e in ordered:
        out.append(((s, e), str((3 - done % 3) % 3)))
        done += e - s + 1
    return dict(out)


@pytest.mark.parametrize("cls", ["rnaseq_fastq", "variants"])
def test_gtf_and_gff3_agree_and_cds_are_well_formed(data, cls):
    d = data / cls
    genome = read_fasta(d / "genome.fa")
    assert set(genome) == {"chr1", "chr2"} and 15_000 <= sum(map(len, genome.values())) <= 25_000
    gc = sum(s.count("G") + s.count("C") for s in genome.values()) / sum(map(len, genome.values()))
    assert 0.38 <= gc <= 0.50
    gtf, gff = load_gtf(d / "genes.gtf"), load_gff3(d / "genes.gff3")
    assert gtf["genes"] == gff["genes"]
    assert 8 <= len(gtf["genes"]) <= 10
    assert {g[3] for g in gtf["genes"].values()} == {"+", "-"}
    assert all(re.fullmatch(r"ENSMUSG\d{11}", g) for g in gtf["genes"])
    assert set(gtf["tx"]) == set(gff["tx"]) == set(gff["parent"])
    for tid, f in gff["tx"].items():
        assert re.fullmatch(r"ENSMUST\d{11}", tid)
        gid = gff["parent"][tid]
        assert gtf["tx"][tid]["gene"] == gid
        contig, gstart, gend, strand, _name = gff["genes"][gid]
        exons = sorted((s, e) for s, e, _ in f["exon"])
        assert exons == sorted((s, e) for s, e, _ in gtf["tx"][tid]["exon"])
        assert 2 <= len(exons) <= 4 and exons[0][0] == gstart and exons[-1][1] == gend
        for (_s1, e1), (s2, _e2) in zip(exons, exons[1:]):  # GT..AG introns on the transcript strand
            intron = spliced(genome, contig, strand, [(e1 + 1, s2 - 1)])
            assert intron[:2] == "GT" and intron[-2:] == "AG"
        # GFF3 CDS (with stop) == GTF CDS + stop_codon; phases right in both files
        cds_gff = [(s, e) for s, e, _ in f["CDS"]]
        gtf_t = gtf["tx"][tid]
        assert merge(cds_gff) == merge([(s, e) for s, e, _ in gtf_t["CDS"] + gtf_t["stop_codon"]])
        phases = expected_phases(cds_gff, strand)
        assert {(s, e): p for s, e, p in f["CDS"]} == phases
        assert {(s, e): p for s, e, p in gtf_t["CDS"]} == expected_phases([(s, e) for s, e, _ in gtf_t["CDS"]], strand)
        cds = spliced(genome, contig, strand, cds_gff)
        assert len(cds) % 3 == 0
        assert cds[:3] == "ATG" and cds[-3:] in STOPS and "*" not in translate(cds[:-3])
        assert spliced(genome, contig, strand, [(s, e) for s, e, _ in gtf_t["start_codon"]]) == "ATG"
        assert spliced(genome, contig, strand, [(s, e) for s, e, _ in gtf_t["stop_codon"]]) in STOPS
        # exons = 5'UTR + CDS + 3'UTR
        parts = cds_gff + [(s, e) for s, e, _ in f["five_prime_UTR"] + f["three_prime_UTR"]]
        assert merge(parts) == merge(exons)
        if cls == "rnaseq_fastq":
            mrna = read_fasta(d / "transcripts.fa")[tid]
            assert mrna == spliced(genome, contig, strand, exons)
            assert cds in mrna


def test_variants_reference_is_the_rnaseq_reference(data):
    for name in ("genome.fa", "genes.gtf", "genes.gff3"):
        assert (data / "variants" / name).read_bytes() == (data / "rnaseq_fastq" / name).read_bytes()


# --------------------------------------------------------------------------- rnaseq_fastq


def test_rnaseq_reads_pair_up_and_match_true_counts(data):
    import numpy as np

    d, t = data / "rnaseq_fastq", truth(data, "rnaseq_fastq")
    tx = read_fasta(d / "transcripts.fa")
    gene_of = {g["transcript_id"]: g["gene_id"] for g in t["genes"]}
    index = kmer_index(tx, 25)
    samples = list(csv.reader((d / "samples.tsv").open(), delimiter="\t"))
    assert {s: c for s, c in samples[1:]} == t["samples"]
    assert sorted(Counter(t["samples"].values()).values()) == [2, 2]
    n_bases = bases = 0
    for sample in t["samples"]:
        pairs = check_pair(d / "reads" / f"{sample}_R1.fastq.gz", d / "reads" / f"{sample}_R2.fastq.gz", 75)
        assert len(pairs) == t["read_pairs_per_sample"]
        assert sum(t["true_counts"][sample].values()) == len(pairs)
        se = read_fastq(d / "reads_se" / f"{sample}.fastq.gz")
        assert [r[1] for r in se] == [r[1] for r in pairs]
        found: Counter = Counter()
        for _h, seq, _p, _q in pairs:
            hits = index.get(seq[:25], set())
            if len(hits) == 1:
                found[gene_of[next(iter(hits))]] += 1
        assert sum(found.values()) >= 0.9 * len(pairs)
        for gid, n in t["true_counts"][sample].items():
            assert found[gid] <= n and found[gid] >= 0.85 * n - 3, (sample, gid, found[gid], n)
        calls = "".join(seq for _h, seq, _p, _q in pairs)
        n_bases += calls.count("N")
        bases += len(calls)
    assert 0 < n_bases / bases < 0.01
    # planted fold changes, as a count ratio after dividing out the unchanged genes
    planted = t["planted_fold_changes"]
    assert sorted(v["log2fc"] for v in planted.values()) == [-2.0, 2.0]
    ctrl = [s for s, c in t["samples"].items() if c == "control"]
    trt = [s for s, c in t["samples"].items() if c == "treated"]
    unchanged = [g for g in t["true_counts"][ctrl[0]] if g not in planted and g not in t["not_expressed"]]

    def level(samples, gene):
        return np.mean([t["true_counts"][s][gene] / sum(t["true_counts"][s][u] for u in unchanged) for s in samples])

    for gid, info in planted.items():
        observed = np.log2(level(trt, gid) / level(ctrl, gid))
        assert abs(observed - info["log2fc"]) < 0.6, (gid, observed)
    assert all(t["true_counts"][s][t["not_expressed"][0]] == 0 for s in t["samples"])


def test_rnaseq_reads_carry_a_small_error_rate(data):
    d = data / "rnaseq_fastq"
    tx = read_fasta(d / "transcripts.fa")
    index = kmer_index(tx, 25)
    seqs = {n: (s, revcomp(s)) for n, s in tx.items()}
    mismatches = compared = 0
    for _h, seq, _p, _q in read_fastq(d / "reads" / "ctrl_1_R1.fastq.gz")[:500]:
        hits = index.get(seq[:25])
        if not hits or len(hits) != 1:
            continue
        name = next(iter(hits))
        for strand in seqs[name]:
            pos = strand.find(seq[:25])
            if pos >= 0 and pos + 75 <= len(strand):
                ref = strand[pos : pos + 75]
                mismatches += sum(a != b for a, b in zip(seq, ref))
                compared += 75
                break
    assert compared > 20_000
    assert 0.0002 < mismatches / compared < 0.02


# --------------------------------------------------------------------------- variants


def test_vcf_is_sorted_valid_and_matches_truth(data):
    d, t = data / "variants", truth(data, "variants")
    genome = read_fasta(d / "genome.fa")
    lines = (d / "calls.vcf").read_text().splitlines()
    assert lines[0] == "##fileformat=VCFv4.2"
    meta = [x for x in lines if x.startswith("##")]
    contigs = dict(re.findall(r"##contig=<ID=([^,>]+),length=(\d+)>", "\n".join(meta)))
    assert {c: int(n) for c, n in contigs.items()} == {c: len(s) for c, s in genome.items()}
    declared = set(re.findall(r"##(?:INFO|FORMAT)=<ID=([^,]+),", "\n".join(meta)))
    header = next(x for x in lines if x.startswith("#CHROM"))
    assert header.split("\t") == ["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO", "FORMAT",
                                  *t["samples"]]
    records = [x.split("\t") for x in lines if not x.startswith("#")]
    assert len(records) == t["n_variants"] == len(t["variants"])
    order = list(contigs)
    keys = [(order.index(r[0]), int(r[1])) for r in records]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    per_sample = Counter()
    for r, v in zip(records, t["variants"]):
        chrom, pos, _id, ref, alt, qual, _filt, info, fmt, *gts = r
        pos = int(pos)
        assert (chrom, pos, ref, alt) == (v["chrom"], v["pos"], v["ref"], v["alt"])
        assert genome[chrom][pos - 1 : pos - 1 + len(ref)] == ref
        assert re.fullmatch("[ACGT]+", alt) and alt != ref
        if len(ref) != len(alt):  # anchored and left-aligned: cannot shift one base to the left
            assert ref[0] == alt[0] and ref[-1] != alt[-1]
        assert {kv.split("=")[0] for kv in info.split(";")} <= declared
        assert set(fmt.split(":")) <= declared and fmt.split(":")[0] == "GT"
        ac = 0
        for s, g in zip(t["samples"], gts):
            gt = g.split(":")[0]
            assert re.fullmatch(r"[01]/[01]", gt)
            assert gt == v["genotypes"][s]
            per_sample[s] += gt != "0/0"
            ac += gt.count("1")
        assert f"AC={ac}" in info.split(";") and ac > 0
        assert (float(qual) < 20) == v["low_quality"]
    assert dict(per_sample) == t["non_ref_genotypes_per_sample"]
    assert t["n_snps"] == 15 and t["n_indels"] == 2 and t["n_low_quality"] == 2


def test_variant_regions_and_consequences_follow_the_annotation(data):
    d, t = data / "variants", truth(data, "variants")
    genome = read_fasta(d / "genome.fa")
    gff = load_gff3(d / "genes.gff3")
    regions = Counter()
    for v in t["variants"]:
        chrom, pos = v["chrom"], v["pos"]
        effective = pos + 1 if v["type"] == "INDEL" else pos  # VCF indels carry an anchor base
        in_cds = in_exon = in_gene = None
        for tid, f in gff["tx"].items():
            gid = gff["parent"][tid]
            c, gs, ge, strand, _ = gff["genes"][gid]
            if c != chrom or not gs <= effective <= ge:
                continue
            in_gene = gid
            in_exon = any(s <= effective <= e for s, e, _ in f["exon"])
            if any(s <= effective <= e for s, e, _ in f["CDS"]):
                in_cds = (tid, gid, strand, sorted((s, e) for s, e, _ in f["CDS"]))
        region = ("CDS" if in_cds else "UTR" if in_exon else "intron") if in_gene else "intergenic"
        expected = "UTR" if v["region"].endswith("UTR") else v["region"]
        assert region == expected, v
        assert v["hits_cds"] == bool(in_cds)
        assert v["gene_id"] == in_gene
        regions[v["region"]] += 1
        if in_cds and v["type"] == "SNP":
            _tid, _gid, strand, segs = in_cds
            cds = spliced(genome, chrom, strand, segs)
            genomic = [p for s, e in segs for p in range(s, e + 1)]
            if strand == "-":
                genomic = genomic[::-1]
            i = genomic.index(pos)
            alt = v["alt"] if strand == "+" else revcomp(v["alt"])
            mutated = cds[:i] + alt + cds[i + 1 :]
            a0, a1 = translate(cds)[i // 3], translate(mutated)[i // 3]
            kind = "stop_gained" if a1 == "*" else "synonymous_variant" if a0 == a1 else "missense_variant"
            assert kind == v["so_term"], v
        if in_cds and v["type"] == "INDEL":
            assert (len(v["alt"]) - len(v["ref"])) % 3 != 0 and v["so_term"] == "frameshift_variant"
    assert regions["CDS"] == t["n_cds"] == 7
    assert regions["intergenic"] >= 3 and regions["intron"] >= 2
    assert {v["so_term"] for v in t["variants"]} >= {"synonymous_variant", "missense_variant", "stop_gained",
                                                     "frameshift_variant", "5_prime_UTR_variant",
                                                     "3_prime_UTR_variant", "intron_variant"}


# --------------------------------------------------------------------------- single_cell


def test_single_cell_h5ad_has_planted_types(data):
    import numpy as np

    ad = pytest.importorskip("anndata")
    d, t = data / "single_cell", truth(data, "single_cell")
    adata = ad.read_h5ad(d / "pbmc_tiny.h5ad")
    assert adata.shape == (300, 250)
    X = adata.X.toarray() if hasattr(adata.X, "toarray") else np.asarray(adata.X)
    assert X.min() >= 0 and np.array_equal(X, np.round(X))
    assert "sample" in adata.obs.columns and adata.obs["sample"].nunique() == 2
    assert adata.obs_names.is_unique and adata.var_names.is_unique
    genes = list(adata.var_names)
    assert sum(g.startswith("MT-") for g in genes) == 13
    labels = np.array([t["cell_type_of"][c] for c in adata.obs_names])
    assert Counter(labels) == Counter(t["cell_types"]) and len(t["cell_types"]) == 3
    for cell_type, markers in t["markers"].items():
        assert len(markers) == 12
        idx = [genes.index(g) for g in markers]
        inside, outside = X[labels == cell_type][:, idx].mean(), X[labels != cell_type][:, idx].mean()
        assert inside > 10 * outside, (cell_type, inside, outside)
    mt = [genes.index(g) for g in t["mt_genes"]]
    frac = X[:, mt].sum(axis=1) / X.sum(axis=1)
    high = np.isin(adata.obs_names, t["high_mt_cells"])
    assert high.sum() == len(t["high_mt_cells"]) > 0
    assert frac[high].min() > 0.2 and frac[~high].max() < 0.1

    def gmt(name):
        return {ln.split("\t")[0]: ln.split("\t")[2:] for ln in (d / name).read_text().splitlines()}

    markers_gmt, sets = gmt("cell_markers.gmt"), gmt("gene_sets.gmt")
    assert markers_gmt == t["markers"]
    for name, cell_type in t["planted_sets"].items():
        assert len(set(sets[name]) & set(t["markers"][cell_type])) >= 10
    assert all(set(g) <= set(genes) for g in sets.values())


# --------------------------------------------------------------------------- metagenomics


def test_taxonomy_dump_is_a_consistent_tree(data):
    d, t = data / "metagenomics", truth(data, "metagenomics")
    nodes, names = {}, defaultdict(list)
    for line in (d / "taxonomy" / "nodes.dmp").read_text().splitlines():
        assert line.endswith("\t|")
        fields = line[:-2].split("\t|\t")
        assert len(fields) == 13
        nodes[int(fields[0])] = (int(fields[1]), fields[2])
    for line in (d / "taxonomy" / "names.dmp").read_text().splitlines():
        assert line.endswith("\t|")
        taxid, name, _unique, kind = line[:-2].split("\t|\t")
        if kind == "scientific name":
            names[int(taxid)].append(name)
    assert nodes[1] == (1, "no rank") and nodes[2][0] == 1
    assert set(names) == set(nodes) and all(len(v) == 1 for v in names.values())
    for taxid in nodes:
        seen, node = set(), taxid
        while node != 1:
            assert node not in seen and nodes[node][0] in nodes
            seen.add(node)
            node = nodes[node][0]
    headers = [ln[1:] for ln in (d / "genomes.fa").read_text().splitlines() if ln.startswith(">")]
    assert len(headers) == 4
    for h in headers:
        m = re.fullmatch(r"seq\d+\|kraken:taxid\|(\d+)( .*)?", h)
        assert m and nodes[int(m.group(1))][1] == "species"
    assert {str(k) for k in nodes} == set(t["taxonomy"])


def test_metagenomic_reads_and_planted_abundance(data):
    import numpy as np

    d, t = data / "metagenomics", truth(data, "metagenomics")
    genomes = {k.split("|")[2]: v for k, v in read_fasta(d / "genomes.fa").items()}
    genomes["host"] = next(iter(read_fasta(d / "host.fa").values()))
    assert all(7_000 <= len(s) <= 9_000 for k, s in genomes.items() if k != "host")
    index = kmer_index(genomes, 31)
    rows = list(csv.reader((d / "samples.tsv").open(), delimiter="\t"))
    assert rows[0] == ["sample", "group"] and {s: g for s, g in rows[1:]} == t["samples"]
    assert Counter(t["samples"].values()) == {"A": 3, "B": 3}
    for sample in t["samples"]:
        pairs = check_pair(d / "reads" / f"{sample}_R1.fastq.gz", d / "reads" / f"{sample}_R2.fastq.gz",
                           t["read_length"])
        true = t["true_read_pairs"][sample]
        assert sum(true.values()) == len(pairs) and true["host"] > 0
        found = Counter()
        for _h, seq, _p, _q in pairs:
            hits = index.get(seq[:31], set())
            if len(hits) == 1:
                found[next(iter(hits))] += 1
        for key, n in true.items():
            assert found[key] <= n and found[key] >= 0.75 * n - 3, (sample, key, found[key], n)
    planted = str(t["planted"]["taxid"])
    rel = t["true_relative_abundance"]
    a = np.mean([rel[s][planted] for s, g in t["samples"].items() if g == "A"])
    b = np.mean([rel[s][planted] for s, g in t["samples"].items() if g == "B"])
    assert t["planted"]["expected_fold_change"] == 8.0 and 5.0 < b / a < 12.0
    assert abs(t["planted"]["observed_fold_change"] - b / a) < 1e-2


# --------------------------------------------------------------------------- hostile


def test_hostile_names_are_data(data):
    d, t = data / "hostile", truth(data, "hostile")
    counts = d / t["bulk"]["counts"]
    samples = d / t["bulk"]["samples"]
    assert ";touch INJECTED" in counts.name and ";" in samples.name
    header = next(csv.reader(counts.open()))
    assert header[1:] == list(t["bulk"]["sample_names"].values())
    rows = list(csv.reader(samples.open(), delimiter="\t"))
    assert [r[0] for r in rows[1:]] == header[1:]
    joined = "".join(header)
    for needle in (" ", '"', "'", "$(", ";", "`"):
        assert needle in joined
    # same numbers as bulk_de
    bulk = list(csv.reader((data / "bulk_de" / "counts.csv").open()))
    assert [r[1:] for r in csv.reader(counts.open())][1:] == [r[1:] for r in bulk[1:]]
    for name in t["reads"]["sample_names"].values():
        pairs = check_pair(d / "reads" / f"{name}_R1.fastq.gz", d / "reads" / f"{name}_R2.fastq.gz", 75)
        assert len(pairs) == t["reads"]["read_pairs_per_sample"] == sum(t["reads"]["true_counts"][name].values())
    for extra in (t["reads"]["genome"], t["reads"]["annotation"], t["reads"]["samples"]):
        assert (d / extra).is_file()
    assert not [p for p in data.rglob("*") if p.name in t["canaries"]]


# --------------------------------------------------------------------------- examples/<class>/


@pytest.mark.parametrize("cls", ["bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics", "hostile"])
def test_example_directory_matches_generated_data(data, cls):
    if not (data / cls).is_dir():
        pytest.skip(f"{cls} not generated (anndata missing)")
    ex = EXAMPLES / cls
    for name in ("request.txt", "request.zh.txt", "inputs.txt", "README.md"):
        assert (ex / name).is_file(), f"examples/{cls}/{name} missing"
    request = (ex / "request.txt").read_text().strip()
    assert request and "\n" not in request
    assert re.search(r"[\u4e00-\u9fff]", (ex / "request.zh.txt").read_text())
    inputs = [ln for ln in (ex / "inputs.txt").read_text().splitlines() if ln]
    assert inputs and len(set(inputs)) == len(inputs)
    for rel in inputs:
        assert (data / cls / rel).exists(), f"examples/{cls}/inputs.txt names a path generate.py does not write: {rel}"
    readme = (ex / "README.md").read_text()
    assert "examples/generate.py" in readme and "bioplan compile" in readme
