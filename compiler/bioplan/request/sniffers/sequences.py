"""Sequence files: FASTQ reads (sample and mate from the name and the read ids) and nucleotide
FASTA (adapters, classifier genomes, transcriptome or genome, from the sequence names; a set of
homologous sequences, nucleotide or protein, when the request aligns them or builds their tree)."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bioplan.errors import AmbiguousInputError, UnreadableInputError
from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    CHROM_ACC_RE,
    CHROM_ID_RE,
    TX_ID_RE,
    FileSniffer,
    Lines,
    MateName,
    Notes,
    Source,
    ambiguous,
    compression_evidence,
    count_noun,
    decode,
    organism_fact,
    quote_list,
    unreadable,
)

_FASTQ_RECORDS = 1000
_FASTQ_BUDGET = 16 << 20
_FASTA_BUDGET = 8 << 20

# --------------------------------------------------------------------------- FASTQ

# read names: Illumina instrument:run:flowcell:lane:tile:x:y (or the older instrument:lane:tile:x:y, then
# #index and /mate), and SRA's SRR123.4
_READ_ID_RE = re.compile(r"^(?:[A-Za-z0-9_.-]+(?::[A-Za-z0-9-]+){4,6}(?:#\S*)?(?:/[12])?"
                         r"|[SED]RR\d+\.\d+(?:\.[12])?(?:/[12])?)$")
_SEQ_CHARS = re.compile(r"^[ACGTUNRYKMSWBDHVacgtunrykmswbdhv.\-*]*$")
_FASTQ_STEM_RE = re.compile(r"\.(?:fastq|fq)(?:\.gz|\.bz2)?$|\.gz$", re.IGNORECASE)
# (pattern, strong): a strong suffix (_R1, Illumina _R1_001) is trusted alone; a weak one
# (_1, .1) only when the mate file is among the inputs or the read ids agree.
# DOTALL and \Z: a file name may hold a line break, which is part of the sample name (refused later,
# naming the sample: codegen/ir.py) rather than a name no pattern pairs
_MATE_NAME_PATTERNS = (
    (re.compile(r"^(?P<sample>.+?)(?:_S\d+)?(?:_L(?P<lane>\d{3}))?_R(?P<mate>[12])_\d{3}\Z", re.DOTALL), True),
    (re.compile(r"^(?P<sample>.+?)[_.\-][Rr](?P<mate>[12])\Z", re.DOTALL), True),
    (re.compile(r"^(?P<sample>.+?)[_.](?P<mate>[12])\Z", re.DOTALL), False),
)
_CASAVA_RE = re.compile(r"^([12]):[YN]:")
# `_mate_from_read_id` of a block of header lines, where each is one of its two common forms: a read id
# ending in /1 or /2 (group 1), or a read id and CASAVA 1.8's '1:N:...' (group 2)
_MATE_LINES_RE = re.compile(r"^@(?:\S*/([12])(?=[^\S\n]|$)|\S+[^\S\n]+([12]):[YN]:)", re.MULTILINE)
# a match's groups -> its mate: int(from_id or casava) of the one group that matched, looked up in C
_MATE_OF_GROUPS = {("1", ""): 1, ("2", ""): 2, ("", "1"): 1, ("", "2"): 2}
_QUAL_MIN, _QUAL_MAX = ord("!"), ord("~")  # every FASTQ quality encoding uses printable ASCII 33..126


def _fastq_stem(name: str) -> str:
    stem = _FASTQ_STEM_RE.sub("", name)
    return stem or name


def _mate_from_name(name: str, parent: str = "") -> MateName:
    stem = _fastq_stem(name)
    bare = re.match(r"^(?:[Rr]|reads?_?)?(?P<mate>[12])(?:_\d{3})?$", stem)
    if bare and parent:  # sample_dir/R1.fastq.gz: the directory names the sample
        return MateName(parent, int(bare.group("mate")), True, f"{os.sep}{stem}", parent)
    for pattern, strong in _MATE_NAME_PATTERNS:
        m = pattern.match(stem)
        if m:
            sample = m.group("sample")
            return MateName(sample, int(m.group("mate")), strong, stem[len(sample):], stem,
                            m.groupdict().get("lane"))
    return MateName(stem, None, False, "", stem)


def _mate_from_read_id(header: str) -> int | None:
    parts = header[1:].split(maxsplit=1)
    if not parts:
        return None
    if parts[0].endswith(("/1", "/2")):
        return int(parts[0][-1])
    if len(parts) > 1:
        m = _CASAVA_RE.match(parts[1])
        if m:
            return int(m.group(1))
        # ENA/SRA keep the instrument's read name after their own id ('@ERR127302.8493430 HWI-EAS350_0441:1:34:
        # 16191:2123#0/1'): its /1 or /2 is the mate
        original = parts[1].split(maxsplit=1)[0]
        if original.endswith(("/1", "/2")) and _READ_ID_RE.match(original):
            return int(original[-1])
    return None


def _mates_from_read_ids(headers: list[str]) -> list[int | None]:
    """`_mate_from_read_id` of each header: of all of them in one regular-expression pass where every one
    has a common form (~0.2 instead of ~1 ms for 1000 reads), else header by header."""
    found = _MATE_LINES_RE.findall("\n".join(headers))  # a header holds no newline: one match per line at most
    if len(found) == len(headers):
        return list(map(_MATE_OF_GROUPS.__getitem__, found))
    return list(map(_mate_from_read_id, headers))


def _bad_fastq(src: Source, record: int, lineno: int, what: str) -> UnreadableInputError:
    return unreadable(
        src.shown, f"not a valid FASTQ file: record {record} (line {lineno}) {what}",
        ["a FASTQ record is 4 lines: '@id', the bases, '+', one quality character per base",
         "check the file is complete (not truncated by a failed download)"],
        expected="FASTQ")


@dataclass
class _FastqScan:
    """What the first records of a FASTQ file say."""

    lengths: list[int] = field(default_factory=list)
    qmin: int = 255
    qmax: int = 0
    mates: list[int | None] = field(default_factory=list)  # each record's mate from its read id
    first_header: str = ""


def _check_record(src: Source, rec: int, start: int, header: str, seq: str, plus: str, qual: str) -> None:
    if not header.startswith("@"):
        raise _bad_fastq(src, rec, start, f"should start with '@' but starts with {header[:20]!r}")
    if plus and not plus.startswith("+") and _SEQ_CHARS.match(seq) and _SEQ_CHARS.match(plus):
        # the sequence goes on over a second line: the FASTQ of the original Sanger definition
        raise unreadable(src.shown, f"is a multi-line FASTQ (record {rec}'s bases go on over line {start + 2}), "
                         "which the aligners and trimmers bioplan uses do not read",
                         ["rewrite it with one line of bases and one of qualities per record (seqtk seq -l0 IN > "
                          "OUT, or seqkit seq -w 0)"], expected="FASTQ")
    if not plus.startswith("+"):
        raise _bad_fastq(src, rec, start + 2, f"should be the '+' separator but is {plus[:20]!r}")
    if not _SEQ_CHARS.match(seq):
        raise _bad_fastq(src, rec, start + 1, f"holds characters that are not bases: {seq[:20]!r}")
    if len(seq) != len(qual):
        raise _bad_fastq(src, rec, start + 3, f"has {len(seq)} bases but {len(qual)} quality characters")
    if len(plus) > 1 and plus[1:] != header[1:]:
        raise _bad_fastq(src, rec, start + 2, f"repeats another read id on its '+' line ({plus[:30]!r}) than on "
                         f"its '@' line ({header[:30]!r})")
    if qual and (ord(min(qual)) < _QUAL_MIN or ord(max(qual)) > _QUAL_MAX):
        bad = next(c for c in qual if not _QUAL_MIN <= ord(c) <= _QUAL_MAX)
        raise _bad_fastq(src, rec, start + 3, f"holds a quality character outside '!'..'~' ({bad!r})")


def _scan_fastq(src: Source) -> _FastqScan:
    """The first `_FASTQ_RECORDS` records (within the byte budget), each checked for the 4-line form."""
    block = Lines(src, _FASTQ_BUDGET, max_line=_FASTQ_BUDGET).take(4 * _FASTQ_RECORDS)
    scan = _scan_well_formed(block) if block is not None else None
    return scan or _scan_fastq_records(src)


def _scan_well_formed(lines: list[str]) -> _FastqScan | None:
    """The scan of whole, well-formed records, checked all at once (C loops over each column of the
    records instead of ~12 Python steps per record); None for anything else (a blank or broken line, a
    truncated record): `_scan_fastq_records` then reads record by record and says what is wrong where."""
    headers, seqs, pluses, quals = lines[0::4], lines[1::4], lines[2::4], lines[3::4]
    # every header starts with '@' and every separator with '+': counted in C over each column joined
    # (no line holds a newline), where a test per line cost ~0.3 ms per 1000 reads
    if not lines or len(lines) % 4 or not _every_line_starts("\n".join(headers), "@", len(headers)) \
            or not _every_line_starts("\n".join(pluses), "+", len(pluses)) or not _SEQ_CHARS.match("".join(seqs)):
        return None
    lengths = list(map(len, seqs))
    if lengths != list(map(len, quals)):
        return None
    # a bare '+' on every separator line (the common form) is counted in C; else each is compared with its header
    if pluses.count("+") != len(pluses) and any(len(p) > 1 and p[1:] != h[1:] for h, p in zip(headers, pluses)):
        return None  # a '+' line naming another read: said where by the record-by-record scan
    qualities = "".join(quals)
    scan = _FastqScan(lengths=lengths, mates=_mates_from_read_ids(headers), first_header=headers[0])
    if qualities:
        lo, hi = _code_point_range(qualities)
        if lo < _QUAL_MIN or hi > _QUAL_MAX:
            return None  # a control character, space or DEL among the qualities: said where, record by record
        scan.qmin, scan.qmax = min(scan.qmin, lo), max(scan.qmax, hi)
    return scan


def _every_line_starts(joined: str, char: str, n: int) -> bool:
    """Whether each of the `n` newline-free lines joined by newlines into `joined` starts with `char`."""
    return joined.startswith(char) and joined.count("\n" + char) == n - 1


def _code_point_range(text: str) -> tuple[int, int]:
    """ord(min(text)), ord(max(text)) of a non-empty text. For ASCII, one `in` search (memchr) per
    candidate character from each end: ~0.8 ms for the ~100 KB of qualities of 1000 reads, where
    min() and max() compare every character (~11 ms)."""
    if not text.isascii():
        return ord(min(text)), ord(max(text))
    lo = next(c for c in range(128) if chr(c) in text)
    return lo, next(c for c in range(127, lo - 1, -1) if chr(c) in text)


def _scan_fastq_records(src: Source) -> _FastqScan:
    """`_scan_fastq` record by record: the first error of a malformed file with its record and line."""
    lines = Lines(src, _FASTQ_BUDGET, max_line=_FASTQ_BUDGET)  # long (nanopore) reads are one line
    it = iter(lines)
    scan = _FastqScan()
    for header in it:
        if not header.strip():
            if any(rest.strip() for rest in it):
                raise _bad_fastq(src, len(scan.lengths) + 1, lines.lineno, "is a blank line inside the file")
            break
        rec = len(scan.lengths) + 1
        start = lines.lineno
        seq, plus, qual = next(it, None), next(it, None), next(it, None)
        if seq is None or plus is None or qual is None:  # the file (or the budget) ends inside the record
            if not lines.complete:
                break  # budget reached inside a (long) record
            raise _bad_fastq(src, rec, start, "is truncated: the file ends before its 4 lines")
        _check_record(src, rec, start, header, seq, plus, qual)
        scan.first_header = scan.first_header or header
        scan.lengths.append(len(seq))
        if qual:
            # min/max of the string compare code points in C: the same as over map(ord, ...), ~10x faster
            scan.qmin, scan.qmax = min(scan.qmin, ord(min(qual))), max(scan.qmax, ord(max(qual)))
        scan.mates.append(_mate_from_read_id(header))
        if len(scan.lengths) >= _FASTQ_RECORDS:
            break
    if not scan.lengths:
        raise _bad_fastq(src, 1, 1, "is missing: no complete record found")
    return scan


def _fastq_facts(scan: _FastqScan) -> list[Fact]:
    """Read length and quality encoding."""
    n, lo, hi = len(scan.lengths), min(scan.lengths), max(scan.lengths)
    span = f"{hi} bp" if lo == hi else f"{lo}-{hi} bp"
    are = "is" if n == 1 else "are"
    chars = f"quality characters '{chr(scan.qmin)}'..'{chr(scan.qmax)}'"
    if scan.qmin >= 64 and ord("J") < scan.qmax <= ord("h"):  # 'J' = Q41 in phred33, 'h' = Q40 in phred64
        encoding = Fact(name="quality_encoding", value="phred64",
                        evidence=f"{chars} (all >= '@': Illumina 1.3-1.7 offset 64)")
    else:
        encoding = Fact(name="quality_encoding", value="phred33", evidence=f"{chars} (Sanger/Illumina 1.8+ offset 33)")
    return [Fact(name="read_length", value=hi, evidence=f"first {count_noun(n, 'read')} {are} {span}"), encoding]


# Long reads (Nanopore, PacBio): the read lengths decide (a median over 1,000 bp or any read over 5 kb: no
# short-read instrument reads that long); the first read's name says the platform, and a name of a known
# long-read convention is enough alone (a file of short Nanopore reads, e.g. amplicons, is still Nanopore).
_LONG_MEDIAN, _LONG_MAX = 1000, 5000
_LONG_READ_NAMES = (
    # PacBio movie names m64011_190830_220126/<zmw>/ccs (HiFi) or /<start>_<end> (CLR subreads); Sequel IIe and
    # Revio add _s1; RS II movies are m<date>_<time>_<instrument>_c<cell>_s1_p0
    (re.compile(r"^@m\d+[A-Za-z]?_\d{6}_\d{6}(?:_\w+?)?/\d+/ccs\b"), "pacbio_hifi",
     "a PacBio CCS/HiFi read name (/ccs)"),
    (re.compile(r"^@m\d+[A-Za-z]?_\d{6}_\d{6}(?:_\w+?)?/\d+/\d+_\d+\b"), "pacbio_clr",
     "a PacBio subread name (/<start>_<end>)"),
    # MinKNOW/Guppy/Dorado: '@<uuid> runid=... read=... ch=... start_time=...'; poretools/nanook: ch327_file62,
    # ..._ch327_read1234_strand
    (re.compile(r"^@\S+\s(?:.*\s)?(?:runid|ch|start_time|flow_cell_id)=\S"), "nanopore",
     "an Oxford Nanopore read name (runid=/ch=/start_time=)"),
    (re.compile(r"^@(?:\S*_)?ch\d+_(?:file|read)\d+(?:_|\s|$)"), "nanopore",
     "an Oxford Nanopore read name (ch<channel>_file/read<number>, poretools/NanoOK)"),
)


def _long_read_reading(scan: _FastqScan) -> tuple[str, str] | None:
    """(technology or "", evidence) when the reads are long reads, else None."""
    lengths = sorted(scan.lengths)
    median, longest = lengths[len(lengths) // 2], lengths[-1]
    named = next(((tech, why) for pattern, tech, why in _LONG_READ_NAMES if pattern.match(scan.first_header)), None)
    long = median > _LONG_MEDIAN or longest > _LONG_MAX
    if not long and named is None:
        return None
    sizes = f"median read length {median} bp, longest {longest} bp"
    said = [sizes + (f" (over {_LONG_MEDIAN} bp or {_LONG_MAX} bp: long reads)" if long else "")]
    if named:
        said.append(f"first read id {scan.first_header.split()[0][:60]}: {named[1]}")
    return (named[0] if named else ""), "long reads: " + "; ".join(said)


def _read_id_mate(mates: Sequence[int | None]) -> tuple[int | None, bool]:
    """(the mate every read id says, whether the ids alternate mate 1 and 2: an interleaved file)."""
    mates = list(mates)  # each test counted in C: a Python step per read cost ~0.3 ms a file
    if mates and mates.count(1) == len(mates):
        return 1, False
    if mates and mates.count(2) == len(mates):
        return 2, False
    odd, even = mates[0::2], mates[1::2]
    return None, len(mates) >= 2 and odd.count(1) == len(odd) and even.count(2) == len(even)


def _sniff_fastq(src: Source) -> tuple[SniffedFile, Notes]:
    scan = _scan_fastq(src)
    evidence = [f"FASTQ: {count_noun(len(scan.lengths), 'well-formed 4-line record')} checked"]
    evidence += compression_evidence(src)
    long_reads = _long_read_reading(scan)
    if long_reads is not None:
        return _long_reads_file(src, scan, evidence, *long_reads)
    facts = _fastq_facts(scan)
    id_mate, interleaved = _read_id_mate(scan.mates)
    first_id = scan.first_header.split()[0] if scan.first_header else ""
    shown_id = scan.first_header if id_mate and not first_id.endswith(("/1", "/2")) else first_id
    shown_id = shown_id if len(shown_id) <= 60 else shown_id[:57] + "..."

    named = _mate_from_name(src.name, Path(os.path.abspath(src.path)).parent.name)
    replicate_number = id_mate == 1 and named.mate == 2 and not named.strong
    if replicate_number:
        # "ctrl_2.fastq.gz" whose reads are all read 1: a replicate number, not a mate
        # (single-end Illumina reads are all read 1); a strong _R2 suffix still conflicts below
        named = dataclasses.replace(named, sample=named.stem, mate=None)
        evidence.append(f"'{src.name}': the _2 suffix is not a mate (every read id says read 1)")
    if id_mate and named.mate and id_mate != named.mate:
        raise ambiguous(
            src.shown,
            f"the file name says mate {named.mate} ({named.why}) but the read ids say mate {id_mate} "
            f"(first read id {shown_id})",
            ["raw_reads mate 1", "raw_reads mate 2"],
            [f"rename the file so its _R1/_R2 suffix matches the read ids (mate {id_mate})",
             "check that the mate files were not swapped"])
    # a replicate number's reads say read 1 as every single-end read does: not mate 1 of a pair
    mate = None if replicate_number else id_mate or named.mate
    sample = named.sample if named.mate else named.stem
    if interleaved:
        facts.append(Fact(name="interleaved", value=True,
                          evidence="read ids alternate /1 and /2: both mates in one file"))
        evidence.append("interleaved paired-end reads (ids alternate mate 1 and mate 2)")
    if named.lane:
        facts.append(Fact(name="lane", value=f"L{named.lane}", evidence=named.why))
    if mate:
        why = ([named.why] if named.mate else []) + ([f"first read id {shown_id}"] if id_mate else [])
        evidence.append(f"mate {mate} of sample '{sample}': " + ", ".join(why))
    else:
        evidence.append(f"sample '{sample}' from the file name; no mate suffix (_R1/_R2, _1/_2) "
                        "and no mate in read ids")
    fmt = "fastq.gz" if src.compression else "fastq"
    sniffed = SniffedFile(path=src.shown, datatype="raw_reads", format=fmt, evidence=tuple(evidence),
                          facts=tuple(facts), sample=sample, mate=mate)
    first_read = first_id[1:-2] if first_id.endswith(("/1", "/2")) else first_id[1:]
    return sniffed, Notes(mate_name=named, read_id_mate=id_mate, first_read=first_read)


def _long_reads_file(src: Source, scan: _FastqScan, evidence: list[str], technology: str,
                     why: str) -> tuple[SniffedFile, Notes]:
    """Long reads: one file per sample (no mates), the platform as the `read_technology` fact."""
    facts = _fastq_facts(scan)
    if technology:
        facts.append(Fact(name="read_technology", value=technology, evidence=why))
    sample = _fastq_stem(src.name)
    evidence += [why, f"sample '{sample}' from the file name"]
    fmt = "fastq.gz" if src.compression else "fastq"
    sniffed = SniffedFile(path=src.shown, datatype="long_reads", format=fmt, evidence=tuple(evidence),
                          facts=tuple(facts), sample=sample, mate=None)
    return sniffed, Notes()


# --------------------------------------------------------------------------- FASTA

_FASTA_ALLOWED = bytes(range(65, 91)) + bytes(range(97, 123)) + b"*-. \t\r\n"
_NUCLEOTIDES = frozenset(b"ACGTUNacgtun")

_CHROM_DESC_RE = re.compile(r"dna(?:_sm|_rm)?:(?:chromosome|scaffold|primary_assembly)|\bchromosome\b|complete genome"
                            r"|complete sequence|\bscaffold\b|\bcontig\b|\bplasmid\b", re.IGNORECASE)

_TX_DESC_RE = re.compile(r"\bcdna\b|\bncrna\b|transcript_biotype:|\btranscript:|\bgene[:=]|\bgene_symbol:",
                         re.IGNORECASE)
_KRAKEN_TAXID_RE = re.compile(r"kraken:taxid\|(\d+)")
_BINOMIAL_RE = re.compile(r"^([A-Z][a-z]+) ([a-z]+\.?)\b")
# miRBase/MirGeneDB mature miRNA names: a species prefix, then let-/miR-/lin-/bantam- ('hsa-let-7a-5p',
# 'mmu-miR-21a-5p', 'Hsa-Mir-21_5p'); a miRBase mature.fa with its MIMAT accessions is formats.yaml's mirbase_fasta
_MIRNA_NAME_RE = re.compile(r"^[A-Za-z]{3,4}-(?:let|mir|lin|bantam|lsy)-", re.IGNORECASE)
_MIRNA_MAX_LEN = 30  # mature miRNAs are 18-25 nt (a few to 28)
_MIRBASE_HAIRPIN_RE = re.compile(r"^\S+\s+MI\d{7}\b")  # miRBase hairpin.fa: '>hsa-let-7a-1 MI0000060 Homo sapiens ...'
_GENE_IN_HEADER_RE = re.compile(r"(?:ENS[A-Z]*G\d{6,}|FBgn\d{5,})")


_GENOME_NAME_RE = re.compile(r"genome|\bdna\b|[._]dna[._]|toplevel|primary_assembly|assembly|\bchr|[._-]chr|"
                             r"\bgrc[hm]\d+|\bhg\d{2}\b|\bmm\d{2}\b")
_TX_NAME_RE = re.compile(r"transcript|transcriptome|cdna|ncrna|\brna\b|[._]rna[._]|txome|gentrome|\btx\b")


def _transcript_like(header: str) -> bool:
    seq_id = header.split(maxsplit=1)[0] if header.strip() else ""
    if TX_ID_RE.match(seq_id):
        return True
    if _TX_DESC_RE.search(header):
        return True
    return "|" in seq_id and bool(_GENE_IN_HEADER_RE.search(seq_id))


def _chromosome_like(header: str) -> bool:
    parts = header.split(maxsplit=1)
    if not parts:
        return False
    seq_id = parts[0]
    if CHROM_ID_RE.match(seq_id) or CHROM_ACC_RE.match(seq_id) or re.search("scaffold|contig", seq_id, re.I):
        return True
    # assembly-prefixed names such as host_chr1, GRCm39.chr2, hs|chrX
    if any(re.fullmatch(r"chr(?:\d{1,2}[A-Za-z]?|[XYZWM]|MT|Un\S*)", tok, re.I) for tok in re.split(r"[_.|:]", seq_id)):
        return True
    return len(parts) > 1 and bool(_CHROM_DESC_RE.search(parts[1]))


# Adapter and primer sequences a trimmer is given as FASTA (Trimmomatic's TruSeq3-SE.fa,
# TruSeq3-PE-2.fa, NexteraPE-PE.fa; fastp's adapter_sequences; cutadapt's adapters.fa):
# few, short sequences, most holding a known Illumina motif (either strand).
_ADAPTER_MOTIFS = {
    "AGATCGGAAGAGC": "Illumina TruSeq",      # the universal 3' read-through start
    "CTGTCTCTTATACACATCT": "Nextera/Tn5",    # mosaic end, read-through
    "TGGAATTCTCGGGTGCCAAGG": "Illumina small RNA",
    "GATCGTCGGACT": "Illumina small RNA 5'",
}
_ADAPTER_NAME_RE = re.compile(r"adapter|adaptor|truseq|nextera|primer|illumina|trimmomatic|contaminant|"
                              r"index_seq|barcode|polya|smallrna", re.IGNORECASE)
_ADAPTER_MAX_LEN = 200  # longer sequences are not adapters (a genome's shortest contig is far longer)
_ADAPTER_MAX_N = 2000


def _revcomp(seq: str) -> str:
    return seq.translate(str.maketrans("ACGTUN", "TGCAAN"))[::-1]


def _adapter_reading(name: str, headers: Sequence[str], lengths: Sequence[int], sequences: Sequence[bytes],
                     complete: bool) -> tuple[str, list[str]] | None:
    """(evidence, motifs found) when a FASTA holds trimming adapters, else None.

    The content decides: every sequence short; then either a known adapter motif (on either
    strand) in the sequences, or adapter words in the file or sequence names. A long sequence
    anywhere (or a file too large to read whole) is never an adapter file, whatever its name."""
    if not complete or not lengths or len(lengths) > _ADAPTER_MAX_N or max(lengths) > _ADAPTER_MAX_LEN:
        return None
    seqs = [s.decode("ascii", "replace").upper() for s in sequences]
    found = [f"{motif} ({what})" for motif, what in _ADAPTER_MOTIFS.items()
             if any(motif in s or _revcomp(motif) in s for s in seqs)]
    short = f"{count_noun(len(lengths), 'sequence')} of at most {max(lengths)} letters"
    if found:
        return f"adapter sequences for trimming: {short}, holding {', '.join(found)}", [f.split()[0] for f in found]
    named_by = [n for n in [name, *headers[:50]] if _ADAPTER_NAME_RE.search(n)]
    if name and _ADAPTER_NAME_RE.search(name) or len(named_by) * 2 >= len(headers[:50]) + 1:
        return (f"adapter sequences for trimming: {short}, named as adapters ({quote_list(named_by, 3)}); "
                "no known Illumina motif in them"), []
    return None


@dataclass
class _FastaScan:
    """What one bounded pass over a FASTA file saw."""

    headers: list[str] = field(default_factory=list)  # the first 5000 (later ones counted as "")
    lengths: list[int] = field(default_factory=list)
    total: int = 0
    residues: bytearray = field(default_factory=bytearray)  # the first 200 000 letters
    short_seqs: list[bytearray] = field(default_factory=list)  # each sequence, while the file could be adapters
    complete: bool = False


_QUAL_LINE_RE = re.compile(rb"^\d{1,2}(?:\s+\d{1,2})+$")  # '26 26 18 26': phred scores, not residues


def _scan_fasta(src: Source) -> _FastaScan:
    """Headers, lengths and a sample of the letters, up to the byte budget; malformed lines are errors."""
    lines = Lines(src, _FASTA_BUDGET)
    scan = _FastaScan()
    current: int | None = None
    for raw in lines.raw():
        if raw.startswith(b">"):
            if current is not None:
                scan.lengths.append(current)
            current = 0
            if len(scan.short_seqs) <= _ADAPTER_MAX_N:
                scan.short_seqs.append(bytearray())
            scan.headers.append(decode(raw[1:]).strip() if len(scan.headers) < 5000 else "")  # later: counted
            continue
        line = raw.strip()
        if not line:
            continue
        if current is None:
            raise unreadable(src.shown,
                             f"not a valid FASTA file: line {lines.lineno} comes before the first '>' header",
                             ["a FASTA file starts with a '>name' line followed by sequence lines"], expected="FASTA")
        bad = line.translate(None, _FASTA_ALLOWED)
        if bad and _QUAL_LINE_RE.match(line):
            raise unreadable(src.shown, "is a FASTA quality file (.qual: each base's phred score as numbers under a "
                             "'>name' header, 454/Sanger style), which bioplan does not read",
                             ["give the reads as FASTQ: join it with its FASTA (Biopython: python3 -c \"from Bio "
                              "import SeqIO; from Bio.SeqIO import QualityIO; SeqIO.write(QualityIO."
                              f"PairedFastaQualIterator(open('READS.fasta'), open('{src.shown}')), 'reads.fastq', "
                              "'fastq')\")"],
                             expected="FASTA")
        if bad:
            raise unreadable(src.shown, f"not a valid FASTA file: line {lines.lineno} holds characters that are not "
                             f"sequence letters ({decode(bad[:10])!r})",
                             ["sequence lines may hold only letters (and '*', '-')"], expected="FASTA")
        current += len(line)
        scan.total += len(line)
        if len(scan.short_seqs) <= _ADAPTER_MAX_N and current <= _ADAPTER_MAX_LEN:
            scan.short_seqs[-1] += line
        if len(scan.residues) < 200_000:
            scan.residues += line[:200_000]
    if current is not None:
        scan.lengths.append(current)
    scan.complete = lines.complete
    return scan


def _nucleotide_share(src: Source, scan: _FastaScan) -> float:
    """The share of A/C/G/T/U/N among the letters read (1.0 for sequences without letters)."""
    if not scan.lengths:
        raise unreadable(src.shown, "not a valid FASTA file: no '>' header found", expected="FASTA")
    if not scan.residues:
        return 1.0
    # each nucleotide's count in C (bytearray.count), where a Python step per letter cost ~20 ms for 200 000
    return sum(scan.residues.count(b) for b in _NUCLEOTIDES) / len(scan.residues)


def _sniff_protein_fasta(src: Source, scan: _FastaScan, nuc: float) -> SniffedFile:
    """Protein sequences are the proteins a similarity search database is built from (DIAMOND makedb)."""
    at_least = "" if scan.complete else "at least "
    evidence = (f"FASTA: {at_least}{count_noun(len(scan.lengths), 'sequence')}, amino-acid alphabet (only "
                f"{nuc:.0%} of the letters are A/C/G/T/U/N): reference proteins", *compression_evidence(src))
    return SniffedFile(path=src.shown, datatype="protein_reference_sequences",
                       format="fasta.gz" if src.compression else "faa", evidence=evidence,
                       facts=tuple(_fasta_facts(scan)))


def _fasta_facts(scan: _FastaScan) -> list[Fact]:
    n, complete = len(scan.lengths), scan.complete
    at_least = "" if complete else "at least "
    scope = "" if complete else f" (in the first {_FASTA_BUDGET >> 20} MB read)"
    return [
        Fact(name="n_sequences", value=n,
             evidence=f"{at_least}{count_noun(n, chr(39) + '>' + chr(39) + ' header')}{scope}"),
        Fact(name="total_length", value=scan.total, evidence=f"{at_least}{scan.total} sequence letters{scope}"),
        Fact(name="scanned_whole_file", value=complete,
             evidence="whole file read" if complete
             else f"stopped after {_FASTA_BUDGET >> 20} MB: counts are lower bounds"),
    ]


def _alignment_gaps(scan: _FastaScan) -> int:
    """The gap characters of an alignment in FASTA form (sequences of one length with '-' gaps: Clustal's, MUSCLE's,
    MAFFT's), 0 for unaligned sequences."""
    gaps = scan.residues.count(b"-") + scan.residues.count(b".")
    aligned = len(scan.lengths) >= 2 and len(set(scan.lengths)) == 1 and gaps >= 0.01 * len(scan.residues) > 0
    return gaps if aligned else 0


def _refuse_aligned_fasta(src: Source, scan: _FastaScan) -> None:
    """An aligned FASTA the request builds no tree from: its gaps no aligner, quantifier or database builder reads
    as sequence."""
    if gaps := _alignment_gaps(scan):
        raise unreadable(src.shown, f"is an aligned FASTA (a multiple sequence alignment: {len(scan.lengths)} "
                         f"sequences of {scan.lengths[0]} columns with {gaps} gap characters), which bioplan does not "
                         "read here", ["give the unaligned sequences as FASTA (seqkit seq -g removes the gaps)",
                                       "or ask for its tree (e.g. 'build a maximum likelihood tree with IQ-TREE')"],
                         expected="FASTA")


# what a FASTA may be; the request settles between them (`_sequence_set_expected`)
_FASTA_READINGS = ("adapter_sequences", "reference_sequences", "transcriptome", "reference_genome",
                   "protein_reference_sequences", "assembled_contigs", "sequence_set", "mirna_reference")
_SET_MAX_LEN = 1_000_000  # a set of homologous sequences: genes, markers, proteins, small viral genomes


def _sequence_set_expected(expected: Sequence[Mapping[str, str]],
                           datatype: str = "sequence_set") -> str | None:
    """Why the request reads its FASTA as a set of homologous sequences, or (`datatype`
    multiple_sequence_alignment) an aligned FASTA as the alignment its tree inference reads: its first level naming
    any reading of a FASTA names only the sequence set, besides the alignment. Else None."""
    level = next((lv for lv in expected if any(r in lv for r in (*_FASTA_READINGS, datatype))), {})
    if datatype in level and sum(r in level for r in _FASTA_READINGS if r != "sequence_set") == 0:
        return level[datatype]
    return None


def _sniff_alignment(src: Source, scan: _FastaScan, gaps: int, why: str) -> SniffedFile:
    """An aligned FASTA the request infers a tree from: the multiple sequence alignment (the alphabet from the
    letters besides the gaps)."""
    letters = len(scan.residues) - gaps
    nuc = sum(1 for b in scan.residues if b in _NUCLEOTIDES) / max(1, letters)
    alphabet = "nucleotide" if nuc >= 0.9 else "protein"
    evidence = (f"aligned FASTA: {count_noun(len(scan.lengths), 'sequence')} of {scan.lengths[0]} columns with {gaps} "
                f"gap characters, {alphabet} alphabet ({nuc:.0%} of the letters are A/C/G/T/U/N)",
                *compression_evidence(src), f"read as multiple_sequence_alignment: {why}")
    fact = Fact(name="sequence_alphabet", value=alphabet, evidence=f"{nuc:.0%} of the letters are A/C/G/T/U/N")
    return SniffedFile(path=src.shown, datatype="multiple_sequence_alignment", format="aligned_fasta",
                       evidence=evidence, facts=(*_fasta_facts(scan), fact))


def _sniff_sequence_set(src: Source, scan: _FastaScan, nuc: float, why: str) -> SniffedFile:
    """Many short sequences the request aligns or builds a tree from: a sequence set, whatever their names say
    (NR_ accessions of 16S genes look like transcripts); the alphabet decides FastTree's models."""
    alphabet = "nucleotide" if nuc >= 0.9 else "protein"
    at_least = "" if scan.complete else "at least "
    lengths = f"{min(scan.lengths)}-{max(scan.lengths)}" if len(set(scan.lengths)) > 1 else f"{scan.lengths[0]}"
    evidence = (f"FASTA: {at_least}{count_noun(len(scan.lengths), 'sequence')} of {lengths} letters, {alphabet} "
                f"alphabet ({nuc:.0%} of the letters are A/C/G/T/U/N)", *compression_evidence(src),
                f"read as sequence_set: {why}")
    fact = Fact(name="sequence_alphabet", value=alphabet, evidence=f"{nuc:.0%} of the letters are A/C/G/T/U/N")
    fmt = "fasta.gz" if src.compression else ("faa" if alphabet == "protein" and src.name.endswith(".faa") else "fasta")
    return SniffedFile(path=src.shown, datatype="sequence_set", format=fmt, evidence=evidence,
                       facts=(*_fasta_facts(scan), fact))


def _sniff_fasta(src: Source, prefixes: Mapping[str, str], expected: Sequence[Mapping[str, str]] = ()) -> SniffedFile:
    scan = _scan_fasta(src)
    gaps = _alignment_gaps(scan)
    if gaps and (aligned := _sequence_set_expected(expected, "multiple_sequence_alignment")) is not None:
        return _sniff_alignment(src, scan, gaps, aligned)
    _refuse_aligned_fasta(src, scan)
    nuc = _nucleotide_share(src, scan)
    why = _sequence_set_expected(expected)
    if why is not None and len(scan.lengths) >= 2 and max(scan.lengths) <= _SET_MAX_LEN:
        return _sniff_sequence_set(src, scan, nuc, why)
    if nuc < 0.9:
        return _sniff_protein_fasta(src, scan, nuc)
    at_least = "" if scan.complete else "at least "
    evidence = [f"FASTA: {at_least}{count_noun(len(scan.lengths), 'sequence')}, {at_least}{scan.total} letters, "
                "nucleotide alphabet", *compression_evidence(src)]
    fmt = "fasta.gz" if src.compression else "fasta"
    try:
        datatype, why, extra = _fasta_reading(src, scan, prefixes)
    except AmbiguousInputError as exc:
        # what was found, should the request settle the datatype (registry.settled_by_request)
        exc.found = SniffedFile(  # type: ignore[attr-defined]
            path=src.shown, datatype=exc.details["readings"][0], format=fmt, facts=tuple(_fasta_facts(scan)),
            evidence=tuple(evidence + ["neither the sequence names nor the file name say genome or transcripts"]))
        raise
    sample = next((f for f in extra if f.name == "sample"), None)  # contigs are one sample's
    extra = [f for f in extra if f is not sample]
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, sample=sample.value if sample else None,
                       evidence=tuple(evidence + [why] + ([sample.evidence] if sample else [])),
                       facts=tuple(_fasta_facts(scan)) + tuple(extra))


def _fasta_reading(src: Source, scan: _FastaScan, prefixes: Mapping[str, str]) -> tuple[str, str, list[Fact]]:
    """(datatype, why, facts it adds): adapters, classifier genomes, a transcriptome or a genome, from
    the sequences, then the names, then the file name; else ambiguous."""
    named = [h for h in scan.headers if h]
    adapter = _adapter_reading(src.name, named, scan.lengths, [bytes(x) for x in scan.short_seqs], scan.complete)
    if adapter is not None:
        why, motifs = adapter
        return "adapter_sequences", why, [Fact(name="adapter_motifs", value=motifs,
                                               evidence="known adapter motifs: " + (", ".join(motifs) or "none"))]
    if named and sum(bool(_MIRBASE_HAIRPIN_RE.match(h)) for h in named) >= 0.8 * len(named):
        raise unreadable(src.shown, "is a miRBase hairpin (precursor stem-loop) FASTA: bioplan counts the reads of "
                         "each mature miRNA, not of the hairpins (nf-core/smrnaseq's hairpin counts are not made)",
                         ["give miRBase's mature miRNAs (https://www.mirbase.org/download/mature.fa) instead"],
                         expected="the mature miRNAs (mature.fa)")
    if named and max(scan.lengths) <= _MIRNA_MAX_LEN and sum(bool(_MIRNA_NAME_RE.match(h)) for h in named) >= 0.8 * len(
            named):
        return ("mirna_reference", f"mature miRNA names ({quote_list([h.split()[0] for h in named], 3)}) and "
                f"sequences of at most {max(scan.lengths)} letters", [])
    taxids = list(dict.fromkeys(m.group(1) for h in named for m in [_KRAKEN_TAXID_RE.search(h)] if m))
    if taxids:
        distinct = count_noun(len(taxids), "distinct taxid")
        fact = Fact(name="taxids", value=taxids[:20], evidence=f"kraken:taxid| with {distinct}")
        return ("reference_sequences", f"headers carry kraken:taxid ({quote_list(taxids, 5)}): genomes for a "
                "classifier database", [fact])
    species = list(dict.fromkeys(
        m.group(0) for h in named for parts in [h.split(maxsplit=1)] if len(parts) > 1
        for m in [_BINOMIAL_RE.match(parts[1])] if m and _CHROM_DESC_RE.search(parts[1])))
    if len(species) >= 2:
        return ("reference_sequences", f"genomes of {len(species)} species ({quote_list(species, 4)}): a "
                "collection for a classifier database", [])
    contigs = _contigs_reading(src, named)
    if contigs is not None:
        return contigs
    return _genome_or_transcriptome(src, scan, named, prefixes)


# assemblers' contig names: MEGAHIT 'k141_0 flag=1 multi=2.0000 len=302', SPAdes/Velvet 'NODE_1_length_5_cov_2.1'
_CONTIG_ID_RE = re.compile(r"^(?:k\d+_\d+ flag=\d+ multi=|NODE_\d+_length_\d+_cov_)")


def _contigs_reading(src: Source, named: list[str]) -> tuple[str, str, list[Fact]] | None:
    """De novo assembled contigs, from the names assemblers give them; the sample from the file or its folder
    (A_1.contigs.fa, megahit/A_1/final.contigs.fa)."""
    if not named or sum(bool(_CONTIG_ID_RE.match(h)) for h in named) < 0.8 * len(named):
        return None
    stem = re.sub(r"(?:[._]?(?:final[._])?(?:contigs|scaffolds))?\.(?:fa|fasta|fna)(?:\.gz)?$", "", src.name,
                  flags=re.IGNORECASE)
    sample = stem or Path(os.path.abspath(src.path)).parent.name
    return ("assembled_contigs", f"assembler contig names (e.g. {quote_list([h.split()[0] for h in named], 2)})",
            [Fact(name="sample", value=sample, evidence=f"sample '{sample}' from the file name or its folder")])


def _genome_or_transcriptome(src: Source, scan: _FastaScan, named: list[str],
                             prefixes: Mapping[str, str]) -> tuple[str, str, list[Fact]]:
    ids = [h.split(maxsplit=1)[0] for h in named if h.split()]
    shown_ids = quote_list(ids, 3)
    tx_share = sum(map(_transcript_like, named)) / max(1, len(named))
    chrom_share = sum(map(_chromosome_like, named)) / max(1, len(named))
    if tx_share >= 0.5 and tx_share >= chrom_share:
        gene_ids = [m.group(0) for h in named for m in [_GENE_IN_HEADER_RE.search(h)] if m]
        org = organism_fact(gene_ids, prefixes, "gene ids in the headers") if gene_ids else None
        org = org or organism_fact(ids, prefixes, "transcript ids", transcripts=True)
        return ("transcriptome", f"transcript-like headers ({tx_share:.0%} of {len(named)}, e.g. {shown_ids})",
                [org] if org else [])
    if chrom_share >= 0.5:
        return ("reference_genome", f"chromosome-like sequence names ({chrom_share:.0%} of {len(named)}, "
                f"e.g. {shown_ids})", [])
    if len(scan.lengths) <= 500 and max(scan.lengths) >= 1_000_000:
        return "reference_genome", f"few long sequences (longest {max(scan.lengths)} letters)", []
    # the ids do not tell: the file name may (GRCh38.dna.toplevel.fa, gencode.transcripts.fa, ex1_genome.fa)
    name = src.name.lower()
    if (genome_word := _GENOME_NAME_RE.search(name)) and not _TX_NAME_RE.search(name):
        return ("reference_genome", f"sequence names ({shown_ids}) do not tell; the file name "
                f"'{src.name}' says genome ({genome_word.group(0)!r})", [])
    # a build in the name (Homo_sapiens.GRCh38.cdna.all.fa) names the assembly, not genome vs transcripts
    without_build = re.sub(r"\bgrc[hm]\d+|\bhg\d{2}\b|\bmm\d{2}\b", "", name)
    if (tx_word := _TX_NAME_RE.search(name)) and not _GENOME_NAME_RE.search(without_build):
        return ("transcriptome", f"sequence names ({shown_ids}) do not tell; the file name "
                f"'{src.name}' says transcripts ({tx_word.group(0)!r})", [])
    if ids and sum(bool(_READ_ID_RE.match(i)) for i in ids) >= 0.8 * len(ids):
        raise unreadable(src.shown, f"is a FASTA of sequencing reads (read names like {shown_ids}), which bioplan "
                         "reads only as FASTQ", ["give the reads as FASTQ (with their base qualities)"],
                         expected="FASTQ")
    readings = ["reference_genome", "transcriptome", "reference_sequences"]
    if len(scan.lengths) >= 3 and max(scan.lengths) <= _SET_MAX_LEN:  # many short sequences: maybe a set to align
        readings.append("sequence_set")
    if max(scan.lengths) <= _ADAPTER_MAX_LEN:  # short sequences without adapter motifs or names: maybe primers
        readings.append("adapter_sequences")
    at_least = "" if scan.complete else "at least "
    raise ambiguous(
        src.shown,
        f"FASTA with {at_least}{count_noun(len(scan.lengths), 'sequence')} named like {shown_ids}: cannot tell a "
        "genome from a transcriptome (names are neither chromosome-like nor transcript ids)",
        readings,
        ["name genome sequences like chromosomes (chr1, 1, X, MT, NC_...) or transcripts by their ids "
         "(ENST..., NM_...), or name the file after what it holds (genome.fa, transcripts.fa, adapters.fa)",
         f"or declare it: --input-type {src.shown}=reference_genome (or {', '.join(readings[1:])})"])


# --------------------------------------------------------------------------- registry entries

FASTQ = FileSniffer("FASTQ", ("fastq", "fastq.gz"), ("raw_reads", "long_reads"),
                    lambda src, ctx: src.first_line.startswith("@"),
                    lambda src, ctx: _sniff_fastq(src))
FASTA = FileSniffer("FASTA", ("fasta", "fasta.gz", "faa", "aligned_fasta"),
                    (*_FASTA_READINGS, "multiple_sequence_alignment"), lambda src, ctx: src.first_line.startswith(">"),
                    lambda src, ctx: (_sniff_fasta(src, ctx.prefixes, ctx.expected), Notes()))
