"""Resource attacks through the inputs: files that would hang the sniffers (FIFOs and devices, also
inside a folder an input names), decompression bombs (a small .gz, CRAM block or HDF5 dataset that
inflates to gigabytes), JSON and YAML nested past Python's recursion limit, regexes that backtrack
exponentially, and requests of megabytes. Each ends quickly with a clear `BioplanError` (or reads
only a bounded prefix); each test here failed before its fix (a hang, a MemoryError or RecursionError
traceback, or hours of CPU).

Bombs are built as many small gzip members in one file (gzip readers go on from one member to the
next), so making a 3 GB bomb costs milliseconds; the sniffer must stop after a bounded prefix.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import resource
import struct
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from bioplan.errors import BioplanError, UnreadableInputError
from bioplan.evaluate.cases import CaseFileError
from bioplan.request.sniff import sniff_file, sniff_inputs
from bioplan.request.text import MAX_REQUEST_CHARS
from helpers import deadline

PREFIXES = {"ENSMUSG": "mus_musculus", "ENSG": "homo_sapiens"}
MB = 1 << 20




@contextlib.contextmanager
def memory_cap(extra_bytes: int) -> Iterator[None]:
    """An address-space limit a bomb would hit (MemoryError) well before the machine swaps."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as fh:
        in_use = int(fh.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (in_use + extra_bytes, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def gzip_bomb(path: Path, head: bytes, chunk: bytes, times: int, tail: bytes = b"") -> Path:
    """`head` + `chunk` * `times` + `tail`, gzipped as one member per chunk: len(chunk) * times bytes
    inflated from a file of a few kilobytes per megabyte."""
    member = gzip.compress(chunk, mtime=0)
    path.write_bytes(gzip.compress(head, mtime=0) + member * times + gzip.compress(tail, mtime=0))
    return path


def refused(path: Path | str, seconds: int = 20) -> UnreadableInputError:
    with deadline(seconds), pytest.raises(UnreadableInputError) as err:
        sniff_inputs([str(path)], PREFIXES)
    return err.value


# ------------------------------------------------------------------------------ FIFOs and devices

@pytest.mark.parametrize("layout", ["file", "10x_folder", "taxonomy_folder"])
def test_a_fifo_never_hangs_the_sniffer(tmp_path, layout):
    if layout == "file":
        os.mkfifo(tmp_path / "reads.fastq")
        target, fifo = tmp_path / "reads.fastq", "reads.fastq"
    elif layout == "10x_folder":
        os.mkfifo(tmp_path / "matrix.mtx")
        (tmp_path / "barcodes.tsv").write_text("AAAC\n")
        (tmp_path / "features.tsv").write_text("ENSG00000000001\tA\n")
        target, fifo = tmp_path, "matrix.mtx"
    else:
        os.mkfifo(tmp_path / "nodes.dmp")
        os.mkfifo(tmp_path / "names.dmp")
        target, fifo = tmp_path, "nodes.dmp"  # the first member read is named
    err = refused(target, seconds=10)
    assert "is not a regular file" in str(err) and fifo in str(err)


def test_a_fifo_among_a_quantifiers_run_records_is_ignored_not_waited_for(tmp_path):
    sample = tmp_path / "ctrl_1"
    (sample / "aux_info").mkdir(parents=True)
    (sample / "quant.sf").write_text("Name\tLength\tEffectiveLength\tTPM\tNumReads\n"
                                     "ENST00000000001\t100\t90.0\t1.0\t5\n")
    for name in ("cmd_info.json", "lib_format_counts.json", "aux_info/meta_info.json"):
        os.mkfifo(sample / name)
    with deadline(10):
        found = sniff_file(str(sample), PREFIXES)
    assert found.datatype == "transcript_quantification"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_or_a_symlink_to_one_is_refused(tmp_path, device):
    link = tmp_path / "reads.fastq.gz"
    link.symlink_to(device)
    for target in (device, link):
        assert "is not a regular file" in str(refused(target, seconds=10))


# ------------------------------------------------------------------------------ decompression bombs

def test_a_10x_matrix_header_bomb_reads_a_bounded_prefix(tmp_path):
    folder = tmp_path / "tenx"
    folder.mkdir()
    # a banner, then 3 GB of '%' without a line end: a comment line no reader should follow to its end
    gzip_bomb(folder / "matrix.mtx.gz", b"%%MatrixMarket matrix coordinate integer general\n", b"%" * MB, 3000)
    for name in ("barcodes.tsv.gz", "features.tsv.gz"):
        (folder / name).write_bytes(gzip.compress(b"x\n"))
    started = time.monotonic()
    with memory_cap(1 << 30):
        err = refused(folder)
    assert "not a MatrixMarket coordinate matrix" in str(err)
    assert time.monotonic() - started < 10


def test_a_10x_features_bomb_reads_a_bounded_prefix(tmp_path):
    folder = tmp_path / "tenx"
    folder.mkdir()
    (folder / "matrix.mtx.gz").write_bytes(gzip.compress(
        b"%%MatrixMarket matrix coordinate integer general\n3 2 1\n1 1 1\n"))
    (folder / "barcodes.tsv.gz").write_bytes(gzip.compress(b"AAAC\nAAAG\n"))
    gzip_bomb(folder / "features.tsv.gz", b"", b"A" * MB, 3000)  # one 3 GB line
    started = time.monotonic()
    with memory_cap(1 << 30), deadline(20):
        found = sniff_file(str(folder), PREFIXES)
    assert found.format == "mtx" and time.monotonic() - started < 10


def test_a_table_of_half_a_million_columns_is_refused_at_once(tmp_path):
    # one 3 GB line of '1\t' from a 3 MB .gz (or 16 MB of plain text): the table classifier spent
    # minutes on its half a million columns
    path = gzip_bomb(tmp_path / "counts.tsv.gz", b"", b"1\t" * (MB // 2), 3000)
    started = time.monotonic()
    err = refused(path)
    assert "columns in its first line; bioplan reads tables of up to 20,000 columns" in str(err)
    assert time.monotonic() - started < 10


def _itf8(value: int) -> bytes:
    """CRAM's ITF8 integer (values below 2^28)."""
    if value < 0x80:
        return bytes([value])
    if value < 0x4000:
        return bytes([0x80 | value >> 8, value & 0xFF])
    if value < 0x200000:
        return bytes([0xC0 | value >> 16, value >> 8 & 0xFF, value & 0xFF])
    return bytes([0xE0 | value >> 24, value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF])


def one_member_gzip_bomb(gigabytes: int) -> bytes:
    """One gzip member inflating to `gigabytes` GB of zeros, built in milliseconds: after a full flush
    deflate output is byte-aligned and independent of what came before, so one compressed megabyte
    repeats. (The trailer's CRC is not that of the data: a bounded reader never reaches it.)"""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    megabyte = deflate.compress(b"\0" * MB) + deflate.flush(zlib.Z_FULL_FLUSH)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + megabyte * (gigabytes << 10) + deflate.flush() + struct.pack("<II", 0, 0)


def test_a_cram_header_block_bomb_inflates_only_a_headers_worth(tmp_path):
    # CRAM 3.0: file definition, the first container's header, then its first block (gzip, method 1)
    # inflating to 3 GB of zeros where the SAM header text would be
    block = one_member_gzip_bomb(3)
    container = struct.pack("<i", 0) + _itf8(0) * 4 + b"\0\0" + _itf8(1) + _itf8(0) + b"\0" * 4
    blocks = bytes([1, 0]) + _itf8(0) + _itf8(len(block)) + _itf8(3 << 28 - 1) + block
    cram = tmp_path / "sample.cram"
    cram.write_bytes(b"CRAM\x03\x00" + b"\0" * 20 + container + blocks)
    # inflating the block whole was a MemoryError under this cap (or gigabytes without it)
    with memory_cap(1 << 30), deadline(20):
        found = sniff_file(str(cram), PREFIXES)
    assert found.format == "cram"


def test_an_h5ad_row_of_a_billion_compressed_zeros_is_sampled_not_read(tmp_path):
    h5py = pytest.importorskip("h5py")
    np = pytest.importorskip("numpy")
    path = tmp_path / "wide.h5ad"
    with h5py.File(path, "w") as f:
        f.attrs["encoding-type"] = "anndata"
        for name, index in (("obs", ["cell0", "cell1"]), ("var", ["ENSG00000000001"])):
            g = f.create_group(name)
            g.attrs["_index"] = "_index"
            g.attrs["encoding-type"] = "dataframe"
            g.create_dataset("_index", data=np.array(index, dtype="S"))
        # 2 cells x 500 million genes of float32 zeros: 4 GB a row once read, a few MB on disk
        f.create_dataset("X", shape=(2, 500_000_000), dtype="float32", chunks=(1, 4_000_000), compression="gzip",
                         fillvalue=0)
    with memory_cap(1 << 30), deadline(30):
        found = sniff_file(str(path), PREFIXES)
    assert found.format == "h5ad"


def test_a_kallisto_version_of_a_billion_compressed_bytes_is_not_read_whole(tmp_path):
    h5py = pytest.importorskip("h5py")
    np = pytest.importorskip("numpy")
    path = tmp_path / "ctrl_1" / "abundance.h5"
    path.parent.mkdir()
    with h5py.File(path, "w") as f:
        aux = f.create_group("aux")
        aux.create_dataset("ids", data=np.array([b"ENST00000456328.2", b"ENST00000450305.2"]))
        aux.create_dataset("num_bootstrap", data=np.array([0]))
        # 2 GB of zeros where kallisto writes one version string: a few kB on disk
        aux.create_dataset("kallisto_version", shape=(2 << 30,), dtype="uint8", chunks=(1 << 22,),
                           compression="gzip", fillvalue=0)
        f.create_dataset("est_counts", data=np.array([12.0, 0.0]))
    with memory_cap(1 << 30), deadline(30):
        found = sniff_file(str(path), PREFIXES)
    assert found.format == "kallisto_quant"


# ------------------------------------------------------------------------------ nesting, regexes, sizes

def test_a_quantifiers_run_record_nested_past_the_recursion_limit_is_ignored(tmp_path):
    sample = tmp_path / "ctrl_1"
    sample.mkdir()
    (sample / "quant.sf").write_text("Name\tLength\tEffectiveLength\tTPM\tNumReads\n"
                                     "ENST00000000001\t100\t90.0\t1.0\t5\n")
    (sample / "cmd_info.json").write_text("[" * 200_000 + "]" * 200_000)
    (sample / "lib_format_counts.json").write_text(json.dumps({"expected_format": "x" * (2 * MB)}))
    found = sniff_file(str(sample), PREFIXES)
    assert found.datatype == "transcript_quantification"
    assert not [e for e in found.evidence if "lib_format_counts" in e]  # over the record's bound: not read


def test_a_headerless_vcf_alt_field_does_not_backtrack_exponentially(tmp_path):
    # '<DEL>' then ',a' pairs and a space: `(?:,\S+)*` tried every way to split the pairs before failing
    vcf = tmp_path / "calls.vcf"
    vcf.write_text("1\t100\t.\tA\t<DEL>" + ",a" * 60 + " x\t50\tPASS\t.\n")
    started = time.monotonic()
    with deadline(20), contextlib.suppress(BioplanError):
        sniff_file(str(vcf), PREFIXES)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("document", ["cases", "baseline"])
def test_eval_files_nested_past_the_recursion_limit_are_a_clear_error(tmp_path, knowledge, document):
    from bioplan.evaluate import load_baseline, load_cases

    # 100,000 levels: a RecursionError traceback in PyYAML and json, minutes of CPU before it
    depth = 100_000
    started = time.monotonic()
    if document == "cases":
        path = tmp_path / "cases.yaml"
        path.write_text("cases: " + "[" * depth + "]" * depth + "\n")
        with deadline(30), pytest.raises(CaseFileError) as err:
            load_cases(path, knowledge)
        assert "nested deeper than 64 levels" in str(err.value)
    else:
        path = tmp_path / "baseline.json"
        path.write_text("[" * depth + "]" * depth)
        with deadline(30), pytest.raises(CaseFileError) as err:
            load_baseline(path)
        assert "nested deeper than Python can read" in str(err.value)
    assert err.value.code == "invalid_cases" and time.monotonic() - started < 5


def test_a_knowledge_directory_nested_too_deep_is_a_problem_not_a_crash(tmp_path):
    """BIOPLAN_KNOWLEDGE_DIRS is the user's: libyaml's composer crashed the process (SIGSEGV) on
    100,000 nested flow sequences, PyYAML's raised RecursionError."""
    from bioplan.knowledge.load import _read_valid

    path = tmp_path / "operations.yaml"
    path.write_text("operations: " + "[" * 100_000 + "]" * 100_000 + "\n")
    problems: list[str] = []
    with deadline(30):
        assert _read_valid("operations", path, problems) is None
    assert problems == [f"{path}: not valid YAML: collections nested deeper than 64 levels"]


def test_billion_laughs_in_a_case_file_ends_quickly(tmp_path, knowledge):
    from bioplan.evaluate import load_cases

    anchors = ['&a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    anchors += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]  # 9^10 strings
    path = tmp_path / "laughs.yaml"
    path.write_text("cases:\n- id: a.b.en\n  request: hello\n  input_sets: {x: [" + ", ".join(anchors) + "]}\n")
    started = time.monotonic()
    with deadline(30), pytest.raises(CaseFileError):
        load_cases(path, knowledge)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("request_text", [
    "differential expression " * 500_000,  # 12 MB of words bioplan knows
    " ".join(["wordx"] * 1_000_000),  # a million words it does not
    "a" * 10_000_000,  # 10 MB, no word boundary
], ids=["12MB-known-words", "million-unknown-words", "10MB-one-word"])
def test_an_enormous_request_is_refused_at_once(knowledge, request_text):
    from bioplan.compile import plan_request

    started = time.monotonic()
    with deadline(20), pytest.raises(UnreadableInputError) as err:
        plan_request(request_text, [], knowledge)
    assert f"up to {MAX_REQUEST_CHARS:,} characters" in str(err.value)
    assert err.value.details["length"] == len(request_text)
    assert time.monotonic() - started < 2


@pytest.mark.e2e  # seconds of planning: a measurement, not a fast check
def test_a_request_at_the_length_limit_plans_in_bounded_time(knowledge, workspace):
    """The worst request under the limit: typos in every word (each tried against every phrase)."""
    from bioplan.compile import plan_request

    data = workspace / "data" / "bulk_de"
    text = ("mouse raw counts differential expression " + "diferential expresion alignmnet " * 200)[:MAX_REQUEST_CHARS]
    started = time.monotonic()
    with deadline(120), contextlib.suppress(BioplanError):
        plan_request(text, [str(data / "counts.csv"), str(data / "samples.tsv")], knowledge)
    # generous for two loaded cores; 16 s at twice the limit before the bound, growing quadratically
    assert time.monotonic() - started < 60
