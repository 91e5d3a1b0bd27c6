"""Tests of the sniff stage (DataType Recognition Index): every input is generated in tmp_path."""

from __future__ import annotations

import bz2
import gzip
import os
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bioplan.errors import AmbiguousInputError, UnreadableInputError
from bioplan.models import InputProfile, SniffedFile
from bioplan.request.sniff import sniff_file, sniff_inputs
from conftest import examples

PREFIXES = {
    "ENSMUSG": "organism_mouse",
    "ENSG": "organism_human",
    "ENSRNOG": "organism_rat",
    "ENSDARG": "organism_zebrafish",
    "FBgn": "organism_fly",
}

# --------------------------------------------------------------------------- helpers


def write(path: Path, text: str | bytes, gz: bool = False) -> str:
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return str(path)


def bgzf(data: bytes) -> bytes:
    """BGZF (blocked gzip with the 'BC' extra field), as bgzip/samtools write it."""
    out = b""
    for i in range(0, max(len(data), 1), 60000):
        chunk = data[i : i + 60000]
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        comp = c.compress(chunk) + c.flush()
        out += (
            b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff"
            + struct.pack("<H", 6)
            + b"BC"
            + struct.pack("<HH", 2, 25 + len(comp))
            + comp
            + struct.pack("<II", zlib.crc32(chunk), len(chunk))
        )
    return out + bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")


def fastq(ids: list[str], seq: str = "ACGTACGTAC", qual_char: str = "I") -> str:
    return "".join(f"@{i}\n{seq}\n+\n{qual_char * len(seq)}\n" for i in ids)


def one(path: str) -> SniffedFile:
    profile = sniff_inputs([path], PREFIXES)
    assert isinstance(profile, InputProfile) and len(profile.files) == 1
    return profile.files[0]


def evidence(f: SniffedFile) -> str:
    return " | ".join(f.evidence) + " | " + " | ".join(x.evidence for x in f.facts)


def counts_tsv(
    ids: list[str], samples: list[str], values: list[list[object]], sep: str = "\t", first: str = "gene_id"
) -> str:
    lines = [sep.join([first] + samples)]
    lines += [sep.join([i] + [str(v) for v in row]) for i, row in zip(ids, values)]
    return "\n".join(lines) + "\n"


MOUSE = [f"ENSMUSG{n:011d}" for n in range(1, 7)]

# --------------------------------------------------------------------------- FASTQ


@pytest.mark.parametrize("gz", [False, True])
def test_fastq_plain_and_gz(tmp_path, gz):
    p = write(tmp_path / ("reads.fastq.gz" if gz else "reads.fq"), fastq(["r1", "r2", "r3"]), gz=gz)
    f = one(p)
    assert (f.datatype, f.format) == ("raw_reads", "fastq.gz" if gz else "fastq")
    assert f.fact("read_length") == 10
    assert f.fact("quality_encoding") == "phred33"
    assert f.sample == "reads" and f.mate is None


@pytest.mark.parametrize(
    "r1, r2, sample",
    [
        ("ctrl_R1.fastq.gz", "ctrl_R2.fastq.gz", "ctrl"),
        ("ctrl_1.fq.gz", "ctrl_2.fq.gz", "ctrl"),
        ("ctrl.1.fastq", "ctrl.2.fastq", "ctrl"),
        ("ctrl_S1_L001_R1_001.fastq.gz", "ctrl_S1_L001_R2_001.fastq.gz", "ctrl"),
    ],
)
def test_paired_mates_from_names(tmp_path, r1, r2, sample):
    p1 = write(tmp_path / r1, fastq(["a", "b"]), gz=r1.endswith(".gz"))
    p2 = write(tmp_path / r2, fastq(["a", "b"]), gz=r2.endswith(".gz"))
    profile = sniff_inputs([p1, p2], PREFIXES)
    assert [(f.sample, f.mate) for f in profile.files] == [(sample, 1), (sample, 2)]
    assert not [w for w in profile.warnings if "mate" in w]


def test_mates_from_read_ids(tmp_path):
    p1 = write(tmp_path / "left.fq", fastq(["r1/1", "r2/1"]))
    p2 = write(tmp_path / "right.fq", fastq(["M001:1:FC:1:1101:5:7 2:N:0:1", "M001:1:FC:1:1101:5:8 2:N:0:1"]))
    f1, f2 = sniff_inputs([p1, p2], PREFIXES).files
    assert (f1.mate, f2.mate) == (1, 2)
    assert "first read id @r1/1" in evidence(f1)


def test_mate_evidence_reads_like_a_sentence(tmp_path):
    p = write(tmp_path / "ctrl 1_R1.fastq.gz", fastq(["r1/1", "r2/1"]), gz=True)
    f = one(p)
    assert (f.sample, f.mate) == ("ctrl 1", 1)
    assert "mate 1 of sample 'ctrl 1': name ends _R1, first read id @r1/1" in f.evidence


def test_weak_suffix_without_partner_is_single_end(tmp_path):
    f = one(write(tmp_path / "liver_1.fastq", fastq(["a", "b"])))
    assert (f.sample, f.mate) == ("liver_1", None)
    assert "single-end" in evidence(f)


def test_single_end_replicates_named_1_and_2_are_two_samples(tmp_path):
    # ctrl_1/ctrl_2 single-end runs: every read id says read 1 (Casava '1:N'), so the _2 file is a
    # replicate number, and ctrl_1 has no mate 2 either: two single-end samples, no mate warnings
    ids1 = ["SYN:1:FC:1:1101:1000:24053 1:N:0:ATCACG", "SYN:1:FC:1:1101:1000:24054 1:N:0:ATCACG"]
    ids2 = ["SYN:2:FC:1:1101:1000:14122 1:N:0:CGATGT", "SYN:2:FC:1:1101:1000:14123 1:N:0:CGATGT"]
    profile = sniff_inputs([write(tmp_path / "ctrl_1.fastq.gz", fastq(ids1), gz=True),
                            write(tmp_path / "ctrl_2.fastq.gz", fastq(ids2), gz=True)], PREFIXES)
    assert [(f.sample, f.mate) for f in profile.files] == [("ctrl_1", None), ("ctrl_2", None)]
    assert not profile.warnings


def test_strong_mate_without_partner_warns(tmp_path):
    profile = sniff_inputs([write(tmp_path / "x_R1.fq", fastq(["a"]))], PREFIXES)
    assert profile.files[0].mate == 1
    assert any("mate 1 given" in w and "no mate 2" in w for w in profile.warnings)


def test_name_and_read_id_disagree_is_ambiguous(tmp_path):
    p = write(tmp_path / "s_R1.fastq", fastq(["r1/2", "r2/2"]))
    with pytest.raises(AmbiguousInputError) as e:
        sniff_inputs([p], PREFIXES)
    assert "s_R1.fastq" in e.value.message and "mate 1" in e.value.message and "mate 2" in e.value.message
    assert e.value.hints


def test_interleaved_fastq(tmp_path):
    f = one(write(tmp_path / "inter.fq", fastq(["a/1", "a/2", "b/1", "b/2"])))
    assert f.fact("interleaved") is True and f.mate is None


def test_lanes_of_one_sample_are_said_to_be_merged(tmp_path):
    paths = [write(tmp_path / f"s_S1_L00{lane}_R{m}_001.fastq", fastq(["a"])) for lane in (1, 2) for m in (1, 2)]
    profile = sniff_inputs(paths, PREFIXES)
    assert {f.sample for f in profile.files} == {"s"}
    assert [f.fact("lane") for f in profile.files] == ["L001", "L001", "L002", "L002"]
    assert ("sample 's': 2 lanes (L001, L002), concatenated per mate before the sample's first step, or, where "
            "variants are called, aligned lane by lane (a read group each) and merged") in profile.warnings


def test_sample_from_directory_when_file_is_just_r1(tmp_path):
    d = tmp_path / "liver"
    d.mkdir()
    p1, p2 = (write(d / f"R{m}.fastq.gz", fastq(["a"]), gz=True) for m in (1, 2))
    f1, f2 = sniff_inputs([p1, p2], PREFIXES).files
    assert (f1.sample, f1.mate, f2.sample, f2.mate) == ("liver", 1, "liver", 2)
    assert "in directory 'liver'" in evidence(f1)


def test_phred64(tmp_path):
    f = one(write(tmp_path / "old.fq", fastq(["a"], qual_char="h")))
    assert f.fact("quality_encoding") == "phred64"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("@a\nACGT\n+\nIII\n", "4 bases but 3 quality characters"),
        ("@a\nACGT\n+\nIIII\n@b\nACGT\n", "record 2"),
        ("@a\nACGT\nIIII\nIIII\n", "'+' separator"),
        ("@a\nAC GT!\n+\nIIIIII\n", "not bases"),
    ],
)
def test_malformed_fastq(tmp_path, text, fragment):
    p = write(tmp_path / "bad.fastq", text)
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([p], PREFIXES)
    assert e.value.message.startswith(f"{p}: not a valid FASTQ file")
    assert fragment in e.value.message
    assert e.value.code == "unreadable_input"


def test_fastq_reads_only_the_first_records(tmp_path):
    # 1000 good records then garbage: the sniffer stops before the garbage (large files are not read whole)
    p = write(tmp_path / "big.fastq", fastq([f"r{i}" for i in range(1000)]) + "garbage\n" * 10)
    assert one(p).datatype == "raw_reads"


# --------------------------------------------------------------------------- FASTA


@pytest.mark.parametrize("gz", [False, True])
def test_fasta_genome(tmp_path, gz):
    text = ">chr1\n" + "ACGT" * 30 + "\n>chr2 some description\n" + "ACGTN" * 10 + "\n>chrM\nAC\n"
    f = one(write(tmp_path / ("genome.fa.gz" if gz else "genome.fa"), text, gz=gz))
    assert (f.datatype, f.format) == ("reference_genome", "fasta.gz" if gz else "fasta")
    assert f.fact("n_sequences") == 3 and f.fact("total_length") == 120 + 50 + 2


def test_fasta_ensembl_primary_assembly_headers(tmp_path):
    text = ">1 dna:chromosome chromosome:GRCm39:1:1:195154279:1 REF\nACGT\n>X dna:chromosome\nAC\n"
    assert one(write(tmp_path / "Mus_musculus.GRCm39.dna.fa", text)).datatype == "reference_genome"


def test_fasta_transcriptome_with_organism(tmp_path):
    text = "".join(
        f">ENSMUST{n:011d}.1 cdna chromosome:GRCm39:1:1:10:1 gene:ENSMUSG{n:011d}.1\nACGTACGT\n" for n in range(1, 8)
    )
    f = one(write(tmp_path / "tx.fa", text))
    assert f.datatype == "transcriptome"
    assert f.fact("organism") == "organism_mouse"
    assert "ENSMUSG (mouse" in evidence(f)


def test_fasta_gencode_transcriptome(tmp_path):
    text = ">ENST00000456328.2|ENSG00000290825.1|-|-|DDX11L2-202|DDX11L2|1657|lncRNA|\nACGT\n" * 3
    f = one(write(tmp_path / "gencode.transcripts.fa", text))
    assert f.datatype == "transcriptome" and f.fact("organism") == "organism_human"


def test_fasta_kraken_reference_sequences(tmp_path):
    text = ">seq1|kraken:taxid|562\nACGT\n>seq2|kraken:taxid|1280\nACGT\n"
    f = one(write(tmp_path / "library.fna", text))
    assert f.datatype == "reference_sequences" and f.fact("taxids") == ["562", "1280"]


def test_fasta_several_species_is_reference_sequences(tmp_path):
    text = (
        ">NC_000913.3 Escherichia coli str. K-12 substr. MG1655, complete genome\nACGT\n"
        ">NC_007795.1 Staphylococcus aureus subsp. aureus NCTC 8325 chromosome, complete genome\nACGT\n"
    )
    assert one(write(tmp_path / "genomes.fa", text)).datatype == "reference_sequences"


def test_fasta_undecidable_is_ambiguous(tmp_path):
    with pytest.raises(AmbiguousInputError) as e:
        sniff_inputs([write(tmp_path / "seqs.fa", ">seq1\nACGT\n>seq2\nACGT\n")], PREFIXES)
    assert "seqs.fa" in e.value.message and any("--input-type" in h for h in e.value.hints)


def test_fasta_protein_is_reference_proteins(tmp_path):
    """Protein sequences are what a DIAMOND database is built from (issue 18), whatever the extension."""
    f = one(write(tmp_path / "p.fa", ">p\nMKLVFFAEDVGSNKGAIIGLMVGGVVIA\n"))
    assert (f.datatype, f.format) == ("protein_reference_sequences", "faa")
    assert "amino-acid alphabet" in evidence(f) and f.fact("n_sequences") == 1
    gz = one(write(tmp_path / "uniref.faa.gz", ">q\nMSDNQLKEFAEKLGIRVEQLRQWLEENR\n", gz=True))
    assert (gz.datatype, gz.format) == ("protein_reference_sequences", "fasta.gz")
    nucleotides = one(write(tmp_path / "genome.fa", ">chr1\n" + "ACGTTGCANN" * 20 + "\n"))
    assert nucleotides.datatype == "reference_genome"


def test_fasta_bad_characters(tmp_path):
    with pytest.raises(UnreadableInputError, match=r"line 3 holds characters"):
        sniff_inputs([write(tmp_path / "x.fa", ">chr1\nACGT\nAC12\n")], PREFIXES)


# --------------------------------------------------------------------------- GTF / GFF3

GTF = "#!genome-build GRCm39\n" + "".join(
    f'{c}\tensembl\tgene\t{100 * n}\t{100 * n + 50}\t.\t+\t.\tgene_id "ENSMUSG{n:011d}"; gene_name "G{n}";\n'
    for n, c in enumerate(["1", "1", "2", "X"], 1)
)


@pytest.mark.parametrize("gz", [False, True])
def test_gtf(tmp_path, gz):
    f = one(write(tmp_path / ("genes.gtf.gz" if gz else "genes.gtf"), GTF, gz=gz))
    assert (f.datatype, f.format) == ("gene_annotation", "gtf")
    assert f.fact("organism") == "organism_mouse"
    assert f.fact("seqids") == ["1", "2", "X"]
    assert f.fact("compressed") is (True if gz else None)


def test_gff3(tmp_path):
    text = (
        "##gff-version 3\n"
        "chr1\tensembl\tgene\t1\t100\t.\t+\t.\tID=gene:ENSDARG00000000001;Name=abc\n"
        "chr1\tensembl\tmRNA\t1\t100\t.\t+\t.\tID=transcript:ENSDART00000000001;Parent=gene:ENSDARG00000000001\n"
    )
    f = one(write(tmp_path / "genes.gff3", text))
    assert (f.datatype, f.format) == ("gene_annotation", "gff3")
    assert f.fact("organism") == "organism_zebrafish"


def test_gff_with_unknown_attributes_is_refused(tmp_path):
    with pytest.raises(UnreadableInputError, match="neither GTF"):
        sniff_inputs([write(tmp_path / "a.gtf", "chr1\tx\tgene\t1\t10\t.\t+\t.\tsomething\n")], PREFIXES)


# --------------------------------------------------------------------------- VCF / BCF

VCF_HEADER = (
    "##fileformat=VCFv4.2\n##contig=<ID=chr1>\n"
    '##INFO=<ID=DP,Number=1,Type=Integer,Description="depth">\n{extra}'
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tNA12878\tNA12891\n"
)
VCF_RECORDS = "".join(f"chr1\t{100 + i}\t.\tA\tG\t50\tPASS\tDP=10\tGT\t0/1\t1/1\n" for i in range(3))


@pytest.mark.parametrize("compress, fmt", [(None, "vcf"), ("bgzf", "vcf.gz"), ("gzip", "vcf.gz")])
def test_vcf(tmp_path, compress, fmt):
    text = (VCF_HEADER.format(extra="") + VCF_RECORDS).encode()
    data = bgzf(text) if compress == "bgzf" else gzip.compress(text) if compress == "gzip" else text
    path = write(tmp_path / ("calls.vcf.gz" if compress else "calls.vcf"), data)
    profile = sniff_inputs([path], PREFIXES)
    f = profile.files[0]
    assert (f.datatype, f.format) == ("variant_calls", fmt)
    assert f.fact("samples") == ["NA12878", "NA12891"] and f.fact("n_variants_seen") == 3
    if compress:
        assert f.fact("bgzipped") is (compress == "bgzf")
        assert any("bgzip" in w for w in profile.warnings) is (compress == "gzip")


@pytest.mark.parametrize("key", ["ANN", "CSQ", "BCSQ"])
def test_annotated_vcf(tmp_path, key):
    extra = f'##INFO=<ID={key},Number=.,Type=String,Description="consequences">\n'
    f = one(write(tmp_path / "ann.vcf", VCF_HEADER.format(extra=extra) + VCF_RECORDS))
    assert f.datatype == "annotated_variants" and key in evidence(f)


def test_bcf(tmp_path):
    text = VCF_HEADER.format(extra='##INFO=<ID=CSQ,Number=.,Type=String,Description="c">\n').encode() + b"\x00"
    records = b"".join(struct.pack("<II", 4, 2) + b"\x00" * 6 for _ in range(5))
    path = write(tmp_path / "calls.bcf", bgzf(b"BCF\x02\x02" + struct.pack("<I", len(text)) + text + records))
    f = one(path)
    assert (f.datatype, f.format) == ("annotated_variants", "bcf")
    assert f.fact("samples") == ["NA12878", "NA12891"] and f.fact("n_variants_seen") == 5


def test_vcf_without_chrom_line(tmp_path):
    with pytest.raises(UnreadableInputError, match="no #CHROM header line"):
        sniff_inputs([write(tmp_path / "x.vcf", "##fileformat=VCFv4.2\nchr1\t1\t.\tA\tG\t.\t.\t.\n")], PREFIXES)


# --------------------------------------------------------------------------- BAM / SAM / CRAM

SAM_HEADER = "@HD\tVN:1.6\tSO:{so}\n@SQ\tSN:chr1\tLN:1000\n@RG\tID:rg1\tSM:liver 1\n@RG\tID:rg2\tSM:liver 1\n"


def bam_bytes(header: str) -> bytes:
    text = header.encode()
    return bgzf(b"BAM\x01" + struct.pack("<i", len(text)) + text + struct.pack("<i", 0))


def _itf8(v: int) -> bytes:
    return bytes([v]) if v < 0x80 else bytes([0x80 | (v >> 8), v & 0xFF])


def cram_bytes(header: str) -> bytes:
    text = header.encode()
    block_data = struct.pack("<i", len(text)) + text
    block = b"\x00\x00" + _itf8(0) + _itf8(len(block_data)) + _itf8(len(block_data)) + block_data + b"\x00" * 4
    # ref id, start, span, n records (itf8); record counter, bases (ltf8); 1 block; 0 landmarks; crc32
    container = b"\x00" * 4 + b"\x00" * 2 + b"\x01" + b"\x00" + b"\x00" * 4
    return b"CRAM\x03\x00" + b"\x00" * 20 + struct.pack("<i", len(block)) + container + block


@pytest.mark.parametrize("kind", ["bam", "sam", "cram"])
def test_alignments(tmp_path, kind):
    header = SAM_HEADER.format(so="coordinate")
    data = {
        "bam": bam_bytes(header),
        "cram": cram_bytes(header),
        "sam": (header + "r1\t0\tchr1\t10\t60\t4M\t*\t0\t0\tACGT\tIIII\n").encode(),
    }[kind]
    f = one(write(tmp_path / f"liver.{kind}", data))
    assert (f.datatype, f.format) == ("aligned_reads", kind)
    assert f.fact("sorted") is True and f.fact("samples") == ["liver 1"]
    assert f.sample == "liver 1"


def test_unsorted_bam(tmp_path):
    f = one(write(tmp_path / "x.bam", bam_bytes(SAM_HEADER.format(so="queryname"))))
    assert f.fact("sorted") is False and f.fact("sort_order") == "queryname"


def test_truncated_bam(tmp_path):
    data = bam_bytes(SAM_HEADER.format(so="coordinate"))
    with pytest.raises(UnreadableInputError, match="x.bam"):
        sniff_inputs([write(tmp_path / "x.bam", data[:30])], PREFIXES)


# --------------------------------------------------------------------------- h5ad


def write_h5ad(path: Path, X, sparse: bool = False, clusters: bool = False) -> str:
    import h5py
    import numpy as np

    X = np.asarray(X)
    with h5py.File(path, "w") as f:
        f.attrs["encoding-type"] = "anndata"
        for name, index in (
            ("obs", [f"cell{i}" for i in range(X.shape[0])]),
            ("var", [f"ENSMUSG{i:011d}" for i in range(X.shape[1])]),
        ):
            g = f.create_group(name)
            g.attrs["_index"] = "_index"
            g.attrs["encoding-type"] = "dataframe"
            g.create_dataset("_index", data=np.array(index, dtype="S"))
        if clusters:
            c = f["obs"].create_group("leiden")
            c.attrs["encoding-type"] = "categorical"
            c.create_dataset("categories", data=np.array(["0", "1"], dtype="S"))
            c.create_dataset("codes", data=np.arange(X.shape[0]) % 2)
        if sparse:
            rows, cols = np.nonzero(X)
            g = f.create_group("X")
            g.attrs["encoding-type"] = "csr_matrix"
            g.attrs["shape"] = np.array(X.shape)
            g.create_dataset("data", data=X[rows, cols])
            g.create_dataset("indices", data=cols)
            g.create_dataset("indptr", data=np.concatenate([[0], np.cumsum(np.count_nonzero(X, axis=1))]))
        else:
            f.create_dataset("X", data=X)
    return str(path)


def test_h5ad_raw_counts(tmp_path):
    import numpy as np

    f = one(write_h5ad(tmp_path / "pbmc.h5ad", np.arange(12, dtype="float32").reshape(4, 3)))
    assert (f.datatype, f.format) == ("single_cell_matrix", "h5ad")
    assert (f.fact("n_cells"), f.fact("n_genes"), f.fact("integer_counts")) == (4, 3, True)
    assert f.fact("organism") == "organism_mouse"


def test_h5ad_normalized_sparse(tmp_path):
    import numpy as np

    X = np.log1p(np.arange(12, dtype="float32").reshape(4, 3))
    f = one(write_h5ad(tmp_path / "norm.h5ad", X, sparse=True))
    assert f.datatype == "normalized_single_cell_matrix" and f.fact("integer_counts") is False


def test_h5ad_clustered(tmp_path):
    import numpy as np

    f = one(write_h5ad(tmp_path / "clu.h5ad", np.ones((4, 3)) / 3, sparse=True, clusters=True))
    # earlier clusters are a fact about the file, not its datatype: the values say what the data is
    assert f.datatype == "normalized_single_cell_matrix" and "leiden" in evidence(f)
    assert f.fact("cluster_columns") == ["leiden"] and f.fact("x_state") == "log_normalized"


def test_hdf5_that_is_not_anndata(tmp_path):
    import h5py

    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("stuff", data=[1, 2, 3])
    with pytest.raises(UnreadableInputError, match="without the AnnData groups"):
        sniff_inputs([str(path)], PREFIXES)


# --------------------------------------------------------------------------- count matrices


def test_raw_counts_mouse(tmp_path):
    values = [[10, "12.0", 0, 5, 7, 1]] * 6
    samples = ["ctrl_1", "ctrl_2", "ctrl_3", "trt_1", "trt_2", "trt_3"]
    f = one(write(tmp_path / "counts.tsv", counts_tsv(MOUSE, samples, values)))
    assert (f.datatype, f.format) == ("raw_count_matrix", "tsv")
    assert f.fact("integer_counts") is True
    assert f.fact("id_namespace") == "ensembl" and f.fact("organism") == "organism_mouse"
    assert (f.fact("n_genes"), f.fact("n_samples"), f.fact("sample_names")) == (6, 6, samples)
    assert "integer values in all 6 numeric columns" in f.evidence
    assert any("ENSMUSG (mouse" in e for e in f.evidence)


def test_normalized_counts_csv(tmp_path):
    text = counts_tsv(["ACTB", "GAPDH", "TP53"], ["a", "b"], [[1.5, 2], [3, 4], [5, 6]], sep=",", first="gene")
    f = one(write(tmp_path / "tpm.csv", text))
    assert (f.datatype, f.format) == ("normalized_count_matrix", "csv")
    assert f.fact("integer_counts") is False and f.fact("id_namespace") == "symbol"
    assert f.fact("organism") is None
    assert "1.5" in evidence(f)


def test_negative_values_are_normalized(tmp_path):
    f = one(write(tmp_path / "vst.tsv", counts_tsv(MOUSE[:2], ["a", "b"], [[-1, 2], [3, 4]])))
    assert f.datatype == "normalized_count_matrix" and "negative" in evidence(f)


def test_entrez_ids_and_gz_csv(tmp_path):
    text = counts_tsv(["7157", "672", "1956"], ["s1", "s2"], [[1, 2], [3, 4], [5, 6]], sep=",", first="entrez")
    f = one(write(tmp_path / "counts.csv.gz", text, gz=True))
    assert (f.datatype, f.format) == ("raw_count_matrix", "csv")
    assert f.fact("id_namespace") == "entrez" and f.fact("compressed") is True


def test_r_style_header_without_rowname_cell(tmp_path):
    text = '"s1"\t"s2"\n' + "".join(f'"{g}"\t{i}\t{i + 1}\n' for i, g in enumerate(MOUSE))
    f = one(write(tmp_path / "counts.txt", text))
    assert f.datatype == "raw_count_matrix" and f.fact("sample_names") == ["s1", "s2"]


def test_annotation_columns_are_not_samples(tmp_path):
    text = "gene_id\tgene_name\tbiotype\ts1\ts2\n" + "".join(
        f"{g}\tG{i}\tprotein_coding\t{i}\t3\n" for i, g in enumerate(MOUSE)
    )
    f = one(write(tmp_path / "counts.tsv", text))
    assert f.datatype == "raw_count_matrix" and f.fact("sample_names") == ["s1", "s2"]
    assert f.fact("annotation_columns") == ["gene_name", "biotype"]


def test_featurecounts(tmp_path):
    text = (
        '# Program:featureCounts v2.0.6; Command:"featureCounts" "-a" "genes.gtf"\n'
        "Geneid\tChr\tStart\tEnd\tStrand\tLength\taln/a.bam\taln/b.bam\n"
        + "".join(f"{g}\t1;1\t1;50\t20;90\t+;+\t60\t{i}\t{i * 2}\n" for i, g in enumerate(MOUSE))
    )
    f = one(write(tmp_path / "counts.txt", text))
    assert (f.datatype, f.format) == ("raw_count_matrix", "tsv")
    assert f.fact("featurecounts") is True and f.fact("sample_names") == ["aln/a.bam", "aln/b.bam"]
    assert f.fact("organism") == "organism_mouse"


def test_transposed_matrix_is_refused(tmp_path):
    text = "sample\t" + "\t".join(MOUSE) + "\n" + "".join(f"s{i}\t" + "\t".join(["1"] * 6) + "\n" for i in range(3))
    with pytest.raises(UnreadableInputError, match="genes are columns") as e:
        sniff_inputs([write(tmp_path / "t.tsv", text)], PREFIXES)
    assert any("transpose" in h for h in e.value.hints)


@pytest.mark.parametrize(
    "header, quantifier",
    [
        ("Name\tLength\tEffectiveLength\tTPM\tNumReads", "salmon"),
        ("target_id\tlength\teff_length\test_counts\ttpm", "kallisto"),
    ],
)
def test_transcript_quantification(tmp_path, header, quantifier):
    text = header + "\n" + "".join(f"ENST{n:011d}\t1000\t850.5\t12.3\t40.0\n" for n in range(4))
    f = one(write(tmp_path / "quant.sf", text))
    assert (f.datatype, f.fact("quantifier")) == ("transcript_quantification", quantifier)


def test_de_table(tmp_path):
    text = "gene\tbaseMean\tlog2FoldChange\tlfcSE\tpvalue\tpadj\n" + "".join(
        f"{g}\t100.5\t{i - 2.5}\t0.3\t0.01\t0.05\n" for i, g in enumerate(MOUSE)
    )
    assert one(write(tmp_path / "res.tsv", text)).datatype == "differential_expression_table"


@settings(max_examples=examples(30), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    matrix=st.integers(1, 12).flatmap(
        lambda n_samples: st.lists(
            st.lists(st.integers(0, 10**9), min_size=n_samples, max_size=n_samples), min_size=1, max_size=25
        )
    ),
    where=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
    fraction=st.sampled_from([0.5, 0.25, 0.1, 0.333]),
)
def test_property_integer_matrix_is_raw_and_one_fraction_flips_it(tmp_path, matrix, where, fraction):
    n_samples = len(matrix[0])
    ids = [f"ENSG{n:011d}" for n in range(len(matrix))]
    samples = [f"sample_{j}" for j in range(n_samples)]
    f = one(write(tmp_path / "m.tsv", counts_tsv(ids, samples, matrix)))
    assert f.datatype == "raw_count_matrix" and f.fact("integer_counts") is True
    assert f.fact("n_genes") == len(matrix) and f.fact("sample_names") == samples
    assert f.fact("organism") == "organism_human"
    i, j = where[0] % len(matrix), where[1] % n_samples
    changed = [list(row) for row in matrix]
    changed[i][j] = changed[i][j] + fraction
    g = one(write(tmp_path / "m.tsv", counts_tsv(ids, samples, changed)))
    assert g.datatype == "normalized_count_matrix" and g.fact("integer_counts") is False


# --------------------------------------------------------------------------- sample sheets


def test_sample_sheet_replicates(tmp_path):
    text = (
        "sample\tcondition\tbatch\n"
        "c1\tcontrol\tb1\nc2\tcontrol\tb2\nc3\tcontrol\tb1\n"
        "k1\tknockout\tb2\nk2\tknockout\tb1\nh1\thet\tb2\n"
    )
    profile = sniff_inputs([write(tmp_path / "samples.tsv", text)], PREFIXES)
    f = profile.files[0]
    assert (f.datatype, f.format) == ("sample_metadata", "tsv")
    assert f.fact("samples") == ["c1", "c2", "c3", "k1", "k2", "h1"]
    assert f.fact("condition_column") == "condition"
    assert f.fact("replicates") == {"control": 3, "knockout": 2, "het": 1}
    assert f.fact("min_replicates") == 1
    assert any("'het'" in w and "fewer than 2" in w for w in profile.warnings)


def test_sample_sheet_condition_from_the_only_categorical_column(tmp_path):
    text = "name,diet\nm1,chow\nm2,chow\nm3,hfd\nm4,hfd\n"
    f = one(write(tmp_path / "meta.csv", text))
    assert (f.datatype, f.format) == ("sample_metadata", "csv")
    assert f.fact("condition_column") == "diet" and f.fact("replicates") == {"chow": 2, "hfd": 2}


def test_sample_sheet_with_numeric_covariates(tmp_path):
    text = "sample\tage\tweight\tbmi\tcondition\n" + "".join(
        f"s{i}\t{30 + i}\t{70 + i}\t{22.5 + i}\t{'ctrl' if i < 3 else 'case'}\n" for i in range(6)
    )
    f = one(write(tmp_path / "coldata.tsv", text))
    assert f.datatype == "sample_metadata" and f.fact("min_replicates") == 3


def test_sheet_with_numeric_ids_is_not_a_bed_file(tmp_path):
    text = "id\tage\tweight\tgroup\n1\t30\t70\ta\n2\t31\t71\ta\n3\t32\t72\tb\n4\t33\t73\tb\n"
    f = one(write(tmp_path / "meta.tsv", text))
    assert f.datatype == "sample_metadata" and f.fact("samples") == ["1", "2", "3", "4"]
    assert f.fact("condition_column") == "group"


def test_nfcore_sample_sheet_fastq_columns(tmp_path):
    text = (
        "sample,fastq_1,fastq_2,strandedness\n"
        "A,data/a_R1.fastq.gz,data/a_R2.fastq.gz,auto\nB,data/b_R1.fastq.gz,data/b_R2.fastq.gz,auto\n"
    )
    f = one(write(tmp_path / "samplesheet.csv", text))
    assert f.datatype == "sample_metadata"
    assert f.fact("fastq_columns") == ["fastq_1", "fastq_2"] and f.fact("condition_column") is None


def test_table_between_counts_and_sheet_is_ambiguous(tmp_path):
    with pytest.raises(AmbiguousInputError) as e:
        sniff_inputs([write(tmp_path / "t.tsv", "x\ty\tz\na\tfoo\t1\nb\tbar\t2\nc\tbaz\t3\n")], PREFIXES)
    assert "t.tsv" in e.value.message and "sample sheet" in e.value.message
    assert any("--input-type" in h for h in e.value.hints)


def test_sheet_matches_featurecounts_bam_columns(tmp_path):
    text = "Geneid\tChr\tStart\tEnd\tStrand\tLength\taln/a.sorted.bam\taln/b.bam\n" + "".join(
        f"{g}\t1\t1\t20\t+\t20\t{i}\t{i * 2}\n" for i, g in enumerate(MOUSE)
    )
    counts = write(tmp_path / "fc.txt", text)
    sheet = write(tmp_path / "s.tsv", "sample\tcondition\na\tx\nb\ty\n")
    assert not [w for w in sniff_inputs([counts, sheet], PREFIXES).warnings if "not columns" in w or "not list" in w]


def test_sheet_and_matrix_disagree(tmp_path):
    counts = write(tmp_path / "c.tsv", counts_tsv(MOUSE[:2], ["a", "b"], [[1, 2], [3, 4]]))
    sheet = write(tmp_path / "s.tsv", "sample\tcondition\na\tx\nb\tx\nc\ty\n")
    profile = sniff_inputs([counts, sheet], PREFIXES)
    assert any("'c'" in w and "not columns of" in w for w in profile.warnings)


# --------------------------------------------------------------------------- gene lists, GMT, mapping


@pytest.mark.parametrize(
    "text, datatype, namespace, organism",
    [
        ("entrez\n7157\n672\n1956\n", "entrez_gene_list", "entrez", None),
        ("ENSRNOG00000000001\nENSRNOG00000000002\n", "ensembl_gene_list", "ensembl", "organism_rat"),
        ("FBgn0000001\nFBgn0000002\nFBgn0000003\n", "ensembl_gene_list", "ensembl", "organism_fly"),
        ("symbol\nTP53\nBRCA1\nHLA-A\nC1orf112\n", "gene_symbol_list", "symbol", None),
    ],
)
def test_gene_lists(tmp_path, text, datatype, namespace, organism):
    f = one(write(tmp_path / "genes.txt", text))
    assert (f.datatype, f.format) == (datatype, "txt")
    assert f.fact("id_namespace") == namespace and f.fact("organism") == organism


def test_gene_list_tsv_format(tmp_path):
    assert one(write(tmp_path / "genes.tsv", "TP53\nEGFR\n")).format == "tsv"
    f = one(write(tmp_path / "trailing.tsv", "TP53\t\nEGFR\t\n"))  # a trailing delimiter is no second column
    assert f.datatype == "gene_symbol_list"


def test_one_column_of_prose_is_refused(tmp_path):
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([write(tmp_path / "notes.txt", "hello there world\nthis is prose, really\n")], PREFIXES)
    assert "notes.txt" in e.value.message and any("bioplan recognises" in h for h in e.value.hints)


@pytest.mark.parametrize("name", ["sets.gmt", "sets.txt"])
def test_gmt(tmp_path, name):
    text = (
        "HALLMARK_A\thttp://x/A\tTP53\tEGFR\tMYC\n"
        "HALLMARK_B\tna\tBRCA1\n"
        "HALLMARK_C\tdesc\tKRAS\tNRAS\n"
        "HALLMARK_D\tdesc\tKRAS\tNRAS\tHRAS\tBRAF\n"
    )
    f = one(write(tmp_path / name, text))
    assert (f.datatype, f.format) == ("gene_set_library", "gmt")
    assert f.fact("n_sets") == 4 and f.fact("id_namespace") == "symbol"


def test_gene_id_mapping(tmp_path):
    text = "ensembl_gene_id\tentrezgene_id\texternal_gene_name\n" + "".join(
        f"{g}\t{1000 + i}\tGene{i}\n" for i, g in enumerate(MOUSE)
    )
    f = one(write(tmp_path / "mart.tsv", text))
    assert (f.datatype, f.format) == ("gene_id_mapping", "tsv")
    assert f.fact("namespaces") == {
        "ensembl": "ensembl_gene_id",
        "entrez": "entrezgene_id",
        "symbol": "external_gene_name",
    }
    assert f.fact("organism") == "organism_mouse"


# --------------------------------------------------------------------------- taxonomy, Kraken2


def write_taxdump(d: Path, names: bool = True) -> str:
    d.mkdir()
    write(d / "nodes.dmp", "1\t|\t1\t|\tno rank\t|\t\t|\n2\t|\t131567\t|\tsuperkingdom\t|\t\t|\n")
    if names:
        write(d / "names.dmp", "1\t|\tall\t|\t\t|\tsynonym\t|\n1\t|\troot\t|\t\t|\tscientific name\t|\n")
    return str(d)


def test_taxonomy_dump_directory_and_single_file(tmp_path):
    d = write_taxdump(tmp_path / "taxonomy")
    f = one(d)
    assert (f.datatype, f.format) == ("taxonomy_dump", "taxdump")
    profile = sniff_inputs([os.path.join(d, "nodes.dmp")], PREFIXES)
    assert profile.files[0].datatype == "taxonomy_dump"
    assert any("names.dmp" in w for w in profile.warnings)


def test_taxonomy_directory_missing_names(tmp_path):
    with pytest.raises(UnreadableInputError, match="no names.dmp"):
        sniff_inputs([write_taxdump(tmp_path / "tax", names=False)], PREFIXES)


def test_kraken2_database(tmp_path):
    d = tmp_path / "k2_standard"
    d.mkdir()
    for name in ("hash.k2d", "opts.k2d", "taxo.k2d", "database150mers.kmer_distrib"):
        write(d / name, b"\x01\x02")
    f = one(str(d))
    assert (f.datatype, f.format) == ("taxonomic_database", "kraken2_db")
    assert f.fact("bracken_read_lengths") == [150]


def test_incomplete_kraken2_database(tmp_path):
    d = tmp_path / "k2"
    d.mkdir()
    write(d / "hash.k2d", b"\x01")
    with pytest.raises(UnreadableInputError, match="lacks 'opts.k2d', 'taxo.k2d'"):
        sniff_inputs([str(d)], PREFIXES)


# --------------------------------------------------------------------------- errors


def test_missing_file(tmp_path):
    p = str(tmp_path / "nope.tsv")
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([p], PREFIXES)
    assert e.value.message == f"{p}: no such file or directory"
    assert e.value.details["path"] == p and e.value.hints


@pytest.mark.parametrize(
    "data, gz, fragment",
    [
        (b"", False, "is empty (0 bytes)"),
        (b"", True, "empty once decompressed"),
        (bytes(range(256)) * 20, False, "binary data of a type bioplan does not know"),
        (bz2.compress(b"@r\nACGT\n+\nIIII\n"), False, "bzip2-compressed"),
        (gzip.compress(b"@r\nACGT\n+\nIIII\n" * 100, mtime=0)[:25], False, "corrupt or truncated"),
    ],
)
def test_unreadable_files(tmp_path, data, gz, fragment):
    p = write(tmp_path / "input.dat", data, gz=gz)
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([p], PREFIXES)
    assert e.value.message.startswith(p + ": ") and fragment in e.value.message
    assert e.value.code == "unreadable_input"


def test_unknown_binary_hints_what_is_recognised(tmp_path):
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([write(tmp_path / "x.bin", bytes(range(256)) * 4)], PREFIXES)
    assert any("FASTQ" in h and "Kraken2" in h for h in e.value.hints)


def test_unrecognised_directory(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    write(d / "a_R1.fastq.gz", fastq(["a"]), gz=True)
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([str(d)], PREFIXES)
    assert "directory bioplan does not recognise" in e.value.message and "'a_R1.fastq.gz'" in e.value.message
    assert any("give each file" in h for h in e.value.hints)


def test_ragged_table(tmp_path):
    text = "gene\ta\tb\nG1\t1\t2\nG2\t1\nG3\t4\t5\n"
    with pytest.raises(UnreadableInputError, match=r"row 3 has 2 fields but most rows have 3"):
        sniff_inputs([write(tmp_path / "c.tsv", text)], PREFIXES)


def test_plain_bed_is_peaks_or_a_blacklist(tmp_path):
    """A BED file says nothing of what its intervals are: the readings are the knowledge's BED datatypes
    (the request or the file name settles it: tests/test_real_data.py)."""
    with pytest.raises(AmbiguousInputError, match="BED file of 2 intervals") as e:
        sniff_inputs([write(tmp_path / "x.bed", "chr1\t100\t200\nchr2\t5\t9\n")], PREFIXES)
    assert e.value.details["readings"] == ["peak_calls", "genome_blacklist"]


def test_semicolon_table_is_refused(tmp_path):
    with pytest.raises(UnreadableInputError, match="semicolon"):
        sniff_inputs([write(tmp_path / "x.csv", "gene;a;b\nG1;1;2\n")], PREFIXES)


# --------------------------------------------------------------------------- names, encodings, determinism


@pytest.mark.parametrize(
    "name",
    [
        "my counts.tsv",
        'it\'s "quoted".tsv',
        "$(rm -rf x); echo.tsv",
        "基因 计数 ü.tsv",
        "-dash.tsv",
    ],
)
def test_awkward_names(tmp_path, name):
    p = write(tmp_path / name, counts_tsv(MOUSE[:2], ["a", "b"], [[1, 2], [3, 4]]))
    f = one(p)
    assert f.path == p and f.datatype == "raw_count_matrix"
    missing = str(tmp_path / ("missing " + name))
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([missing], PREFIXES)
    assert missing in e.value.message


def test_crlf_bom_and_latin1(tmp_path):
    text = "\ufeffsample,condition\r\nsouris_\xe9,ctrl\r\nb,ctrl\r\nc,trt\r\nd,trt\r\n"
    f = one(write(tmp_path / "sheet.csv", text.encode("utf-8")))
    assert f.fact("samples")[0] == "souris_\xe9" and f.fact("condition_column") == "condition"
    g = one(write(tmp_path / "sheet1.csv", text.replace("\ufeff", "").encode("latin-1")))
    assert g.fact("samples")[0] == "souris_\xe9"


def test_deterministic_and_ordered(tmp_path):
    paths = [write(tmp_path / "b.fq", fastq(["a"])), write(tmp_path / "a.tsv", "TP53\nEGFR\n")]
    first, second = sniff_inputs(paths, PREFIXES), sniff_inputs(paths, PREFIXES)
    assert first == second and [f.path for f in first.files] == paths
    assert sniff_file(paths[0], PREFIXES) == first.files[0]


@settings(max_examples=examples(80), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.one_of(
        st.binary(min_size=1, max_size=300),
        st.lists(
            st.sampled_from(
                [
                    "@r",
                    ">",
                    "+",
                    "\n",
                    "\t",
                    ",",
                    "#",
                    "ACGT",
                    "II",
                    "chr1",
                    "7",
                    "2.5",
                    "-1",
                    "\r",
                    "ENSG00000000001",
                    'gene_id "g";',
                    "##fileformat=VCFv4.2\n",
                    "\t|\t",
                    "sample",
                    "condition",
                    '"',
                    "@HD\tSO:coordinate\n",
                    "\x00",
                    "é",
                    "NA",
                ]
            ),
            min_size=1,
            max_size=40,
        ).map(lambda parts: "".join(parts).encode()),
    ),
    gz=st.booleans(),
    name=st.sampled_from(["x.tsv", "x.csv", "x.txt", "x_R1.fastq", "x.fa", "x.gmt", "x.vcf"]),
)
def test_property_never_a_traceback(tmp_path, data, gz, name):
    path = write(tmp_path / (name + (".gz" if gz else "")), data, gz=gz)
    try:
        profile = sniff_inputs([path], PREFIXES)
    except (UnreadableInputError, AmbiguousInputError) as e:
        assert path in e.message
    else:
        assert profile.files[0].path == path


def test_empty_input_list():
    assert sniff_inputs([], PREFIXES) == InputProfile()


# --------------------------------------------------------------------------- quantifier outputs (issue 13)


def put(path: Path, text: str | bytes, gz: bool = False) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write(path, text, gz)


SALMON_QUANT = ("Name\tLength\tEffectiveLength\tTPM\tNumReads\n"
                "ENST00000456328.2\t1657\t1500.000\t10.5\t12.000\n"
                "ENST00000450305.2\t632\t480.210\t0.0\t0.000\n")


def salmon_folder(root: Path, sample: str) -> Path:
    d = root / sample
    (d / "aux_info").mkdir(parents=True)
    put(d / "quant.sf", SALMON_QUANT)
    put(d / "cmd_info.json", '{"salmon_version": "1.10.1", "libType": "A"}')
    put(d / "lib_format_counts.json", '{"expected_format": "SR"}')
    put(d / "aux_info" / "meta_info.json", '{"num_processed": 1000, "percent_mapped": 91.5}')
    return d


def test_quant_sf_files_take_the_folder_as_sample(tmp_path):
    paths = [put(tmp_path / s / "quant.sf", SALMON_QUANT) for s in ("ctrl_1", "trt_1")]
    files = sniff_inputs(paths, PREFIXES).files
    assert [(f.datatype, f.format, f.sample) for f in files] == [
        ("transcript_quantification", "salmon_quant", "ctrl_1"), ("transcript_quantification", "salmon_quant", "trt_1")]
    assert files[0].fact("quantifier") == "salmon" and files[0].fact("versioned_ids") is True
    assert files[0].fact("organism") == "organism_human"
    assert any("from the folder holding quant.sf" in e for e in files[0].evidence)


def test_same_sample_name_twice_is_an_error_naming_both(tmp_path):
    a = put(tmp_path / "run1" / "ctrl_1" / "quant.sf", SALMON_QUANT)
    b = put(tmp_path / "run2" / "ctrl_1" / "quant" / "quant.sf", SALMON_QUANT)  # generic folder 'quant' skipped
    with pytest.raises(AmbiguousInputError, match="ctrl_1") as e:
        sniff_inputs([a, b], PREFIXES)
    assert a in e.value.message and b in e.value.message


def test_salmon_output_folder_and_folder_of_folders(tmp_path):
    for s in ("ctrl_1", "ctrl_2"):
        salmon_folder(tmp_path / "salmon", s)
    (f,) = sniff_inputs([str(tmp_path / "salmon" / "ctrl_1")], PREFIXES).files
    assert (f.datatype, f.format, f.sample) == ("transcript_quantification", "salmon_quant", "ctrl_1")
    assert any("salmon 1.10.1" in e for e in f.evidence) and any("91.5% mapped" in e for e in f.evidence)
    files = sniff_inputs([str(tmp_path / "salmon")], PREFIXES).files
    assert [x.sample for x in files] == ["ctrl_1", "ctrl_2"]
    assert [x.path for x in files] == [str(tmp_path / "salmon" / s) for s in ("ctrl_1", "ctrl_2")]


def test_sailfish_comment_header(tmp_path):
    text = "# sailfish (quasi-mapping-based) v0.9.0\n# Name\tLength\tEffectiveLength\tTPM\tNumReads\n" + \
        SALMON_QUANT.split("\n", 1)[1]
    f = one(put(tmp_path / "s1" / "quant.sf", text))
    assert (f.format, f.fact("quantifier"), f.sample) == ("salmon_quant", "sailfish", "s1")


def test_kallisto_and_rsem_outputs(tmp_path):
    kal = put(tmp_path / "k1" / "abundance.tsv", "target_id\tlength\teff_length\test_counts\ttpm\n"
                "ENST00000456328.2\t1657\t1500\t12\t10.5\n")
    genes = put(tmp_path / "r1.genes.results", "gene_id\ttranscript_id(s)\tlength\teffective_length\t"
                  "expected_count\tTPM\tFPKM\nENSG00000223972\tENST00000456328\t1657\t1500\t12.00\t10.5\t9.1\n")
    iso = put(tmp_path / "r2.isoforms.results", "transcript_id\tgene_id\tlength\teffective_length\texpected_count\t"
                "TPM\tFPKM\tIsoPct\nENST00000456328\tENSG00000223972\t1657\t1500\t12.00\t10.5\t9.1\t100\n")
    k, g, i = sniff_inputs([kal, genes, iso], PREFIXES).files
    assert (k.format, k.fact("quantifier"), k.sample) == ("kallisto_quant", "kallisto", "k1")
    assert (g.format, g.fact("quant_level"), g.sample) == ("rsem_quant", "gene", "r1")
    assert (i.format, i.fact("quant_level"), i.sample) == ("rsem_quant", "transcript", "r2")


def test_kallisto_h5(tmp_path):
    import h5py
    import numpy as np

    path = tmp_path / "k2" / "abundance.h5"
    path.parent.mkdir()
    with h5py.File(path, "w") as f:
        aux = f.create_group("aux")
        aux.create_dataset("ids", data=np.array([b"ENST00000456328.2", b"ENST00000450305.2"]))
        aux.create_dataset("num_bootstrap", data=np.array([0]))
        f.create_dataset("est_counts", data=np.array([12.0, 0.0]))
    f = one(str(path))
    assert (f.datatype, f.format, f.sample) == ("transcript_quantification", "kallisto_quant", "k2")


@pytest.mark.parametrize("text", [
    "TXNAME,GENEID\nENST00000456328.2,ENSG00000223972.5\nENST00000450305.2,ENSG00000223972.5\n"
    "ENST00000488147.1,ENSG00000227232.5\n",
    "ENST00000456328\tENSG00000223972\nENST00000450305\tENSG00000223972\nENST00000488147\tENSG00000227232\n",
    "transcript_id\tgene_name\nNM_000014.6\tA2M\nNM_001347423.2\tA2M\nNM_000015.3\tNAT2\n",
])
def test_tx2gene_table_is_a_transcript_to_gene_map(tmp_path, text):
    f = one(put(tmp_path / "tx2gene.txt", text))
    assert (f.datatype, f.format) == ("transcript_gene_map", "tx2gene")
    assert (f.fact("n_transcripts"), f.fact("n_genes")) == (3, 2)


def test_tx2gene_beside_a_sample_sheet(tmp_path):
    tx = put(tmp_path / "tx2gene.csv", "TXNAME,GENEID\nENST00000456328.2,ENSG00000223972.5\n"
               "ENST00000450305.2,ENSG00000223972.5\n")
    sheet = put(tmp_path / "samples.tsv", "sample\tcondition\nctrl_1\tctrl\nctrl_2\tctrl\ntrt_1\ttrt\ntrt_2\ttrt\n")
    a, b = sniff_inputs([tx, sheet], PREFIXES).files
    assert (a.datatype, b.datatype) == ("transcript_gene_map", "sample_metadata")


# --------------------------------------------------------------------------- 10x matrices (issue 13)

def tenx_files(folder: Path, prefix: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    put(folder / f"{prefix}matrix.mtx.gz", "%%MatrixMarket matrix coordinate integer general\n%metadata_json: {}\n"
          "3 2 3\n1 1 5\n2 1 1\n3 2 7\n", gz=True)
    put(folder / f"{prefix}barcodes.tsv.gz", "AAACCTGAGAAACCAT-1\nAAACCTGAGAAACCGC-1\n", gz=True)
    put(folder / f"{prefix}features.tsv.gz", "ENSMUSG00000051951\tXkr4\tGene Expression\n"
          "ENSMUSG00000089699\tGm1992\tGene Expression\nENSMUSG00000102331\tGm19938\tGene Expression\n", gz=True)


def test_10x_mtx_folder(tmp_path):
    tenx_files(tmp_path / "filtered_feature_bc_matrix")
    f = one(str(tmp_path / "filtered_feature_bc_matrix"))
    assert (f.datatype, f.format) == ("single_cell_matrix", "mtx")
    assert (f.fact("n_cells"), f.fact("n_genes"), f.fact("organism")) == (2, 3, "organism_mouse")


def test_10x_triple_given_as_three_files(tmp_path):
    tenx_files(tmp_path / "GSM1", prefix="GSM1_")
    paths = [str(tmp_path / "GSM1" / f"GSM1_{n}") for n in ("matrix.mtx.gz", "barcodes.tsv.gz", "features.tsv.gz")]
    profile = sniff_inputs(paths, PREFIXES)
    (f,) = profile.files
    assert (f.path, f.datatype, f.format) == (paths[0], "single_cell_matrix", "mtx")
    assert sum("part of the 10x matrix" in w for w in profile.warnings) == 2


def test_10x_h5(tmp_path):
    import h5py
    import numpy as np

    path = tmp_path / "filtered_feature_bc_matrix.h5"
    with h5py.File(path, "w") as f:
        m = f.create_group("matrix")
        m.create_dataset("shape", data=np.array([3, 2]))
        m.create_dataset("data", data=np.array([5, 1, 7], dtype="int32"))
        feats = m.create_group("features")
        feats.create_dataset("id", data=np.array([b"ENSMUSG00000051951", b"ENSMUSG00000089699", b"ENSMUSG00000102331"]))
    f = one(str(path))
    assert (f.datatype, f.format, f.fact("n_cells")) == ("single_cell_matrix", "10x_h5", 2)


def test_every_content_error_says_how_to_override(tmp_path):
    with pytest.raises(UnreadableInputError) as e:
        sniff_inputs([put(tmp_path / "odd.txt", "hello world foo\nbar baz qux\n")], PREFIXES)
    assert any(f"--input-type {tmp_path / 'odd.txt'}=" in h for h in e.value.hints)


@pytest.mark.parametrize("name, datatype", [("ex1_genome.fa", "reference_genome"), ("GRCz11.dna.toplevel.fa",
                                            "reference_genome"), ("gencode_transcripts.fa", "transcriptome"),
                                            ("cdna.fa", "transcriptome")])
def test_fasta_whose_ids_do_not_tell_is_decided_by_its_name(tmp_path, name, datatype):
    f = one(put(tmp_path / name, ">a1\nACGTACGTAAACCCGGGTTT\n>a2\nACGTTTTTGGGGCCCCAAAA\n"))
    assert f.datatype == datatype and any("the file name" in e for e in f.evidence)


def test_fasta_whose_name_and_ids_do_not_tell_says_how_to_declare_it(tmp_path):
    path = put(tmp_path / "seqs.fa", ">a1\nACGTACGTAAACCCGGGTTT\n")
    with pytest.raises(AmbiguousInputError) as e:
        sniff_inputs([path], PREFIXES)
    assert any(f"--input-type {path}=reference_genome" in h for h in e.value.hints)


# --------------------------------------------------------------------------- adapter FASTA (issue 13)

# Trimmomatic's adapter files as Debian ships them (/usr/share/trimmomatic/adapters/)
TRUSEQ3_SE = (">TruSeq3_IndexedAdapter\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n"
              ">TruSeq3_UniversalAdapter\nAGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTA\n")
TRUSEQ3_PE_2 = (">PrefixPE/1\nTACACTCTTTCCCTACACGACGCTCTTCCGATCT\n>PrefixPE/2\nGTGACTGGAGTTCAGACGTGTGCTCTTCCGATCT\n"
                ">PE1\nTACACTCTTTCCCTACACGACGCTCTTCCGATCT\n>PE1_rc\nAGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTA\n"
                ">PE2\nGTGACTGGAGTTCAGACGTGTGCTCTTCCGATCT\n>PE2_rc\nAGATCGGAAGAGCACACGTCTGAACTCCAGTCAC\n")
NEXTERA_PE = (">PrefixNX/1\nAGATGTGTATAAGAGACAG\n>PrefixNX/2\nAGATGTGTATAAGAGACAG\n"
              ">Trans1\nTCGTCGGCAGCGTCAGATGTGTATAAGAGACAG\n>Trans1_rc\nCTGTCTCTTATACACATCTGACGCTGCCGACGA\n"
              ">Trans2\nGTCTCGTGGGCTCGGAGATGTGTATAAGAGACAG\n>Trans2_rc\nCTGTCTCTTATACACATCTCCGAGCCCACGAGAC\n")


@pytest.mark.parametrize("name, text, motif", [
    ("TruSeq3-SE.fa", TRUSEQ3_SE, "AGATCGGAAGAGC"),
    ("TruSeq3-PE-2.fa", TRUSEQ3_PE_2, "AGATCGGAAGAGC"),     # PrefixPE/1 holds it reverse-complemented
    ("NexteraPE-PE.fa", NEXTERA_PE, "CTGTCTCTTATACACATCT"),
    ("reads_contam.fasta", ">a\nAGATCGGAAGAGCACACGTCT\n", "AGATCGGAAGAGC"),  # the content decides, not the name
    ("small_rna.fa", ">RA3\nTGGAATTCTCGGGTGCCAAGG\n", "TGGAATTCTCGGGTGCCAAGG"),
])
def test_adapter_fasta_is_recognised_by_its_motifs(tmp_path, name, text, motif):
    f = one(write(tmp_path / name, text))
    assert (f.datatype, f.format) == ("adapter_sequences", "fasta")
    assert motif in f.fact("adapter_motifs")
    assert any("adapter sequences for trimming" in e and motif in e for e in f.evidence)


@pytest.mark.parametrize("name, text", [
    ("adapters.fa", ">a1\nACGTTGCAACGT\n>a2\nGGGTTTCCCAAA\n"),               # fastp-style custom adapters
    ("custom.fa", ">my_adapter_1\nACGTTGCAACGT\n>my_adapter_2\nGGGTTTCCCAAA\n"),  # the sequence names say it
])
def test_adapter_fasta_without_known_motifs_is_recognised_by_its_names(tmp_path, name, text):
    f = one(write(tmp_path / name, text))
    assert f.datatype == "adapter_sequences" and f.fact("adapter_motifs") == []
    assert any("named as adapters" in e for e in f.evidence)


def test_a_long_sequence_is_never_an_adapter_file_whatever_its_name(tmp_path):
    f = one(write(tmp_path / "adapters_genome.fa", ">chr1\n" + "ACGTTGCAAC" * 100 + "AGATCGGAAGAGC\n"))
    assert f.datatype == "reference_genome"


def test_short_fasta_without_adapter_clues_offers_the_adapter_reading(tmp_path):
    path = write(tmp_path / "seqs.fa", ">s1\nACGTTGCAACGT\n>s2\nGGGTTTCCCAAA\n")
    with pytest.raises(AmbiguousInputError) as e:
        sniff_inputs([path], PREFIXES)
    assert "adapter_sequences" in e.value.details["readings"]
    assert any("adapter_sequences" in h and "--input-type" in h for h in e.value.hints)


# --------------------------------------------------------------------------- annotation flavours (issue 13)

GENCODE_GTF = (
    "##description: evidence-based annotation of the human genome (GRCh38), version 44 (Ensembl 110)\n"
    "##provider: GENCODE\n##contact: gencode-help@ebi.ac.uk\n##format: gtf\n##date: 2023-03-24\n"
    'chr1\tHAVANA\tgene\t11869\t14409\t.\t+\t.\tgene_id "ENSG00000290825.1"; gene_type "lncRNA"; gene_name "DDX11L2";\n'
    'chr1\tHAVANA\tgene\t12010\t13670\t.\t+\t.\tgene_id "ENSG00000223972.6"; gene_type "pseudogene"; '
    'gene_name "DDX11L1";\n')
ENSEMBL_GTF = (
    "#!genome-build GRCm39\n#!genome-version GRCm39\n#!genome-date 2020-06\n"
    "#!genome-build-accession GCA_000001635.9\n#!genebuild-last-updated 2020-08\n"
    '1\thavana\tgene\t3143476\t3144545\t.\t+\t.\tgene_id "ENSMUSG00000102693"; gene_version "2"; '
    'gene_name "4933401J01Rik";\n'
    '1\tensembl\tgene\t3172239\t3172348\t.\t+\t.\tgene_id "ENSMUSG00000064842"; gene_version "3"; '
    'gene_name "Gm26206";\n')
REFSEQ_GFF3 = (
    "##gff-version 3\n#!gff-spec-version 1.21\n#!processor NCBI annotwriter\n#!genome-build GRCh38.p14\n"
    "#!genome-build-accession NCBI_Assembly:GCF_000001405.40\n"
    "#!annotation-source NCBI RefSeq GCF_000001405.40-RS_2023_10\n"
    "##sequence-region NC_000001.11 1 248956422\n"
    "##species https://www.ncbi.nlm.nih.gov/Taxonomy/Browser/wwwtax.cgi?id=9606\n"
    "NC_000001.11\tRefSeq\tregion\t1\t248956422\t.\t+\t.\tID=NC_000001.11:1..248956422;Dbxref=taxon:9606;Name=1\n"
    "NC_000001.11\tBestRefSeq\tgene\t11874\t14409\t.\t+\t.\tID=gene-DDX11L1;Dbxref=GeneID:100287102;Name=DDX11L1;"
    "gbkey=Gene;gene=DDX11L1\n"
    "NC_000001.11\tBestRefSeq\tgene\t14362\t29370\t.\t-\t.\tID=gene-WASH7P;Dbxref=GeneID:653635;Name=WASH7P;"
    "gbkey=Gene;gene=WASH7P\n")
REFSEQ_GTF = (
    "#gtf-version 2.2\n#!genome-build GRCh38.p14\n#!genome-build-accession NCBI_Assembly:GCF_000001405.40\n"
    "#!annotation-source NCBI RefSeq GCF_000001405.40-RS_2023_10\n"
    'NC_000001.11\tBestRefSeq\tgene\t11874\t14409\t.\t+\t.\tgene_id "DDX11L1"; transcript_id ""; '
    'db_xref "GeneID:100287102";\n'
    'NC_000001.11\tBestRefSeq\tgene\t14362\t29370\t.\t-\t.\tgene_id "WASH7P"; transcript_id ""; '
    'db_xref "GeneID:653635";\n')
UCSC_REFGENE_GTF = (
    'chr1\thg38_refGene\texon\t11874\t12227\t.\t+\t.\tgene_id "DDX11L1"; transcript_id "NR_046018";\n'
    'chr1\thg38_refGene\texon\t14362\t14829\t.\t-\t.\tgene_id "WASH7P"; transcript_id "NR_024540";\n')
ENSEMBL_GFF3 = (
    "##gff-version 3\n##sequence-region   1 1 248956422\n#!genome-build  GRCh38.p14\n"
    "1\thavana\tgene\t11869\t14409\t.\t+\t.\tID=gene:ENSG00000223972;Name=DDX11L1;biotype=pseudogene;version=5\n"
    "1\thavana\tgene\t14404\t29570\t.\t-\t.\tID=gene:ENSG00000227232;Name=WASH7P;biotype=pseudogene;version=5\n")


@pytest.mark.parametrize("name, text, fmt, provider, namespace, style", [
    ("gencode.v44.annotation.gtf", GENCODE_GTF, "gtf", "GENCODE", "ensembl", "ucsc"),
    ("Mus_musculus.GRCm39.110.gtf", ENSEMBL_GTF, "gtf", "Ensembl", "ensembl", "ensembl"),
    ("GCF_000001405.40_GRCh38.p14_genomic.gff", REFSEQ_GFF3, "gff3", "RefSeq", "symbol", "refseq"),
    ("GCF_000001405.40_GRCh38.p14_genomic.gtf", REFSEQ_GTF, "gtf", "RefSeq", "symbol", "refseq"),
    ("hg38.refGene.gtf", UCSC_REFGENE_GTF, "gtf", "UCSC", "symbol", "ucsc"),
    ("Homo_sapiens.GRCh38.110.gff3", ENSEMBL_GFF3, "gff3", "Ensembl", "ensembl", "ensembl"),
])
def test_annotation_flavour_is_a_fact_with_evidence(tmp_path, name, text, fmt, provider, namespace, style):
    f = one(write(tmp_path / name, text))
    assert (f.datatype, f.format) == ("gene_annotation", fmt)
    assert f.fact("annotation_provider") == provider
    assert f.fact("id_namespace") == namespace and f.fact("seqid_style") == style
    said = next(x.evidence for x in f.facts if x.name == "annotation_provider")
    assert said.startswith(f"{provider} annotation: ") and len(said) > len(provider) + 15


def test_gencode_ids_are_versioned_and_ensembl_ids_give_the_organism(tmp_path):
    gencode = one(write(tmp_path / "gencode.gtf", GENCODE_GTF))
    assert "versioned" in next(x.evidence for x in gencode.facts if x.name == "id_namespace")
    assert gencode.fact("organism") == "organism_human" and gencode.fact("assembly")["chr_prefixed"] is True
    ensembl = one(write(tmp_path / "ensembl.gtf", ENSEMBL_GTF))
    assert ensembl.fact("organism") == "organism_mouse"
    assert "#!genome-build GRCm39" in ensembl.fact("assembly")["texts"]


def test_refseq_gff3_gives_chr1_length_build_header_and_taxon(tmp_path):
    """What the references engineer (issue 14) reads: chr1's length from ##sequence-region, the build
    headers, and the NCBI taxon of ##species."""
    f = one(write(tmp_path / "genomic.gff", REFSEQ_GFF3))
    assembly = f.fact("assembly")
    assert assembly["chr1_length"] == 248956422 and assembly["chr_prefixed"] is False
    assert "#!genome-build GRCh38.p14" in assembly["texts"]
    assert f.fact("taxon_id") == 9606
    ensembl = one(write(tmp_path / "ensembl.gff3", ENSEMBL_GFF3))
    assert ensembl.fact("assembly")["chr1_length"] == 248956422


def test_refseq_gff3_build_resolves_through_the_reference_catalog(tmp_path):
    from bioplan.knowledge.references import builds_from_file, load_catalog

    f = one(write(tmp_path / "genomic.gff", REFSEQ_GFF3))
    found = builds_from_file(load_catalog(), f.fact("assembly"))
    assert found is not None and found[0] == ("organism_human", "GRCh38") and "248,956,422" in found[1]


# --------------------------------------------------------------------------- bgzipped VCF and its index (issue 13)

VCF_TEXT = ("##fileformat=VCFv4.2\n##contig=<ID=22,length=51304566>\n"
            '##INFO=<ID=AF,Number=A,Type=Float,Description="Allele frequency">\n'
            "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n22\t16050075\t.\tA\tG\t50\tPASS\tAF=0.1\n")


@pytest.mark.parametrize("name, index", [("calls.vcf.gz", ".tbi"), ("calls.vcf.bgz", ".tbi"), ("calls.vcf.gz", ".csi")])
def test_bgzipped_vcf_with_its_index_given_or_beside_it(tmp_path, name, index):
    vcf = write(tmp_path / name, bgzf(VCF_TEXT.encode()))
    write(tmp_path / (name + index), bgzf(b"TBI\x01" + b"\x00" * 40))
    os.utime(vcf, (1_600_000_000, 1_600_000_000))  # the index is newer than the data
    for paths in ([vcf], [vcf, vcf + index]):
        profile = sniff_inputs(paths, PREFIXES)
        (f,) = profile.files
        got = (f.datatype, f.format, f.fact("bgzipped"), f.fact("index"))
        assert got == ("variant_calls", "vcf.gz", True, vcf + index)
        assert f.fact("index_stale") is None
        assert (len(paths) == 2) == any(f"{vcf + index} is read as the index of {vcf}" in w for w in profile.warnings)


def test_plain_gzip_vcf_is_said_not_indexable(tmp_path):
    f = one(write(tmp_path / "calls.vcf.gz", VCF_TEXT, gz=True))
    assert f.format == "vcf.gz" and f.fact("bgzipped") is False
    assert "not indexable" in next(x.evidence for x in f.facts if x.name == "bgzipped")


def test_an_index_older_than_its_vcf_is_a_warning(tmp_path):
    vcf = write(tmp_path / "calls.vcf.gz", bgzf(VCF_TEXT.encode()))
    tbi = write(tmp_path / "calls.vcf.gz.tbi", bgzf(b"TBI\x01" + b"\x00" * 40))
    os.utime(tbi, (1_600_000_000, 1_600_000_000))
    profile = sniff_inputs([vcf], PREFIXES)
    assert profile.files[0].fact("index_stale") is True
    assert any("older than the data" in w and "bcftools index -f" in w for w in profile.warnings)


# GATK HaplotypeCaller -ERC GVCF's header and record shapes (the GVCF blocks and <NON_REF> allele); no GATK gVCF
# ships in a Debian or PyPI package here, so its lines are written out as GATK 4 writes them
GATK_GVCF = ("##fileformat=VCFv4.2\n##ALT=<ID=NON_REF,Description=\"Represents any possible alternative allele\">\n"
             "##GVCFBlock0-1=minGQ=0(inclusive),maxGQ=1(exclusive)\n"
             "##INFO=<ID=END,Number=1,Type=Integer,Description=\"Stop position of the interval\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t{samples}\n"
             "20\t10000000\t.\tT\t<NON_REF>\t.\t.\tEND=10000116\tGT:DP:GQ:MIN_DP:PL\t{block}\n"
             "20\t10000117\t.\tC\tT,<NON_REF>\t262.77\t.\tDP=23\tGT:AD:DP:GQ:PL\t{call}\n")


@pytest.mark.parametrize("samples, datatype", [(["NA12878"], "sample_gvcf"), (["NA12878", "NA12891"], "combined_gvcf")])
def test_gatk_gvcf_is_a_gvcf_not_variant_calls(tmp_path, samples, datatype):
    text = GATK_GVCF.format(samples="\t".join(samples), block="\t".join(["0/0:44:99:38:0,89,1385"] * len(samples)),
                            call="\t".join(["0/1:17,6:23:99:291,0,613"] * len(samples)))
    f = one(write(tmp_path / "x.g.vcf", text))
    assert f.datatype == datatype and any("GATK gVCF" in e for e in f.evidence)
