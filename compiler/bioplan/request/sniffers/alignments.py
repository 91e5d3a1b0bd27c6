"""Alignments: SAM text, BAM (BGZF) and CRAM, read through their headers (sort order, samples)."""

from __future__ import annotations

import re
import struct
import zlib

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    BAM_HEADER_MAX,
    HEAD_BYTES,
    Context,
    FileSniffer,
    Lines,
    Notes,
    Source,
    compression_evidence,
    count_noun,
    decode,
    quote_list,
    read_exact,
    unreadable,
)

# --------------------------------------------------------------------------- SAM / BAM / CRAM

_SAM_HEADER_RE = re.compile(r"^@(?:HD|SQ|RG|PG|CO)\t")
_CIGAR_RE = re.compile(r"^(?:\*|(?:\d+[MIDNSHP=X])+)$")


def _looks_like_sam_record(line: str) -> bool:
    f = line.split("\t")
    return (len(f) >= 11 and f[1].isdigit() and f[3].isdigit() and f[4].isdigit() and bool(_CIGAR_RE.match(f[5])))


# what aligners and their post-processing append to a sample's name (STAR's Aligned.sortedByCoord.out, .sorted,
# .markdup, .dedup) before the format's extension
ALIGNMENT_SUFFIX_RE = re.compile(
    r"(?:[._]?Aligned\.sortedByCoord\.out|\.sorted|\.markdup|\.dedup)*\.(?:bam|sam|cram)$")


def file_sample(name: str) -> str:
    """The sample an alignment file's name gives: 'aln/ctrl_1.sorted.bam' -> 'ctrl_1' (the name unchanged when
    it does not end in .bam/.sam/.cram)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return (ALIGNMENT_SUFFIX_RE.sub("", base) or base) if ALIGNMENT_SUFFIX_RE.search(base) else name


def _alignment_result(src: Source, fmt: str, header: str | None, evidence: list[str]) -> SniffedFile:
    facts: list[Fact] = []
    sample = None
    if header is None:
        evidence.append("header could not be parsed: sort order and samples unknown")
        facts.append(Fact(name="sorted", value=False, evidence="header not parsed: sort order unknown"))
        return SniffedFile(path=src.shown, datatype="aligned_reads", format=fmt, evidence=tuple(evidence),
                           facts=tuple(facts))
    sort_order = "unknown"
    so_why = "no @HD line: sort order not declared"
    samples: list[str] = []
    n_ref = 0
    for line in header.splitlines():
        tags = line.split("\t")
        if tags[0] == "@HD":
            so_why = "@HD line without SO: sort order not declared"
            for t in tags[1:]:
                if t.startswith("SO:"):
                    sort_order, so_why = t[3:], f"@HD SO:{t[3:]}"
        elif tags[0] == "@RG":
            sm = next((t[3:] for t in tags[1:] if t.startswith("SM:")), None)
            if sm and sm not in samples:
                samples.append(sm)
        elif tags[0] == "@SQ":
            n_ref += 1
    is_sorted = sort_order == "coordinate"
    facts.append(Fact(name="sorted", value=is_sorted,
                      evidence=so_why if is_sorted else f"{so_why}; treated as not coordinate-sorted"))
    facts.append(Fact(name="sort_order", value=sort_order, evidence=so_why))
    facts.append(Fact(name="samples", value=samples,
                      evidence=f"@RG SM: {quote_list(samples)}" if samples else "no @RG read group with SM"))
    if len(samples) == 1:
        sample = samples[0]
    elif (stem := file_sample(src.name)) != src.name:
        # no single read-group sample: the file names it, as for FASTQ ('sm_treated1.bam' is sample 'sm_treated1',
        # as a sample sheet lists it), not the file name with its extension
        sample = stem
        evidence.append(f"sample '{stem}' from the file name"
                        + (" (no @RG SM)" if not samples else f" (@RG names {len(samples)} samples)"))
    evidence.append(f"{count_noun(n_ref, 'reference sequence')} (@SQ), sort order {sort_order}")
    return SniffedFile(path=src.shown, datatype="aligned_reads", format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts), sample=sample)


def _sniff_bam(src: Source) -> SniffedFile:
    with src.open() as fh:
        pre = read_exact(fh, 8, src.shown)
        if len(pre) < 8:
            raise unreadable(src.shown, "BAM file whose header is truncated", expected="BAM")
        (l_text,) = struct.unpack("<i", pre[4:8])
        if l_text < 0:
            raise unreadable(src.shown, "BAM file with a corrupt header length", expected="BAM")
        text = read_exact(fh, min(l_text, BAM_HEADER_MAX), src.shown)
        # the binary reference list after the text: none means no read can be aligned (PacBio subreads/CCS, uBAM)
        n_ref = read_exact(fh, 4, src.shown) if l_text <= BAM_HEADER_MAX else b""
    header = decode(text.rstrip(b"\x00"))
    if len(n_ref) == 4 and struct.unpack("<i", n_ref)[0] == 0 and "@SQ\t" not in header:
        _refuse_unaligned(src, "BAM", header)
    evidence = ["BAM: BGZF-compressed with 'BAM\\1' magic" if src.bgzf else "BAM: gzip-compressed with 'BAM\\1' magic"]
    return _alignment_result(src, "bam", header, evidence)


_PLATFORMS = {"PACBIO": "PacBio", "ONT": "Oxford Nanopore", "ILLUMINA": "Illumina"}


def _refuse_unaligned(src: Source, container: str, header: str) -> None:
    """An alignment file without reference sequences holds unaligned reads: refused saying what they are."""
    rg = " ".join(ln for ln in header.splitlines() if ln.startswith("@RG"))
    platform = next((m.group(1) for m in re.finditer(r"\tPL:(\S+)", rg)), "")
    kind = next((m.group(1) for m in re.finditer(r"READTYPE=([A-Za-z]+)", rg)), "")
    reads = "subreads" if kind.upper() == "SUBREAD" else f"{kind} reads" if kind else "reads"
    what = f"{_PLATFORMS.get(platform.upper(), platform)} {reads}".strip()
    said = f" (@RG PL:{platform}" + (f", READTYPE={kind}" if kind else "") + ")" if platform else ""
    raise unreadable(
        src.shown, f"is an unaligned {container}: it lists no reference sequences, so its {what}{said} are not "
        "aligned to a genome",
        ["give the reads as FASTQ (samtools fastq FILE > reads.fastq.gz) with the analysis to run on them, "
         "or align them first and give the aligned BAM"], expected="aligned BAM/CRAM or FASTQ")


def _itf8(b: bytes, p: int) -> tuple[int, int]:
    b0 = b[p]
    if b0 < 0x80:
        return b0, p + 1
    if b0 < 0xC0:
        return ((b0 & 0x3F) << 8) | b[p + 1], p + 2
    if b0 < 0xE0:
        return ((b0 & 0x1F) << 16) | (b[p + 1] << 8) | b[p + 2], p + 3
    if b0 < 0xF0:
        return ((b0 & 0x0F) << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3], p + 4
    return ((b0 & 0x0F) << 28) | (b[p + 1] << 20) | (b[p + 2] << 12) | (b[p + 3] << 4) | (b[p + 4] & 0x0F), p + 5


def _ltf8(b: bytes, p: int) -> tuple[int, int]:
    b0 = b[p]
    n = 0
    while n < 8 and b0 & (0x80 >> n):
        n += 1
    value = b0 & (0xFF >> (n + 1)) if n < 8 else 0
    for i in range(n):
        value = (value << 8) | b[p + 1 + i]
    return value, p + 1 + n


def _cram_header(data: bytes) -> str | None:
    """SAM header text of a CRAM file (file definition + first container, first block), or None."""
    try:
        major = data[4]
        p = 26
        p += 4  # container length
        for _ in range(4):  # reference id, start, span, n records
            _, p = _itf8(data, p)
        if major >= 3:
            _, p = _ltf8(data, p)  # record counter
            _, p = _ltf8(data, p)  # bases
        else:
            _, p = _itf8(data, p)
            _, p = _ltf8(data, p)
        _, p = _itf8(data, p)  # number of blocks
        n_landmarks, p = _itf8(data, p)
        for _ in range(n_landmarks):
            _, p = _itf8(data, p)
        if major >= 3:
            p += 4  # crc32
        method, _content_type = data[p], data[p + 1]
        p += 2
        _, p = _itf8(data, p)  # content id
        size, p = _itf8(data, p)
        _raw_size, p = _itf8(data, p)
        block = data[p:p + size]
        if method == 1:  # at most a header's worth: a small block can inflate to gigabytes
            block = zlib.decompressobj(wbits=31).decompress(block, BAM_HEADER_MAX)
        elif method != 0:
            return None
        (l_text,) = struct.unpack("<i", block[:4])
        return decode(block[4:4 + l_text].rstrip(b"\x00"))
    except (IndexError, struct.error, OSError, EOFError, zlib.error):
        return None


def _sniff_cram(src: Source) -> SniffedFile:
    version = f"{src.magic[4]}.{src.magic[5]}" if len(src.magic) > 5 else "?"
    data = src.magic
    if len(data) >= HEAD_BYTES:  # a header with many @SQ lines can outgrow the head
        with src.open() as fh:
            data = read_exact(fh, BAM_HEADER_MAX, src.shown)
    header = _cram_header(data)
    if header is not None and not any(ln.startswith("@SQ") for ln in header.splitlines()):
        _refuse_unaligned(src, "CRAM", header)
    return _alignment_result(src, "cram", header, [f"CRAM {version} ('CRAM' magic)"])


def _sniff_sam(src: Source) -> SniffedFile:
    header: list[str] = []
    lines = Lines(src, BAM_HEADER_MAX)
    first_record = None
    for line in lines:
        if line.startswith("@"):
            header.append(line)
            continue
        if line.strip():
            first_record = line
            break
    if first_record is not None and not _looks_like_sam_record(first_record):
        from bioplan.request.sniffers.loci import refuse_headered_table  # GATK/Picard tables under a SAM header
        refuse_headered_table(src, first_record)
        raise unreadable(src.shown, f"not a valid SAM file: line {lines.lineno} is not an alignment record of 11 "
                         "tab-separated columns", expected="SAM")
    evidence = ["SAM text: @HD/@SQ header lines" if header else "SAM text: 11-column alignment records"]
    evidence += compression_evidence(src)
    return _alignment_result(src, "sam", "\n".join(header), evidence)


# --------------------------------------------------------------------------- registry entries


def _read_bam(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    if src.compression is None:
        raise unreadable(src.shown, "uncompressed BAM data (BAM must be BGZF-compressed)",
                         ["re-write it with samtools view -b"], expected="BAM")
    return _sniff_bam(src), Notes()


CRAM = FileSniffer("CRAM", ("cram",), ("aligned_reads",),
                   lambda src, ctx: src.magic.startswith(b"CRAM"),
                   lambda src, ctx: (_sniff_cram(src), Notes()))
BAM = FileSniffer("BAM", ("bam",), ("aligned_reads",),
                  lambda src, ctx: src.head.startswith(b"BAM\x01"), _read_bam)
# a SAM header line (@HD, @SQ, ...) is tried before FASTQ ('@' starts both); a headerless SAM
# (records only) after every other text format
SAM_HEADER = FileSniffer("SAM (header)", ("sam",), ("aligned_reads",),
                         lambda src, ctx: bool(_SAM_HEADER_RE.match(src.first_line)),
                         lambda src, ctx: (_sniff_sam(src), Notes()))
SAM_RECORDS = FileSniffer("SAM (records)", ("sam",), ("aligned_reads",),
                          lambda src, ctx: _looks_like_sam_record(src.first_line),
                          lambda src, ctx: (_sniff_sam(src), Notes()))
