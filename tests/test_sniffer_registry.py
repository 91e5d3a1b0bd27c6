"""The sniffer registry (request/sniffers/registry.py): its order, and which reader takes a small
hand-made input. tests/test_sniff.py tests what each reader finds; these test who reads what."""

from __future__ import annotations

import gzip
import importlib
from pathlib import Path

import pytest

from bioplan.errors import UnreadableInputError
from bioplan.request.sniffers import alignments, refusals, registry, sequences, signatures, tables
from bioplan.request.sniffers.base import Context, FormatSignature, open_source

FIRST_BYTES = {
    "reads.fq": b"@r1/1\nACGT\n+\nIIII\n",
    "genome.fa": b">chr1\nACGT\n",
    "calls.vcf": b"##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n",
    "genes.gtf": b'chr1\tx\tgene\t1\t10\t.\t+\t.\tgene_id "g1";\n',
    "aln.sam": b"@HD\tVN:1.6\tSO:coordinate\n",
    "nodes.dmp": b"1\t|\t1\t|\tno rank\t|\n",
    "matrix.mtx": b"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 5\n",
    "counts.tsv": b"gene\ta\tb\nG1\t1\t2\n",
    "x.bam": gzip.compress(b"BAM\x01", mtime=0),
    "x.cram": b"CRAM\x03\x00" + bytes(20),
    "x.h5ad": b"\x89HDF\r\n\x1a\n" + bytes(8),
    "x.bz2": b"BZh91AY&SY",
    "x.bin": bytes(range(256)),
    "hash.k2d": b"anything",
}
READER = {
    "reads.fq": "FASTQ", "genome.fa": "FASTA", "calls.vcf": "VCF", "genes.gtf": "GTF/GFF3", "aln.sam": "SAM (header)",
    "nodes.dmp": "NCBI taxonomy .dmp file", "matrix.mtx": "10x MatrixMarket file", "counts.tsv": "delimited table",
    "x.bam": "BAM", "x.cram": "CRAM", "x.h5ad": "HDF5 (AnnData, Cell Ranger, kallisto)",
    "x.bz2": "bzip2, xz, zstd or zip data (refused)", "x.bin": "binary data of an unknown type (refused)",
    "hash.k2d": "one file of a Kraken2 database (refused)",
}


def first_taker(path: Path, ctx: Context) -> str:
    src = open_source(str(path))
    assert not isinstance(src, Path)
    return next(s.name for s in registry.FILE_SNIFFERS if s.claims(src, ctx))


@pytest.mark.parametrize("name", sorted(FIRST_BYTES))
def test_the_first_reader_that_takes_a_file_is_the_one_for_its_kind(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(FIRST_BYTES[name])
    assert first_taker(path, registry.context({})) == READER[name]


def test_the_order_declarative_first_binary_before_text_tables_last():
    order = list(registry.FILE_SNIFFERS)
    assert order[0] is signatures.SIGNATURES  # a format the knowledge declares wins
    assert order[-1] is tables.TABLE  # takes any text: nothing after it could be reached
    binary = order.index(refusals.BINARY)
    assert order.index(alignments.BAM) < binary < order.index(sequences.FASTQ)
    # a SAM header ('@HD') before FASTQ ('@'); headerless SAM records after every other text reader
    assert order.index(alignments.SAM_HEADER) < order.index(sequences.FASTQ)
    assert order.index(alignments.SAM_RECORDS) == len(order) - 2


def test_a_declared_signature_takes_its_files_before_the_built_in_readers(tmp_path):
    path = tmp_path / "reads.myfq"
    path.write_bytes(FIRST_BYTES["reads.fq"])  # FASTQ content under a declared extension
    signature = FormatSignature(format="my_fastq", label="My FASTQ", datatype="raw_reads", extensions=(".myfq",),
                                magic=b"@r1", header=None)
    assert first_taker(path, registry.context({}, [signature])) == "formats.yaml signatures"
    assert first_taker(path, registry.context({})) == "FASTQ"  # without it, the built-in reader


def test_a_folder_no_reader_takes_is_refused_with_what_a_folder_can_be(tmp_path):
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "a_R1.fastq.gz").write_bytes(gzip.compress(FIRST_BYTES["reads.fq"]))
    with pytest.raises(UnreadableInputError) as e:
        registry.guarded(str(tmp_path), registry.context({}))
    assert "directory bioplan does not recognise" in e.value.message
    assert any("Kraken2 database" in h for h in e.value.hints)
    assert any("give each file" in h for h in e.value.hints)  # FASTQ files in it: say how to give them


def _real_files() -> list[Path]:
    root = Path(__file__).parent / "data"
    return sorted(p for p in root.rglob("*") if p.is_file())


def _all_first_bytes(tmp_path: Path) -> list[Path]:
    made = []
    for name, content in FIRST_BYTES.items():
        (tmp_path / name).write_bytes(content)
        made.append(tmp_path / name)
    return made


def test_a_readers_cheap_test_holds_for_every_file_the_reader_takes(tmp_path):
    """The registry skips a reader (and leaves its module unimported) when its `could_claim` is false: that
    must never skip a file the reader takes. Checked on the hand-made files and the whole real-file corpus."""
    ctx = registry.context({})
    claimed: dict[str, int] = {}
    for path in [*_all_first_bytes(tmp_path), *_real_files()]:
        try:
            src = open_source(str(path))
        except UnreadableInputError:
            continue  # empty files and the like: no reader is asked
        assert not isinstance(src, Path)
        for declared in registry.FILE_READERS:
            if declared.reader().claims(src, ctx):
                claimed[declared.attr] = claimed.get(declared.attr, 0) + 1
                assert declared.could_claim is None or declared.could_claim(src), (declared.attr, str(path))
    # the corpus reaches the gated readers, so the check above is not empty
    assert {"FASTQ", "FASTA", "VCF", "HDF5", "MTX", "BAM"} <= set(claimed), sorted(claimed)


def test_the_declared_readers_are_the_readers_in_their_modules_and_order():
    names = [s.name for s in registry.FILE_SNIFFERS]
    assert len(set(names)) == len(names) == len(registry.FILE_READERS)
    for declared in (*registry.FILE_READERS, *registry.FOLDER_READERS):
        module = importlib.import_module(f"bioplan.request.sniffers.{declared.module}")
        assert getattr(module, declared.attr) is declared.reader()


def test_the_cohort_pass_names_the_10x_matrix_parts_the_single_cell_reader_reads():
    from bioplan.request.sniffers import cohort, single_cell

    assert cohort._MTX_PARTS == single_cell.MTX_PARTS
