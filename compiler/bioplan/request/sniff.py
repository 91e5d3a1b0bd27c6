"""Sniff stage: input paths -> InputProfile (the DataType Recognition Index).

Each input file is recognised from its contents (magic bytes first, then the text
structure), never from its name alone; the name only supplies what the contents
cannot (sample and mate of a FASTQ, GMT vs table for a ragged file). Every
finding is a `Fact` with the evidence for it, in words a user understands.

    magic bytes   CRAM / HDF5 / gzip(BAM, BCF, text) / bzip2, xz, zstd, zip (refused)
    text          @HD -> SAM   @ -> FASTQ   > -> FASTA   ##fileformat=VCF -> VCF
                  9 GFF columns -> GTF/GFF3   "\\t|\\t" -> taxonomy .dmp
                  otherwise a delimited table: GMT, gene list, DE table, gene id
                  mapping, count matrix (raw/normalised) or sample sheet
    directory     hash.k2d+opts.k2d+taxo.k2d -> Kraken2 DB; nodes.dmp+names.dmp -> taxdump

Deterministic, and bounded: text is read line by line up to a byte budget per
family (a 3 GB genome or a 60 GB FASTQ is never read whole); gzip is handled
transparently. Anything not recognised raises `UnreadableInputError` naming the
file and what was expected; two equally plausible readings raise
`AmbiguousInputError` saying how to disambiguate. No traceback escapes.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import os
import re
import stat
import struct
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bioplan.errors import AmbiguousInputError, BioplanError, UnreadableInputError
from bioplan.models import Fact, InputProfile, SniffedFile

__all__ = ["RECOGNISED", "sniff_file", "sniff_inputs"]

# What bioplan recognises, for the hint of an unrecognised input.
RECOGNISED = (
    "FASTQ reads (.fastq/.fq, optionally .gz)",
    "FASTA genome, transcriptome or classifier reference sequences",
    "GTF/GFF3 gene annotation",
    "VCF/BCF variant calls",
    "BAM/SAM/CRAM alignments",
    "AnnData .h5ad single-cell data, 10x Genomics matrices (MTX folder or triple, filtered_feature_bc_matrix.h5)",
    "Salmon/Sailfish quant.sf, kallisto abundance.tsv/.h5, RSEM .genes/.isoforms.results (files or output folders)",
    "transcript-to-gene maps (tximport tx2gene tables)",
    "adapter FASTA for trimming (TruSeq3-SE.fa, ...)",
    "count matrices (TSV/CSV, genes x samples, or featureCounts output)",
    "differential expression tables",
    "sample sheets (TSV/CSV, one row per sample)",
    "gene lists (one id per line)",
    "GMT gene set libraries",
    "gene id mapping tables",
    "narrowPeak/broadPeak peak files",
    "NCBI taxonomy dumps (nodes.dmp, names.dmp)",
    "Kraken2 database directories",
)
_RECOGNISED_HINT = "bioplan recognises: " + "; ".join(RECOGNISED)
_INPUT_TYPE_HINT = "or say what the file is with --input-type FILE=DATATYPE (datatype ids: ontology/datatypes.yaml)"


def _override_hint(shown: str, readings: Sequence[str] = ()) -> str:
    """How to overrule the sniffing for this one file (`--input-type FILE=DATATYPE`)."""
    example = readings[0] if readings else "DATATYPE"
    also = f" (one of {', '.join(readings)})" if len(readings) > 1 else ""
    return f"to override the sniffing, declare the file's type: --input-type {shown}={example}{also}"

# Format ids (of ontology/formats.yaml) that are not simply the file's extension.
FMT_TAXONOMY_DUMP = "taxdump"
FMT_KRAKEN2_DB = "kraken2_db"

# Reading budgets (bytes after decompression / records).
_HEAD_BYTES = 64 * 1024
_MAX_LINE = 1 << 20
_FASTQ_RECORDS = 1000
_FASTQ_BUDGET = 16 << 20
_FASTA_BUDGET = 8 << 20
_GFF_LINES = 5000
_GFF_BUDGET = 16 << 20
_VCF_RECORDS = 10_000
_VCF_BUDGET = 32 << 20
_TABLE_BUDGET = 16 << 20
_TABLE_ROWS = 200_000
_BAM_HEADER_MAX = 64 << 20
_H5_SAMPLE = 10_000

_GZIP_MAGIC = b"\x1f\x8b"
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_OTHER_COMPRESSION = (
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip (or an Excel workbook)"),
)

# --------------------------------------------------------------------------- identifiers

_ENSEMBL_GENE_RE = re.compile(r"^(?:ENS[A-Z]*G\d{6,}|FBgn\d{5,})(?:\.\d+)?$")
_ENTREZ_RE = re.compile(r"^\d{1,9}$")
_SYMBOL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9]*(?:[-._:/@()'][A-Za-z0-9]+)*[)']?$")
_FASTQ_PATH_RE = re.compile(r"\.(?:fastq|fq)(?:\.gz)?$", re.IGNORECASE)


def _organism_name(constraint_id: str) -> str:
    return constraint_id.removeprefix("organism_").replace("_", " ")


def _id_prefix(gene_id: str, prefixes: Mapping[str, str]) -> str | None:
    """The longest organism prefix `gene_id` starts with (followed by a digit)."""
    best = None
    for prefix in prefixes:
        if gene_id.startswith(prefix) and len(gene_id) > len(prefix) and gene_id[len(prefix)].isdigit():
            if best is None or len(prefix) > len(best):
                best = prefix
    return best


def _is_ensembl_gene(value: str, prefixes: Mapping[str, str]) -> bool:
    return bool(_ENSEMBL_GENE_RE.match(value)) or _id_prefix(value, prefixes) is not None


def _namespace(values: Sequence[str], prefixes: Mapping[str, str]) -> tuple[str, float]:
    """Identifier namespace of `values` ("ensembl", "entrez", "symbol", "unknown") and the share that fits."""
    vals = [v for v in values if v]
    if not vals:
        return "unknown", 0.0
    n = len(vals)
    shares = {
        "ensembl": sum(_is_ensembl_gene(v, prefixes) for v in vals) / n,
        "entrez": sum(bool(_ENTREZ_RE.match(v)) for v in vals) / n,
        "symbol": sum(bool(_SYMBOL_RE.match(v)) and not v.isdigit() and len(v) <= 40 for v in vals) / n,
    }
    for name in ("ensembl", "entrez", "symbol"):  # most specific first
        if shares[name] >= 0.9:
            return name, shares[name]
    return "unknown", max(shares.values())


def _organism_of(ids: Sequence[str], prefixes: Mapping[str, str],
                 transcripts: bool = False) -> tuple[str, str, int] | None:
    """(constraint id, prefix, n ids) when most ids carry one organism's Ensembl prefix.

    With `transcripts`, gene prefixes are turned into transcript prefixes
    (ENSMUSG -> ENSMUST, FBgn -> FBtr) first.
    """
    table = dict(prefixes)
    if transcripts:
        table = {}
        for prefix, organism in prefixes.items():
            if prefix.startswith("ENS") and prefix.endswith("G"):
                table[prefix[:-1] + "T"] = organism
            elif prefix == "FBgn":
                table["FBtr"] = organism
    hits = Counter(p for p in (_id_prefix(i, table) for i in ids if i) if p)
    if not hits:
        return None
    prefix, n = hits.most_common(1)[0]
    if n < 0.8 * sum(hits.values()):
        return None  # mixed organisms: say nothing
    return table[prefix], prefix, n


def _organism_fact(ids: Sequence[str], prefixes: Mapping[str, str], what: str,
                   transcripts: bool = False) -> Fact | None:
    found = _organism_of(ids, prefixes, transcripts)
    if found is None:
        return None
    organism, prefix, n = found
    return Fact(name="organism", value=organism,
                evidence=f"{what} match {prefix} ({_organism_name(organism)}; {n} of {len(ids)} checked)")


def _n(count: int, noun: str, plural: str | None = None) -> str:
    """'1 sample', '3 samples'."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def _quote_list(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(f"'{i}'" for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Source:
    """A regular, non-empty file and its first bytes (after decompression)."""

    shown: str  # as the user gave it
    path: Path
    compression: str | None  # "gzip" or None
    bgzf: bool
    magic: bytes  # first bytes of the file as stored
    head: bytes  # first bytes of the content

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def suffixes(self) -> list[str]:
        return [s.lower() for s in self.path.suffixes]

    @property
    def ext(self) -> str:
        """Last extension, lower case, without a trailing .gz (".csv" for "x.csv.gz")."""
        sfx = self.suffixes
        if sfx and sfx[-1] in (".gz", ".bgz") and len(sfx) > 1:
            return sfx[-2]
        return sfx[-1] if sfx else ""

    def open(self) -> IO[bytes]:
        return gzip.open(self.path, "rb") if self.compression == "gzip" else open(self.path, "rb")


def _with_override(shown: str, hints: Sequence[str], readings: Sequence[str] = ()) -> list[str]:
    """`hints`, ending with how to declare the type when no hint says so yet."""
    out = list(hints)
    if not any("--input-type" in h for h in out):
        out.append(_override_hint(shown, readings))
    return out


def _unreadable(shown: str, problem: str, hints: Sequence[str] = (),
                expected: str | None = None, override: bool = True) -> UnreadableInputError:
    details: dict[str, Any] = {"path": shown}
    if expected:
        details["expected"] = expected
    # every error about an input's content says how to overrule the sniffing (a missing file it cannot help)
    return UnreadableInputError(f"{shown}: {problem}", _with_override(shown, hints) if override else list(hints),
                                details)


def _ambiguous(shown: str, problem: str, readings: Sequence[str], hints: Sequence[str]) -> AmbiguousInputError:
    return AmbiguousInputError(f"{shown}: {problem}", _with_override(shown, hints, readings),
                               {"path": shown, "readings": list(readings)})


def _corrupt(shown: str, exc: BaseException) -> UnreadableInputError:
    return _unreadable(shown, f"compressed data is corrupt or truncated ({exc})",
                       ["re-download or re-compress the file (gzip -t FILE checks it)"])


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


class _Lines:
    """Lines of a (possibly gzipped) text file, up to `budget` bytes of content.

    `complete` is True once the whole file has been read.
    """

    def __init__(self, src: _Source, budget: int, max_line: int = _MAX_LINE):
        self.src = src
        self.budget = budget
        self.max_line = max_line
        self.complete = False
        self.lineno = 0

    def raw(self) -> Iterator[bytes]:
        read = 0
        with self.src.open() as fh:
            while read < self.budget:
                try:
                    raw = fh.readline(self.max_line)
                except (OSError, EOFError, zlib.error) as exc:
                    raise _corrupt(self.src.shown, exc) from None
                if not raw:
                    self.complete = True
                    return
                read += len(raw)
                self.lineno += 1
                yield raw

    def __iter__(self) -> Iterator[str]:
        for raw in self.raw():
            line = _decode(raw).rstrip("\r\n")
            if self.lineno == 1:
                line = line.lstrip("\ufeff")
            yield line


def _is_bgzf(magic: bytes) -> bool:
    # gzip member with FEXTRA whose first subfield is 'BC' (SAM/BAM spec, section 4.1)
    return len(magic) >= 14 and magic[:2] == _GZIP_MAGIC and magic[3] & 4 and magic[12:14] == b"BC"


def _looks_binary(head: bytes) -> bool:
    sample = head[:8192]
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return control > 0.05 * max(1, len(sample))


def _open_source(shown: str) -> _Source | Path:
    """A readable regular file as a `_Source`, or the Path of a directory."""
    if not shown.strip():
        raise _unreadable(shown, "an empty string is not a path", ["give the path of an input file"], override=False)
    path = Path(shown)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise _unreadable(shown, "no such file or directory",
                          ["check the path (relative paths are taken from the current directory)"],
                          override=False) from None
    except OSError as exc:
        raise _unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        return path
    if not stat.S_ISREG(st.st_mode):
        raise _unreadable(shown, "is not a regular file (a pipe, socket or device cannot be sniffed)",
                          ["save the data to a file and give its path"])
    if st.st_size == 0:
        raise _unreadable(shown, "is empty (0 bytes)",
                          ["give the file that holds the data; an empty file has no datatype"])
    try:
        with open(path, "rb") as fh:
            magic = fh.read(_HEAD_BYTES)
    except OSError as exc:
        raise _unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None
    if magic[:2] != _GZIP_MAGIC:
        return _Source(shown, path, None, False, magic, magic)
    try:
        with gzip.open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise _corrupt(shown, exc) from None
    if not head:
        raise _unreadable(shown, "is empty once decompressed (a gzip file holding 0 bytes)",
                          ["give the file that holds the data"])
    return _Source(shown, path, "gzip", bool(_is_bgzf(magic)), magic, head)


def _compression_evidence(src: _Source) -> list[str]:
    if src.compression is None:
        return []
    return ["bgzip-compressed (BGZF)" if src.bgzf else "gzip-compressed"]


def _compressed_fact(src: _Source) -> list[Fact]:
    """For formats whose id does not say `.gz` (gtf, tsv, ...): record the compression as a fact."""
    if src.compression is None:
        return []
    return [Fact(name="compressed", value=True, evidence=_compression_evidence(src)[0])]


# --------------------------------------------------------------------------- FASTQ

_SEQ_CHARS = re.compile(r"^[ACGTUNRYKMSWBDHVacgtunrykmswbdhv.\-*]*$")
_FASTQ_STEM_RE = re.compile(r"\.(?:fastq|fq)(?:\.gz|\.bz2)?$|\.gz$", re.IGNORECASE)
# (pattern, strong): a strong suffix (_R1, Illumina _R1_001) is trusted alone; a weak one
# (_1, .1) only when the mate file is among the inputs or the read ids agree.
_MATE_NAME_PATTERNS = (
    (re.compile(r"^(?P<sample>.+?)(?:_S\d+)?(?:_L(?P<lane>\d{3}))?_R(?P<mate>[12])_\d{3}$"), True),
    (re.compile(r"^(?P<sample>.+?)[_.\-][Rr](?P<mate>[12])$"), True),
    (re.compile(r"^(?P<sample>.+?)[_.](?P<mate>[12])$"), False),
)
_CASAVA_RE = re.compile(r"^([12]):[YN]:")


@dataclass(frozen=True)
class _MateName:
    sample: str
    mate: int | None
    strong: bool
    suffix: str  # the part of the name that gave the mate ("_R1", "_S1_L001_R1_001")
    stem: str
    lane: str | None = None

    @property
    def why(self) -> str:
        if self.suffix.startswith(os.sep):
            return f"file '{self.stem}' in directory '{self.sample}'"
        return f"name ends {self.suffix}"


def _fastq_stem(name: str) -> str:
    stem = _FASTQ_STEM_RE.sub("", name)
    return stem or name


def _mate_from_name(name: str, parent: str = "") -> _MateName:
    stem = _fastq_stem(name)
    bare = re.match(r"^(?:[Rr]|reads?_?)?(?P<mate>[12])(?:_\d{3})?$", stem)
    if bare and parent:  # sample_dir/R1.fastq.gz: the directory names the sample
        return _MateName(parent, int(bare.group("mate")), True, f"{os.sep}{stem}", parent)
    for pattern, strong in _MATE_NAME_PATTERNS:
        m = pattern.match(stem)
        if m:
            sample = m.group("sample")
            return _MateName(sample, int(m.group("mate")), strong, stem[len(sample):], stem,
                             m.groupdict().get("lane"))
    return _MateName(stem, None, False, "", stem)


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
    return None


@dataclass(frozen=True)
class _Notes:
    """What the cross-file pass needs to know beyond the SniffedFile."""

    mate_name: _MateName | None = None
    read_id_mate: int | None = None
    dmp_files: tuple[str, ...] = ()
    # a folder that stands for several inputs (one quantification folder per sample)
    expanded: tuple[SniffedFile, ...] = ()


def _bad_fastq(src: _Source, record: int, lineno: int, what: str) -> UnreadableInputError:
    return _unreadable(
        src.shown, f"not a valid FASTQ file: record {record} (line {lineno}) {what}",
        ["a FASTQ record is 4 lines: '@id', the bases, '+', one quality character per base",
         "check the file is complete (not truncated by a failed download)"],
        expected="FASTQ")


def _sniff_fastq(src: _Source) -> tuple[SniffedFile, _Notes]:
    lines = _Lines(src, _FASTQ_BUDGET, max_line=_FASTQ_BUDGET)  # long (nanopore) reads are one line
    it = iter(lines)
    lengths: list[int] = []
    qmin, qmax = 255, 0
    mates: list[int | None] = []
    first_header = ""
    for header in it:
        if not header.strip():
            if any(rest.strip() for rest in it):
                raise _bad_fastq(src, len(lengths) + 1, lines.lineno, "is a blank line inside the file")
            break
        rec = len(lengths) + 1
        start = lines.lineno
        seq, plus, qual = next(it, None), next(it, None), next(it, None)
        if qual is None:
            if not lines.complete:
                break  # budget reached inside a (long) record
            raise _bad_fastq(src, rec, start, "is truncated: the file ends before its 4 lines")
        if not header.startswith("@"):
            raise _bad_fastq(src, rec, start, f"should start with '@' but starts with {header[:20]!r}")
        if not plus.startswith("+"):
            raise _bad_fastq(src, rec, start + 2, f"should be the '+' separator but is {plus[:20]!r}")
        if not _SEQ_CHARS.match(seq):
            raise _bad_fastq(src, rec, start + 1, f"holds characters that are not bases: {seq[:20]!r}")
        if len(seq) != len(qual):
            raise _bad_fastq(src, rec, start + 3,
                             f"has {len(seq)} bases but {len(qual)} quality characters")
        if not first_header:
            first_header = header
        lengths.append(len(seq))
        if qual:
            qmin, qmax = min(qmin, min(map(ord, qual))), max(qmax, max(map(ord, qual)))
        mates.append(_mate_from_read_id(header))
        if len(lengths) >= _FASTQ_RECORDS:
            break
    if not lengths:
        raise _bad_fastq(src, 1, 1, "is missing: no complete record found")

    evidence = [f"FASTQ: {_n(len(lengths), 'well-formed 4-line record')} checked"] + _compression_evidence(src)
    lo, hi = min(lengths), max(lengths)
    span = f"{hi} bp" if lo == hi else f"{lo}-{hi} bp"
    are = "is" if len(lengths) == 1 else "are"
    facts = [Fact(name="read_length", value=hi, evidence=f"first {_n(len(lengths), 'read')} {are} {span}")]
    if qmin >= 64 and ord("J") < qmax <= ord("h"):  # 'J' = Q41 in phred33, 'h' = Q40 in phred64
        facts.append(Fact(name="quality_encoding", value="phred64",
                          evidence=f"quality characters '{chr(qmin)}'..'{chr(qmax)}' "
                                   "(all >= '@': Illumina 1.3-1.7 offset 64)"))
    else:
        facts.append(Fact(name="quality_encoding", value="phred33",
                          evidence=f"quality characters '{chr(qmin)}'..'{chr(qmax)}' (Sanger/Illumina 1.8+ offset 33)"))

    # mate from the read ids
    id_mate: int | None = None
    interleaved = False
    if mates and all(m == 1 for m in mates):
        id_mate = 1
    elif mates and all(m == 2 for m in mates):
        id_mate = 2
    elif len(mates) >= 2 and all(m == (1 if i % 2 == 0 else 2) for i, m in enumerate(mates)):
        interleaved = True
    first_id = first_header.split()[0] if first_header else ""
    shown_id = first_header if id_mate and not first_id.endswith(("/1", "/2")) else first_id
    shown_id = shown_id if len(shown_id) <= 60 else shown_id[:57] + "..."

    named = _mate_from_name(src.name, Path(os.path.abspath(src.path)).parent.name)
    if id_mate == 1 and named.mate == 2 and not named.strong:
        # "ctrl_2.fastq.gz" whose reads are all read 1: a replicate number, not a mate
        # (single-end Illumina reads are all read 1); a strong _R2 suffix still conflicts below
        named = dataclasses.replace(named, sample=named.stem, mate=None)
        evidence.append(f"'{src.name}': the _2 suffix is not a mate (every read id says read 1)")
    if id_mate and named.mate and id_mate != named.mate:
        raise _ambiguous(
            src.shown,
            f"the file name says mate {named.mate} ({named.why}) but the read ids say mate {id_mate} "
            f"(first read id {shown_id})",
            ["raw_reads mate 1", "raw_reads mate 2"],
            [f"rename the file so its _R1/_R2 suffix matches the read ids (mate {id_mate})",
             "check that the mate files were not swapped"])
    mate = id_mate or named.mate
    sample = named.sample if named.mate else named.stem
    if interleaved:
        facts.append(Fact(name="interleaved", value=True,
                          evidence="read ids alternate /1 and /2: both mates in one file"))
        evidence.append("interleaved paired-end reads (ids alternate mate 1 and mate 2)")
    if named.lane:
        facts.append(Fact(name="lane", value=f"L{named.lane}", evidence=named.why))
    if mate:
        why = []
        if named.mate:
            why.append(named.why)
        if id_mate:
            why.append(f"first read id {shown_id}")
        evidence.append(f"mate {mate} of sample '{sample}': " + ", ".join(why))
    else:
        evidence.append(f"sample '{sample}' from the file name; no mate suffix (_R1/_R2, _1/_2) "
                        "and no mate in read ids")
    fmt = "fastq.gz" if src.compression else "fastq"
    sniffed = SniffedFile(path=src.shown, datatype="raw_reads", format=fmt, evidence=tuple(evidence),
                          facts=tuple(facts), sample=sample, mate=mate)
    return sniffed, _Notes(mate_name=named, read_id_mate=id_mate)


# --------------------------------------------------------------------------- FASTA

_FASTA_ALLOWED = bytes(range(65, 91)) + bytes(range(97, 123)) + b"*-. \t\r\n"
_NUCLEOTIDES = frozenset(b"ACGTUNacgtun")
_CHROM_ID_RE = re.compile(r"^(?:chr)?(?:\d{1,2}[A-Za-z]?|[XYZW]|MT?|Un\S*|\S*_random|\S*_alt)$", re.IGNORECASE)
_CHROM_ACC_RE = re.compile(r"^(?:NC_|NT_|NW_|NZ_|AC_|CM\d|CP\d|GK\d|KI\d|JH\d|GL\d)")
_CHROM_DESC_RE = re.compile(r"dna(?:_sm|_rm)?:(?:chromosome|scaffold|primary_assembly)|\bchromosome\b|complete genome"
                            r"|complete sequence|\bscaffold\b|\bcontig\b|\bplasmid\b", re.IGNORECASE)
_TX_ID_RE = re.compile(r"^(?:ENS[A-Z]*T\d{6,}|FBtr\d{5,}|[NX][MR]_\d+|TRINITY_|transcript:|rna-)")
_TX_DESC_RE = re.compile(r"\bcdna\b|\bncrna\b|transcript_biotype:|\btranscript:|\bgene[:=]|\bgene_symbol:",
                         re.IGNORECASE)
_KRAKEN_TAXID_RE = re.compile(r"kraken:taxid\|(\d+)")
_BINOMIAL_RE = re.compile(r"^([A-Z][a-z]+) ([a-z]+\.?)\b")
_GENE_IN_HEADER_RE = re.compile(r"(?:ENS[A-Z]*G\d{6,}|FBgn\d{5,})")


_GENOME_NAME_RE = re.compile(r"genome|\bdna\b|[._]dna[._]|toplevel|primary_assembly|assembly|\bchr|[._-]chr|"
                             r"\bgrc[hm]\d+|\bhg\d{2}\b|\bmm\d{2}\b")
_TX_NAME_RE = re.compile(r"transcript|transcriptome|cdna|ncrna|\brna\b|[._]rna[._]|txome|gentrome|\btx\b")


def _transcript_like(header: str) -> bool:
    seq_id = header.split(maxsplit=1)[0] if header.strip() else ""
    if _TX_ID_RE.match(seq_id):
        return True
    if _TX_DESC_RE.search(header):
        return True
    return "|" in seq_id and bool(_GENE_IN_HEADER_RE.search(seq_id))


def _chromosome_like(header: str) -> bool:
    parts = header.split(maxsplit=1)
    if not parts:
        return False
    seq_id = parts[0]
    if _CHROM_ID_RE.match(seq_id) or _CHROM_ACC_RE.match(seq_id) or re.search("scaffold|contig", seq_id, re.I):
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
    short = f"{_n(len(lengths), 'sequence')} of at most {max(lengths)} letters"
    if found:
        return f"adapter sequences for trimming: {short}, holding {', '.join(found)}", [f.split()[0] for f in found]
    named_by = [n for n in [name, *headers[:50]] if _ADAPTER_NAME_RE.search(n)]
    if name and _ADAPTER_NAME_RE.search(name) or len(named_by) * 2 >= len(headers[:50]) + 1:
        return (f"adapter sequences for trimming: {short}, named as adapters ({_quote_list(named_by, 3)}); "
                "no known Illumina motif in them"), []
    return None


def _sniff_fasta(src: _Source, prefixes: Mapping[str, str]) -> SniffedFile:
    lines = _Lines(src, _FASTA_BUDGET)
    headers: list[str] = []
    lengths: list[int] = []
    current: int | None = None
    total = 0
    residues = bytearray()
    short_seqs: list[bytearray] = []  # each sequence, while the file could still be adapters
    for raw in lines.raw():
        if raw.startswith(b">"):
            if current is not None:
                lengths.append(current)
            current = 0
            if len(short_seqs) <= _ADAPTER_MAX_N:
                short_seqs.append(bytearray())
            if len(headers) < 5000:
                headers.append(_decode(raw[1:]).strip())
            else:
                headers.append("")  # only counted
            continue
        line = raw.strip()
        if not line:
            continue
        if current is None:
            raise _unreadable(src.shown,
                              f"not a valid FASTA file: line {lines.lineno} comes before the first '>' header",
                              ["a FASTA file starts with a '>name' line followed by sequence lines"], expected="FASTA")
        bad = line.translate(None, _FASTA_ALLOWED)
        if bad:
            raise _unreadable(src.shown, f"not a valid FASTA file: line {lines.lineno} holds characters that are not "
                              f"sequence letters ({_decode(bad[:10])!r})",
                              ["sequence lines may hold only letters (and '*', '-')"], expected="FASTA")
        current += len(line)
        total += len(line)
        if len(short_seqs) <= _ADAPTER_MAX_N and current <= _ADAPTER_MAX_LEN:
            short_seqs[-1] += line
        if len(residues) < 200_000:
            residues += line[:200_000]
    if current is not None:
        lengths.append(current)
    n = len(lengths)
    if n == 0:
        raise _unreadable(src.shown, "not a valid FASTA file: no '>' header found", expected="FASTA")
    if residues:
        nuc = sum(1 for b in residues if b in _NUCLEOTIDES) / len(residues)
        if nuc < 0.9:
            raise _unreadable(src.shown, f"holds protein sequences (only {nuc:.0%} of the letters are A/C/G/T/U/N)",
                              ["bioplan takes nucleotide FASTA: a genome, a transcriptome or reference genomes"])

    complete = lines.complete
    at_least = "" if complete else "at least "
    scope = "" if complete else f" (in the first {_FASTA_BUDGET >> 20} MB read)"
    facts = [
        Fact(name="n_sequences", value=n, evidence=f"{at_least}{_n(n, chr(39) + '>' + chr(39) + ' header')}{scope}"),
        Fact(name="total_length", value=total, evidence=f"{at_least}{total} sequence letters{scope}"),
        Fact(name="scanned_whole_file", value=complete,
             evidence="whole file read" if complete
             else f"stopped after {_FASTA_BUDGET >> 20} MB: counts are lower bounds"),
    ]
    named = [h for h in headers if h]
    ids = [h.split(maxsplit=1)[0] for h in named if h.split()]
    evidence = [f"FASTA: {at_least}{_n(n, 'sequence')}, {at_least}{total} letters, nucleotide alphabet"]
    evidence += _compression_evidence(src)
    fmt = "fasta.gz" if src.compression else "fasta"
    shown_ids = _quote_list(ids, 3)

    def done(datatype: str, why: str, extra: Sequence[Fact] = ()) -> SniffedFile:
        return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence + [why]),
                           facts=tuple(facts) + tuple(extra))

    adapter = _adapter_reading(src.name, named, lengths, [bytes(x) for x in short_seqs], complete)
    if adapter is not None:
        why, motifs = adapter
        return SniffedFile(path=src.shown, datatype="adapter_sequences", format=fmt,
                           evidence=tuple(evidence + [why]),
                           facts=tuple(facts) + (Fact(name="adapter_motifs", value=motifs,
                                                      evidence=f"known adapter motifs: {', '.join(motifs) or 'none'}"),))
    taxids = list(dict.fromkeys(m.group(1) for h in named for m in [_KRAKEN_TAXID_RE.search(h)] if m))
    if taxids:
        return done("reference_sequences", f"headers carry kraken:taxid ({_quote_list(taxids, 5)}): genomes for a "
                    f"classifier database",
                    [Fact(name="taxids", value=taxids[:20],
                          evidence=f"kraken:taxid| with {_n(len(taxids), 'distinct taxid')}")])
    species = list(dict.fromkeys(
        m.group(0) for h in named for parts in [h.split(maxsplit=1)] if len(parts) > 1
        for m in [_BINOMIAL_RE.match(parts[1])] if m and _CHROM_DESC_RE.search(parts[1])))
    if len(species) >= 2:
        return done("reference_sequences", f"genomes of {len(species)} species ({_quote_list(species, 4)}): a "
                    "collection for a classifier database")
    tx_share = sum(map(_transcript_like, named)) / max(1, len(named))
    chrom_share = sum(map(_chromosome_like, named)) / max(1, len(named))
    if tx_share >= 0.5 and tx_share >= chrom_share:
        extra = []
        gene_ids = [m.group(0) for h in named for m in [_GENE_IN_HEADER_RE.search(h)] if m]
        org = _organism_fact(gene_ids, prefixes, "gene ids in the headers") if gene_ids else None
        org = org or _organism_fact(ids, prefixes, "transcript ids", transcripts=True)
        if org:
            extra.append(org)
        return done("transcriptome",
                    f"transcript-like headers ({tx_share:.0%} of {len(named)}, e.g. {shown_ids})", extra)
    if chrom_share >= 0.5:
        return done("reference_genome", f"chromosome-like sequence names ({chrom_share:.0%} of {len(named)}, "
                    f"e.g. {shown_ids})")
    if n <= 500 and max(lengths) >= 1_000_000:
        return done("reference_genome", f"few long sequences (longest {max(lengths)} letters)")
    # the ids do not tell: the file name may (GRCh38.dna.toplevel.fa, gencode.transcripts.fa, ex1_genome.fa)
    name = src.name.lower()
    if _GENOME_NAME_RE.search(name) and not _TX_NAME_RE.search(name):
        return done("reference_genome", f"sequence names ({shown_ids}) do not tell; the file name "
                    f"'{src.name}' says genome ({_GENOME_NAME_RE.search(name).group(0)!r})")
    # a build in the name (Homo_sapiens.GRCh38.cdna.all.fa) names the assembly, not genome vs transcripts
    if _TX_NAME_RE.search(name) and not _GENOME_NAME_RE.search(re.sub(r"\bgrc[hm]\d+|\bhg\d{2}\b|\bmm\d{2}\b", "", name)):
        return done("transcriptome", f"sequence names ({shown_ids}) do not tell; the file name "
                    f"'{src.name}' says transcripts ({_TX_NAME_RE.search(name).group(0)!r})")
    readings = ["reference_genome", "transcriptome", "reference_sequences"]
    if max(lengths) <= _ADAPTER_MAX_LEN:  # short sequences without adapter motifs or names: maybe primers
        readings.append("adapter_sequences")
    raise _ambiguous(
        src.shown,
        f"FASTA with {at_least}{n} sequences named like {shown_ids}: cannot tell a genome from a transcriptome "
        "(names are neither chromosome-like nor transcript ids)",
        readings,
        ["name genome sequences like chromosomes (chr1, 1, X, MT, NC_...) or transcripts by their ids "
         "(ENST..., NM_...), or name the file after what it holds (genome.fa, transcripts.fa, adapters.fa)",
         f"or declare it: --input-type {src.shown}=reference_genome (or {', '.join(readings[1:])})"])


# --------------------------------------------------------------------------- GTF / GFF3

_GTF_GENE_RE = re.compile(r'(?:^|;)\s*gene_id\s+"([^"]*)"')
_GFF3_ATTR_RE = re.compile(r"(?:^|;)\s*(?:ID|Parent)=")
_GFF3_GENE_RE = re.compile(r"(?:^|;)\s*(?:gene_id=([^;]+)|ID=(?:gene[:-])?([^;]+))")


_CHR1_RE = re.compile(r"^(?:chr)?1$|^NC_000001\.\d+$|^NC_000067\.\d+$")  # chr1 of human and mouse, RefSeq too
_REFSEQ_SEQID_RE = re.compile(r"^N[CTW]_\d{6,}\.\d+$")
_TAXON_RE = re.compile(r"[?&]id=(\d+)")


def _seqid_style(seqids: Sequence[str]) -> tuple[str, str] | None:
    """('ucsc' | 'ensembl' | 'refseq', evidence) of the sequence names: chr1 / 1 / NC_000001.11."""
    if not seqids:
        return None
    if all(_REFSEQ_SEQID_RE.match(s) for s in seqids):
        return "refseq", f"RefSeq accessions as sequence names ({_quote_list(seqids, 3)})"
    if all(s.startswith("chr") for s in seqids):
        return "ucsc", f"chr-prefixed sequence names ({_quote_list(seqids, 3)})"
    if any(_CHROM_ID_RE.match(s) for s in seqids):
        return "ensembl", f"sequence names without 'chr' ({_quote_list(seqids, 3)})"
    return None


def _annotation_flavour(header: Sequence[str], seqids: Sequence[str], sources: Counter, gene_ids: Sequence[str],
                        prefixes: Mapping[str, str]) -> list[Fact]:
    """Who made an annotation (GENCODE, Ensembl, RefSeq/NCBI, UCSC), its gene id kind and sequence-name
    style, each with what says so: a GTF of one provider goes with that provider's genome and counts."""
    facts: list[Fact] = []
    text = " ".join(header).lower()
    ns, share = _namespace(gene_ids[:2000], prefixes)
    versioned = ns == "ensembl" and sum(bool(re.search(r"\.\d+$", g)) for g in gene_ids) > len(gene_ids) / 2
    top_sources = {k.lower() for k, _ in sources.most_common(3)}
    style = _seqid_style(seqids)
    if "gencode" in text:
        provider, why = "GENCODE", next(h for h in header if "gencode" in h.lower())
    elif "refseq" in text or "ncbi" in text or (style and style[0] == "refseq") or top_sources & {
            "bestrefseq", "gnomon", "refseq", "curated genomic"}:
        provider, why = "RefSeq", next((h for h in header if "refseq" in h.lower() or "ncbi" in h.lower()),
                                       style[1] if style and style[0] == "refseq"
                                       else f"source column {', '.join(sorted(top_sources))}")
    elif any(src.endswith("refgene") or src.endswith("ncbirefseq") for src in top_sources):
        provider, why = "UCSC", f"source column {', '.join(sorted(top_sources))} (UCSC's RefSeq genes)"
    elif ns == "ensembl" and versioned and style and style[0] == "ucsc":
        provider, why = "GENCODE", "versioned Ensembl gene ids on chr-prefixed sequences"
    elif ns == "ensembl":
        provider, why = "Ensembl", next((h for h in header if h.startswith("#!genome")),
                                        f"Ensembl gene ids ({_quote_list(list(gene_ids), 2)})")
    else:
        provider, why = None, ""
    if provider:
        facts.append(Fact(name="annotation_provider", value=provider, evidence=f"{provider} annotation: {why}"))
    if gene_ids and ns != "unknown":
        facts.append(Fact(name="id_namespace", value=ns, evidence=f"gene ids like {_quote_list(list(gene_ids), 3)} "
                          f"({share:.0%} {_NAMESPACE_WORDS[ns]}" + (", versioned)" if versioned else ")")))
    if style:
        facts.append(Fact(name="seqid_style", value=style[0], evidence=style[1]))
    taxon = next((m.group(1) for h in header if h.startswith("##species") for m in [_TAXON_RE.search(h)] if m), None)
    if taxon:
        facts.append(Fact(name="taxon_id", value=int(taxon), evidence=f"##species header names NCBI taxon {taxon}"))
    return facts


def _gff_fields(line: str) -> list[str] | None:
    f = line.split("\t")
    if len(f) != 9 or not f[3].isdigit() or not f[4].isdigit() or f[6] not in ("+", "-", ".", "?"):
        return None
    return f


def _looks_like_gff(text_lines: Sequence[str]) -> bool:
    body = [ln for ln in text_lines if ln.strip() and not ln.startswith("#")][:20]
    return bool(body) and all(_gff_fields(ln) for ln in body)


def _sniff_gff(src: _Source, prefixes: Mapping[str, str]) -> SniffedFile:
    declared = None
    gtf = gff3 = n = 0
    header: list[str] = []
    regions: list[list[str]] = []  # ##sequence-region seqid start end
    sources: Counter = Counter()  # column 2: ensembl, havana, BestRefSeq, refGene, ...
    seqids: list[str] = []
    gene_ids: list[str] = []
    lines = _Lines(src, _GFF_BUDGET)
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("#"):
            if line.startswith(("#!genome-build", "#!genome-version", "##description:", "##provider:",
                                "##genome-build", "#!annotation-source", "#!processor", "##species")):
                header.append(line.strip())  # Ensembl / GENCODE / NCBI build headers (issue 14)
            if line.startswith("##sequence-region") and len(line.split()) == 4:
                regions.append(line.split()[1:])
            if line.startswith("##gff-version"):
                parts = line.split()
                declared = parts[1] if len(parts) > 1 else "?"
            if line.startswith("##FASTA"):
                break
            continue
        f = _gff_fields(line)
        if f is None:
            raise _unreadable(src.shown, f"not a valid GTF/GFF file: line {lines.lineno} is not 9 tab-separated "
                              "columns (seqid, source, type, start, end, score, strand, phase, attributes)",
                              ["check the file is tab-separated and complete"], expected="GTF/GFF3")
        if f[0] not in seqids and len(seqids) < 10:
            seqids.append(f[0])
        sources[f[1]] += 1
        m = _GTF_GENE_RE.search(f[8])
        if m:
            gtf += 1
            gene_ids.append(m.group(1))
        elif _GFF3_ATTR_RE.search(f[8]) or "=" in f[8]:
            gff3 += 1
            g = _GFF3_GENE_RE.search(f[8])
            if g and (g.group(1) or f[2] == "gene"):
                gene_ids.append((g.group(1) or g.group(2)).strip())
        n += 1
        if n >= _GFF_LINES:
            break
    if n == 0:
        raise _unreadable(src.shown, "GTF/GFF file with a header but no feature lines", expected="GTF/GFF3")
    evidence = _compression_evidence(src)
    if (declared or "").startswith("3") and gff3 >= gtf:
        fmt, why = "gff3", f"'##gff-version {declared}' header and ID=/Parent= attributes"
    elif gff3 > gtf:
        fmt, why = "gff3", f"key=value attributes (ID=/Parent=) on {gff3} of {n} lines"
    elif gtf:
        fmt, why = "gtf", f'gene_id "..." attributes on {gtf} of {n} lines'
    else:
        raise _unreadable(src.shown, "9-column annotation whose attributes are neither GTF (gene_id \"...\";) nor "
                          "GFF3 (ID=...;Parent=...)", ["give an Ensembl/GENCODE GTF or a GFF3 file"],
                          expected="GTF/GFF3")
    facts = [Fact(name="seqids", value=seqids, evidence=f"first sequence names: {_quote_list(seqids, 5)}")]
    chr_prefixed = bool(seqids) and all(s.startswith("chr") for s in seqids)
    chr1_length = next((int(end) for seqid, start, end in regions
                        if _CHR1_RE.match(seqid) and start == "1" and end.isdigit()), None)
    if header or chr_prefixed or chr1_length:
        clues = ([f"chr1 length {chr1_length} (##sequence-region)"] if chr1_length else []) + header[:2] + (
            ["chr-prefixed sequence names"] if chr_prefixed else [])
        facts.append(Fact(name="assembly", value={"chr1_length": chr1_length, "texts": header[:4],
                                                  "chr_prefixed": chr_prefixed},
                          evidence="genome build clues: " + "; ".join(clues)))
    facts += _annotation_flavour(header, seqids, sources, gene_ids, prefixes)
    org = _organism_fact(gene_ids, prefixes, "gene ids")
    if org:
        facts.append(org)
    facts += _compressed_fact(src)
    evidence = [f"{fmt.upper()}: {why}"] + evidence
    if org:
        evidence.append(org.evidence)
    return SniffedFile(path=src.shown, datatype="gene_annotation", format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts))


# --------------------------------------------------------------------------- VCF / BCF

_ANNOTATION_INFO = ("ANN", "CSQ", "BCSQ", "EFF")
_INFO_ID_RE = re.compile(r"^##INFO=<ID=([^,>]+)")


def _vcf_result(src: _Source, fmt: str, info_ids: set[str], samples: list[str], n: int, complete: bool,
                evidence: list[str]) -> SniffedFile:
    ann = [i for i in _ANNOTATION_INFO if i in info_ids]
    more = "" if complete else "+"
    facts = [
        Fact(name="samples", value=samples,
             evidence=f"#CHROM line lists {_n(len(samples), 'sample')}"
             + (f": {_quote_list(samples)}" if samples else "")),
        Fact(name="n_variants_seen", value=n,
             evidence=f"{n}{more} variant record{'' if n == 1 and not more else 's'} read"
             + ("" if complete else " (stopped reading there)")),
    ]
    if fmt == "vcf.gz":
        facts.append(Fact(name="bgzipped", value=src.bgzf,
                          evidence="BGZF blocks (indexable with tabix)" if src.bgzf
                          else "plain gzip, not bgzip: not indexable"))
    index = next((src.shown + ext for ext in (".tbi", ".csi") if os.path.exists(str(src.path) + ext)), None)
    if index:
        facts.append(Fact(name="index", value=index, evidence=f"{index} next to it"))
        evidence.append(f"indexed ({Path(index).name} next to it)")
        if os.path.getmtime(str(src.path) + index[len(src.shown):]) < os.path.getmtime(src.path):
            # htslib warns and region queries may read the wrong blocks
            facts.append(Fact(name="index_stale", value=True,
                              evidence=f"{Path(index).name} is older than the data: re-index it "
                                       f"(bcftools index -f {src.shown})"))
    if ann:
        datatype = "annotated_variants"
        evidence.append(f"header declares INFO/{ann[0]} (consequence annotation)")
    else:
        datatype = "variant_calls"
        evidence.append("no ANN/CSQ/BCSQ INFO in the header: not yet annotated")
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence), facts=tuple(facts))


def _sniff_vcf(src: _Source) -> SniffedFile:
    info_ids: set[str] = set()
    samples: list[str] | None = None
    version = ""
    assembly_lines: list[str] = []  # ##reference, ##assembly, ##contig: which genome build (issue 14)
    first_chrom = ""
    n = 0
    lines = _Lines(src, _VCF_BUDGET)
    for line in lines:
        if line.startswith("##"):
            m = _INFO_ID_RE.match(line)
            if m:
                info_ids.add(m.group(1))
            elif line.startswith("##fileformat="):
                version = line.split("=", 1)[1]
            elif line.startswith(("##reference=", "##assembly=", "##contig=<")):
                assembly_lines.append(line)
            continue
        if line.startswith("#CHROM"):
            cols = line.split("\t")
            if cols[:8] != ["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO"]:
                raise _unreadable(src.shown, f"not a valid VCF file: the #CHROM line (line {lines.lineno}) is not "
                                  "tab-separated #CHROM POS ID REF ALT QUAL FILTER INFO", expected="VCF")
            samples = cols[9:]
            continue
        if not line.strip():
            continue
        if samples is None:
            raise _unreadable(src.shown, f"not a valid VCF file: line {lines.lineno} is a record but no #CHROM header "
                              "line came before it", expected="VCF")
        f = line.split("\t")
        first_chrom = first_chrom or f[0]
        if len(f) < 8 or not f[1].isdigit():
            raise _unreadable(src.shown, f"not a valid VCF file: line {lines.lineno} is not a record of at least 8 "
                              "tab-separated columns with a numeric POS", expected="VCF")
        n += 1
        if n >= _VCF_RECORDS:
            break
    if samples is None:
        raise _unreadable(src.shown, "not a valid VCF file: no #CHROM header line", expected="VCF")
    fmt = "vcf.gz" if src.compression else "vcf"
    evidence = [f"VCF ({version or 'version not declared'})"] + _compression_evidence(src)
    result = _vcf_result(src, fmt, info_ids, samples, n, lines.complete and n < _VCF_RECORDS, evidence)
    assembly = _vcf_assembly_fact(assembly_lines, first_chrom)
    return result.model_copy(update={"facts": result.facts + (assembly,)}) if assembly else result


_CONTIG_CHR1_RE = re.compile(r"^##contig=<ID=(?:chr)?1,(?:.*,)?length=(\d+)")


def _vcf_assembly_fact(header: list[str], first_chrom: str) -> Fact | None:
    """The genome build clues of a VCF header: chr1's length (##contig) and the ##reference/##assembly
    texts; chr-prefixed names from the contigs or the first record."""
    length = next((int(m.group(1)) for ln in header if (m := _CONTIG_CHR1_RE.match(ln))), None)
    texts = [ln.split("=", 1)[1] for ln in header if ln.startswith(("##reference=", "##assembly="))]
    texts += sorted({m.group(1) for ln in header if (m := re.search(r"assembly=\"?([^,>\"]+)", ln))})
    contigs = [ln[len("##contig=<ID="):].split(",", 1)[0] for ln in header if ln.startswith("##contig=<ID=")]
    chr_prefixed = (contigs[0] if contigs else first_chrom).startswith("chr")
    if length is None and not texts and not (contigs or first_chrom):
        return None
    said = [f"chr1 length {length}"] if length else []
    return Fact(name="assembly", value={"chr1_length": length, "texts": texts[:3], "chr_prefixed": chr_prefixed},
                evidence="genome build clues: " + "; ".join(said + texts[:2] + [
                    "chr-prefixed sequence names" if chr_prefixed else "sequence names without 'chr'"]))


def _read_exact(fh: IO[bytes], n: int, shown: str) -> bytes:
    try:
        return fh.read(n)
    except (OSError, EOFError, zlib.error) as exc:
        raise _corrupt(shown, exc) from None


def _sniff_bcf(src: _Source) -> SniffedFile:
    with src.open() as fh:
        magic = _read_exact(fh, 9, src.shown)
        (l_text,) = struct.unpack("<I", magic[5:9]) if len(magic) == 9 else (None,)
        if l_text is None or l_text > _BAM_HEADER_MAX:
            raise _unreadable(src.shown, "BCF file whose header is truncated or corrupt", expected="BCF")
        text = _read_exact(fh, l_text, src.shown)
        if len(text) < l_text:
            raise _unreadable(src.shown, "BCF file whose header is truncated", expected="BCF")
        info_ids: set[str] = set()
        samples: list[str] = []
        for line in _decode(text.rstrip(b"\x00")).splitlines():
            m = _INFO_ID_RE.match(line)
            if m:
                info_ids.add(m.group(1))
            elif line.startswith("#CHROM"):
                samples = line.split("\t")[9:]
        n = 0
        complete = False
        while n < _VCF_RECORDS:
            lens = _read_exact(fh, 8, src.shown)
            if len(lens) < 8:
                complete = True
                break
            l_shared, l_indiv = struct.unpack("<II", lens)
            body = _read_exact(fh, l_shared + l_indiv, src.shown)
            if len(body) < l_shared + l_indiv:
                break
            n += 1
    evidence = [f"BCF (binary VCF, version {magic[3]}.{magic[4]})"] + _compression_evidence(src)
    return _vcf_result(src, "bcf", info_ids, samples, n, complete, evidence)


# --------------------------------------------------------------------------- SAM / BAM / CRAM

_SAM_HEADER_RE = re.compile(r"^@(?:HD|SQ|RG|PG|CO)\t")
_CIGAR_RE = re.compile(r"^(?:\*|(?:\d+[MIDNSHP=X])+)$")


def _looks_like_sam_record(line: str) -> bool:
    f = line.split("\t")
    return (len(f) >= 11 and f[1].isdigit() and f[3].isdigit() and f[4].isdigit() and bool(_CIGAR_RE.match(f[5])))


def _alignment_result(src: _Source, fmt: str, header: str | None, evidence: list[str]) -> SniffedFile:
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
                      evidence=f"@RG SM: {_quote_list(samples)}" if samples else "no @RG read group with SM"))
    if len(samples) == 1:
        sample = samples[0]
    evidence.append(f"{_n(n_ref, 'reference sequence')} (@SQ), sort order {sort_order}")
    return SniffedFile(path=src.shown, datatype="aligned_reads", format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts), sample=sample)


def _sniff_bam(src: _Source) -> SniffedFile:
    with src.open() as fh:
        pre = _read_exact(fh, 8, src.shown)
        if len(pre) < 8:
            raise _unreadable(src.shown, "BAM file whose header is truncated", expected="BAM")
        (l_text,) = struct.unpack("<i", pre[4:8])
        if l_text < 0:
            raise _unreadable(src.shown, "BAM file with a corrupt header length", expected="BAM")
        text = _read_exact(fh, min(l_text, _BAM_HEADER_MAX), src.shown)
    evidence = ["BAM: BGZF-compressed with 'BAM\\1' magic" if src.bgzf else "BAM: gzip-compressed with 'BAM\\1' magic"]
    return _alignment_result(src, "bam", _decode(text.rstrip(b"\x00")), evidence)


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
        if method == 1:
            block = gzip.decompress(block)
        elif method != 0:
            return None
        (l_text,) = struct.unpack("<i", block[:4])
        return _decode(block[4:4 + l_text].rstrip(b"\x00"))
    except (IndexError, struct.error, OSError, EOFError, zlib.error):
        return None


def _sniff_cram(src: _Source) -> SniffedFile:
    version = f"{src.magic[4]}.{src.magic[5]}" if len(src.magic) > 5 else "?"
    data = src.magic
    if len(data) >= _HEAD_BYTES:  # a header with many @SQ lines can outgrow the head
        with src.open() as fh:
            data = _read_exact(fh, _BAM_HEADER_MAX, src.shown)
    return _alignment_result(src, "cram", _cram_header(data), [f"CRAM {version} ('CRAM' magic)"])


def _sniff_sam(src: _Source) -> SniffedFile:
    header: list[str] = []
    lines = _Lines(src, _BAM_HEADER_MAX)
    first_record = None
    for line in lines:
        if line.startswith("@"):
            header.append(line)
            continue
        if line.strip():
            first_record = line
            break
    if first_record is not None and not _looks_like_sam_record(first_record):
        raise _unreadable(src.shown, f"not a valid SAM file: line {lines.lineno} is not an alignment record of 11 "
                          "tab-separated columns", expected="SAM")
    evidence = ["SAM text: @HD/@SQ header lines" if header else "SAM text: 11-column alignment records"]
    evidence += _compression_evidence(src)
    return _alignment_result(src, "sam", "\n".join(header), evidence)


# --------------------------------------------------------------------------- h5ad


def _attr_str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _h5_strings(ds: Any, limit: int) -> list[str]:
    return [_attr_str(v) for v in ds[:limit]]


def _sniff_hdf5(src: _Source, prefixes: Mapping[str, str]) -> SniffedFile:
    try:
        import h5py
        import numpy as np
    except ImportError:
        raise _unreadable(src.shown, "is an HDF5 file (AnnData .h5ad?) but reading it needs the Python package h5py",
                          ["install h5py (pip install h5py) in bioplan's environment"]) from None
    try:
        with h5py.File(src.path, "r") as f:
            return _sniff_h5ad(src, f, h5py, np, prefixes)
    except BioplanError:
        raise
    except Exception as exc:  # h5py/HDF5 raise OSError, KeyError, RuntimeError ... on damaged files
        raise _unreadable(src.shown, f"HDF5 file that could not be read as AnnData ({exc})",
                          ["write it with anndata (adata.write_h5ad(path))"], expected="h5ad") from None


_STATE_WORDS = {"raw_counts": "raw counts", "log_normalized": "log-normalised", "scaled": "scaled (z-scores)",
                "normalized": "normalised (non-integer)"}


def _h5_matrix_sample(src: _Source, node: Any, h5py: Any, np: Any, where: str) -> tuple[tuple[int, int], Any, str]:
    """(shape, first stored values, layout) of a dense or sparse matrix of an AnnData file."""
    if isinstance(node, h5py.Dataset):
        shape = tuple(int(s) for s in node.shape)
        if len(shape) != 2:
            raise _unreadable(src.shown, f"AnnData {where} has {len(shape)} dimensions, expected 2", expected="h5ad")
        rows = min(shape[0], max(1, _H5_SAMPLE // max(1, shape[1])))
        return shape, np.asarray(node[:rows]).ravel(), "dense"
    enc = _attr_str(node.attrs.get("encoding-type", "sparse"))
    raw_shape = node.attrs.get("shape", node.attrs.get("h5sparse_shape"))
    if raw_shape is None or "data" not in node:
        raise _unreadable(src.shown, f"AnnData {where} is a group without a sparse matrix shape/data", expected="h5ad")
    return tuple(int(s) for s in raw_shape), np.asarray(node["data"][:_H5_SAMPLE]), enc.replace("_matrix", "").upper()


def _value_state(sample: Any, np: Any, log1p: bool) -> tuple[str, str]:
    """What a matrix's values are: raw_counts, log_normalized, scaled or normalized, and why."""
    n = int(sample.size)
    if n == 0:
        return "raw_counts", "no stored values (all zero)"
    if np.issubdtype(sample.dtype, np.integer):
        if bool((sample >= 0).all()):
            return "raw_counts", f"integer values in all {n} values checked"
    finite = np.isfinite(sample)
    if not finite.all():
        return "normalized", f"non-finite values among the first {n}"
    if (sample < 0).any():
        neg = float(sample[sample < 0][0])
        return "scaled", f"negative values (e.g. {neg:g}) in the first {n}: centred and scaled, not counts"
    frac = np.mod(sample, 1) != 0
    if not frac.any():
        return "raw_counts", f"integer values in all {n} values checked"
    example = float(sample[frac][0])
    top = float(sample.max())
    if log1p or top < 30:
        why = "uns['log1p'] is set" if log1p else f"non-integer values up to {top:g}"
        return "log_normalized", f"{why} (e.g. {example:g})"
    return "normalized", f"non-integer values (e.g. {example:g}) up to {top:g}"


def _sniff_kallisto_h5(src: _Source, f: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """kallisto's abundance.h5: est_counts and aux/ids (transcript ids), lengths, bootstraps."""
    ids = _h5_strings(f["aux"]["ids"], 2000) if "ids" in f["aux"] else []
    n = int(f["est_counts"].shape[0])
    version = _attr_str(f["aux"]["kallisto_version"][()]) if "kallisto_version" in f["aux"] else ""
    boots = int(f["aux"]["num_bootstrap"][0]) if "num_bootstrap" in f["aux"] else 0
    layout = next(q for q in _QUANT_LAYOUTS if q.tool == "kallisto")
    sample, why = _quant_sample(src.path)
    evidence = [f"kallisto HDF5 output: est_counts for {n} transcripts, aux/ids"
                + (f" (kallisto {version})" if version else "") + (f", {boots} bootstraps" if boots else ""), why]
    return SniffedFile(path=src.shown, datatype="transcript_quantification", format=layout.format,
                       evidence=tuple(evidence), facts=tuple(_quant_facts(layout, n, ids, prefixes, version)),
                       sample=sample)


def _sniff_10x_h5(src: _Source, m: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """Cell Ranger's filtered_feature_bc_matrix.h5: matrix/{data,indices,indptr,shape,barcodes,features}."""
    if "shape" not in m or "data" not in m:
        raise _unreadable(src.shown, "HDF5 file with a 'matrix' group that is not a 10x Genomics matrix (no "
                          "shape/data)", ["give Cell Ranger's filtered_feature_bc_matrix.h5 unchanged"],
                          expected="10x HDF5 matrix")
    n_genes, n_cells = (int(x) for x in m["shape"][:2])
    sample = np.asarray(m["data"][:_H5_SAMPLE])
    integer = bool(np.issubdtype(sample.dtype, np.integer) or np.all(np.mod(sample, 1) == 0))
    ids = []
    if "features" in m and "id" in m["features"]:
        ids = _h5_strings(m["features"]["id"], 2000)
    elif "genes" in m:  # Cell Ranger 2
        ids = _h5_strings(m["genes"], 2000)
    evidence = [f"10x Genomics HDF5 matrix (Cell Ranger): {n_genes} features x {n_cells} barcodes, "
                f"{'integer UMI counts' if integer else 'non-integer values'}"]
    facts = [Fact(name="n_cells", value=n_cells, evidence=f"matrix/shape: {n_cells} barcodes"),
             Fact(name="n_genes", value=n_genes, evidence=f"matrix/shape: {n_genes} features"),
             Fact(name="integer_counts", value=integer, evidence=f"matrix/data is {sample.dtype}"),
             Fact(name="x_state", value="raw_counts" if integer else "normalized", evidence=f"matrix/data is {sample.dtype}")]
    org = _organism_fact(ids, prefixes, "feature ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    return SniffedFile(path=src.shown, datatype="single_cell_matrix" if integer else "normalized_single_cell_matrix",
                       format="10x_h5", evidence=tuple(evidence), facts=tuple(facts))


# obs columns holding a clustering (scanpy's leiden/louvain keys, Seurat's clusters) and cell labels
_CLUSTERING_COLUMN_RE = re.compile(r"^(?:leiden|louvain)|^(?:seurat_)?clusters?$|^RNA_snn_res", re.IGNORECASE)
_CELL_LABEL_COLUMN_RE = re.compile(r"^(?:cell_?types?|cell_?type_\w+|celltypes?|\w*_labels?|labels?|annotations?|"
                                   r"cell_ontology_class|predicted_(?:cell_?type|labels?)\w*)$", re.IGNORECASE)


def _sniff_h5ad(src: _Source, f: Any, h5py: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    keys = set(f.keys())
    if {"aux", "est_counts"} <= keys:
        return _sniff_kallisto_h5(src, f, np, prefixes)
    if "matrix" in keys and isinstance(f["matrix"], h5py.Group):
        return _sniff_10x_h5(src, f["matrix"], np, prefixes)
    if not {"obs", "var"} <= keys or "X" not in keys:
        raise _unreadable(src.shown, f"HDF5 file without the AnnData groups obs, var and X (has {sorted(keys)[:6]})",
                          ["give an AnnData file written with adata.write_h5ad(path)"], expected="h5ad")
    shape, sample, layout = _h5_matrix_sample(src, f["X"], h5py, np, "X")
    n_cells, n_genes = shape
    if n_cells == 0 or n_genes == 0:
        raise _unreadable(src.shown, f"AnnData with {n_cells} cells x {n_genes} genes: nothing to analyse",
                          expected="h5ad")
    log1p = "uns" in keys and isinstance(f["uns"], h5py.Group) and "log1p" in f["uns"]
    x_state, x_why = _value_state(sample, np, log1p)
    integer = x_state == "raw_counts"
    n_seen = int(sample.size)

    obs = f["obs"]
    if isinstance(obs, h5py.Group):
        columns = [k for k in obs.keys() if not k.startswith("_")]
        if "__categories" in obs:  # anndata 0.7 stored categoricals' levels apart
            columns += [k for k in obs["__categories"].keys() if k not in columns]
    else:  # anndata < 0.7: obs as a compound dataset
        columns = list(obs.dtype.names or ())
    clusters = [c for c in columns if _CLUSTERING_COLUMN_RE.match(c)]
    labels = [c for c in columns if c not in clusters and _CELL_LABEL_COLUMN_RE.match(c)]

    evidence = [f"AnnData: {n_cells} cells x {n_genes} genes, X {layout} {sample.dtype}"]
    facts = [
        Fact(name="n_cells", value=n_cells, evidence=f"X has {n_cells} rows (cells)"),
        Fact(name="n_genes", value=n_genes, evidence=f"X has {n_genes} columns (genes)"),
        Fact(name="integer_counts", value=integer, evidence=f"X: {x_why}"),
        Fact(name="x_state", value=x_state, evidence=f"X: {x_why}"),
    ]
    evidence.append(f"X is {_STATE_WORDS[x_state]}: {x_why}")
    counts_at = "X" if integer else None
    # .raw: the group raw/ (anndata >= 0.7) or the dataset raw.X (older files, e.g. scanpy's pbmc68k_reduced)
    raw_x = f["raw"]["X"] if "raw" in keys and isinstance(f["raw"], h5py.Group) and "X" in f["raw"] else \
        f["raw.X"] if "raw.X" in keys else None
    if raw_x is not None:
        _, raw_sample, _ = _h5_matrix_sample(src, raw_x, h5py, np, "raw/X")
        raw_state, raw_why = _value_state(raw_sample, np, False)
        facts.append(Fact(name="raw_state", value=raw_state, evidence=f".raw present; raw/X: {raw_why}"))
        evidence.append(f".raw present, holding {_STATE_WORDS[raw_state]} ({raw_why})")
        if raw_state == "raw_counts" and counts_at is None:
            counts_at = "raw"
    layers: dict[str, str] = {}
    if "layers" in keys and isinstance(f["layers"], h5py.Group):
        for name in sorted(f["layers"].keys()):
            _, lsample, _ = _h5_matrix_sample(src, f["layers"][name], h5py, np, f"layers/{name}")
            layers[name] = _value_state(lsample, np, False)[0]
        if layers:
            shown = ", ".join(f"{k} ({_STATE_WORDS[v]})" for k, v in layers.items())
            facts.append(Fact(name="layers", value=layers, evidence=f"layers: {shown}"))
            evidence.append(f"layers: {shown}")
            if counts_at is None:
                counts_at = next((f"layers/{k}" for k, v in layers.items() if v == "raw_counts"), None)
    facts.append(Fact(name="raw_counts_at", value=counts_at,
                      evidence=f"raw counts in {counts_at}" if counts_at else
                      "no raw counts in X, .raw or a layer: steps that need counts (QC, normalisation) cannot run"))
    obsm: list[str] = []
    if "obsm" in keys:  # a group, or a compound dataset in files of anndata < 0.7
        node = f["obsm"]
        obsm = list(node.keys()) if isinstance(node, h5py.Group) else list(node.dtype.names or ())
    if obsm:
        facts.append(Fact(name="embeddings", value=obsm, evidence=f"obsm holds {_quote_list(obsm, 4)}"))
        evidence.append(f"obsm holds {_quote_list(obsm, 4)}")

    var = f["var"]
    if isinstance(var, h5py.Group):
        index_name = _attr_str(var.attrs.get("_index", "_index"))
        gene_ids: list[str] = []
        for name in (index_name, "gene_ids", "gene_id", "ensembl_id"):
            if name in var and isinstance(var[name], h5py.Dataset) and var[name].dtype.kind in "SOU":
                gene_ids = _h5_strings(var[name], 2000)
                if _namespace(gene_ids, prefixes)[0] == "ensembl":
                    break
        if gene_ids:
            ns, _ = _namespace(gene_ids, prefixes)
            facts.append(Fact(name="id_namespace", value=ns, evidence=f"var names like {_quote_list(gene_ids, 3)}"))
            org = _organism_fact(gene_ids, prefixes, "var gene ids")
            if org:
                facts.append(org)
                evidence.append(org.evidence)

    if clusters:
        # existing clusters are a fact about the file; what the data is comes from its values
        evidence.append(f"obs has earlier clustering column(s) {_quote_list(clusters)} (kept; a new clustering "
                        "is added beside them)")
        facts.append(Fact(name="cluster_columns", value=clusters, evidence=f"obs columns {_quote_list(clusters)}"))
    if labels:
        # published cell labels (cell types, bulk labels): groups markers can be found for too
        evidence.append(f"obs has cell label column(s) {_quote_list(labels)}")
        facts.append(Fact(name="label_columns", value=labels, evidence=f"obs columns {_quote_list(labels)}"))
    if integer:
        datatype = "single_cell_matrix"
        evidence.append("raw counts in X: the analysis starts with QC")
    else:
        datatype = "normalized_single_cell_matrix"
        evidence.append(f"X is already {_STATE_WORDS[x_state]}: the analysis starts after normalisation")
    return SniffedFile(path=src.shown, datatype=datatype, format="h5ad", evidence=tuple(evidence), facts=tuple(facts))


# --------------------------------------------------------------------------- taxonomy dump, Kraken2 DB

_DMP_SEP = "\t|\t"
_K2D_FILES = ("hash.k2d", "opts.k2d", "taxo.k2d")
_DMP_FILES = ("nodes.dmp", "names.dmp")


def _dmp_kind(shown: str, first_line: str, name: str) -> str:
    f = first_line.rstrip("\t|").split(_DMP_SEP)
    if name in _DMP_FILES:
        kind = name
    elif len(f) >= 3 and f[1].isdigit():
        kind = "nodes.dmp"
    elif len(f) >= 4 and "name" in f[-1]:
        kind = "names.dmp"
    else:
        kind = ""
    if not f[0].isdigit() or not kind or (kind == "nodes.dmp" and not (len(f) >= 3 and f[1].isdigit())):
        raise _unreadable(shown, "'\\t|\\t'-separated file that is neither an NCBI nodes.dmp (taxid | parent | rank) "
                          "nor names.dmp (taxid | name | unique name | class)",
                          ["give the directory holding nodes.dmp and names.dmp from NCBI taxdump.tar.gz"],
                          expected="taxonomy dump")
    return kind


def _first_line(path: Path, shown: str) -> str:
    try:
        with open(path, "rb") as fh:
            return _decode(fh.readline(_MAX_LINE)).rstrip("\r\n")
    except OSError as exc:
        raise _unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None


def _sniff_dmp_file(src: _Source, first: str) -> tuple[SniffedFile, _Notes]:
    kind = _dmp_kind(src.shown, first, src.name)
    other = "names.dmp" if kind == "nodes.dmp" else "nodes.dmp"
    sniffed = SniffedFile(
        path=src.shown, datatype="taxonomy_dump", format=FMT_TAXONOMY_DUMP,
        evidence=(f"NCBI taxonomy {kind}: '\\t|\\t'-separated rows starting with a taxid",
                  f"a complete dump also needs {other}"),
        facts=(Fact(name="files", value=[kind], evidence=f"{kind} only"),))
    return sniffed, _Notes(dmp_files=(kind,))


# --------------------------------------------------------------------------- 10x Genomics matrices

_INDEX_SUFFIXES = (".tbi", ".csi", ".bai", ".crai", ".fai")
_MTX_RE = re.compile(r"^(?P<prefix>.*?)matrix\.mtx(?:\.gz)?$")
_MTX_PARTS = ("barcodes.tsv", "features.tsv", "genes.tsv")


def _mtx_siblings(folder: Path, prefix: str, present: set[str]) -> dict[str, str]:
    """Barcodes and features/genes files next to a matrix.mtx, with the same name prefix."""
    found = {}
    for part in _MTX_PARTS:
        for name in (f"{prefix}{part}", f"{prefix}{part}.gz"):
            if name in present:
                found["features" if part != "barcodes.tsv" else "barcodes"] = name
                break
    return found


def _mtx_header(path: Path, shown: str) -> tuple[str, int, int, int]:
    """(field type, rows, columns, entries) of a MatrixMarket coordinate file."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            banner = fh.readline()
            line = fh.readline()
            while line.startswith("%"):
                line = fh.readline()
    except (OSError, EOFError, zlib.error) as exc:
        raise _corrupt(shown, exc) from None
    fields = banner.lower().split()
    size = line.split()
    if len(fields) < 4 or fields[0] != "%%matrixmarket" or fields[2] != "coordinate" or len(size) != 3 \
            or not all(x.isdigit() for x in size):
        raise _unreadable(shown, "not a MatrixMarket coordinate matrix (first line '%%MatrixMarket matrix "
                          "coordinate integer general', then 'rows columns entries')", expected="10x matrix.mtx")
    return fields[3], int(size[0]), int(size[1]), int(size[2])


def _mtx_result(shown: str, folder: Path, matrix: str, parts: dict[str, str],
                prefixes: Mapping[str, str], what: str) -> SniffedFile:
    field, n_rows, n_cols, nnz = _mtx_header(folder / matrix, os.path.join(shown, matrix) if what == "folder"
                                             else shown)
    missing = [p for p in ("barcodes", "features") if p not in parts]
    if missing:
        raise _unreadable(shown, f"10x matrix without its {' and '.join(missing)} file (next to {matrix})",
                          ["keep matrix.mtx.gz, barcodes.tsv.gz and features.tsv.gz (genes.tsv for Cell Ranger 2) "
                           "together in one folder"], expected="10x MTX folder")
    gene_ids: list[str] = []
    try:
        opener = gzip.open if parts["features"].endswith(".gz") else open
        with opener(folder / parts["features"], "rt", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                gene_ids.append(line.split("\t", 1)[0].strip())
                if len(gene_ids) >= 2000:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise _corrupt(os.path.join(shown, parts["features"]), exc) from None
    integer = field == "integer"
    evidence = [f"10x Genomics MTX {what}: {matrix} ({n_rows} genes x {n_cols} barcodes, {nnz} non-zero "
                f"{field} entries) with {parts['barcodes']} and {parts['features']}"]
    facts = [Fact(name="n_cells", value=n_cols, evidence=f"{matrix} has {n_cols} columns (barcodes)"),
             Fact(name="n_genes", value=n_rows, evidence=f"{matrix} has {n_rows} rows (features)"),
             Fact(name="integer_counts", value=integer,
                  evidence=f"MatrixMarket field type '{field}'" + ("" if integer else ": not raw UMI counts")),
             Fact(name="x_state", value="raw_counts" if integer else "normalized",
                  evidence=f"MatrixMarket field type '{field}'")]
    org = _organism_fact(gene_ids, prefixes, "feature ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    return SniffedFile(path=shown, datatype="single_cell_matrix" if integer else "normalized_single_cell_matrix",
                       format="mtx", evidence=tuple(evidence), facts=tuple(facts))


def _mtx_dir(shown: str, path: Path, entries: Sequence[str], prefixes: Mapping[str, str]) -> SniffedFile | None:
    """A Cell Ranger matrix folder (filtered_feature_bc_matrix/): matrix.mtx.gz, barcodes.tsv.gz, features.tsv.gz."""
    present = set(entries)
    matrices = [(e, m.group("prefix")) for e in entries for m in [_MTX_RE.match(e)] if m]
    if len(matrices) != 1:
        return None
    matrix, prefix = matrices[0]
    return _mtx_result(shown, path, matrix, _mtx_siblings(path, prefix, present), prefixes, "folder")


def _sniff_mtx_file(src: _Source, prefixes: Mapping[str, str]) -> SniffedFile:
    """matrix.mtx(.gz) given as a file: one matrix with the barcodes/features files beside it."""
    folder = src.path.parent
    m = _MTX_RE.match(src.name)
    prefix = m.group("prefix") if m else ""
    try:
        present = {e.name for e in os.scandir(folder)}
    except OSError:
        present = set()
    return _mtx_result(src.shown, folder, src.name, _mtx_siblings(folder, prefix, present), prefixes, "triple")


def _mtx_part_of(path: str, matrices: Sequence[SniffedFile]) -> SniffedFile | None:
    """The 10x matrix a barcodes/features file given on its own belongs to."""
    p = Path(path)
    for m in matrices:
        mp = Path(m.path)
        base = mp if mp.is_dir() else mp.parent
        prefix = "" if mp.is_dir() else (_MTX_RE.match(mp.name).group("prefix") if _MTX_RE.match(mp.name) else "")
        if os.path.abspath(p.parent) == os.path.abspath(base) and any(
                p.name in (f"{prefix}{part}", f"{prefix}{part}.gz") for part in _MTX_PARTS):
            return m
    return None


# The file a quantifier's output folder is read through, by tool (first present wins).
_QUANT_DIR_FILES = (("quant.sf", "salmon"), ("abundance.tsv", "kallisto"), ("abundance.h5", "kallisto"))
_QUANT_RUN_INFO = ("cmd_info.json", "lib_format_counts.json", "aux_info/meta_info.json", "run_info.json")


def _json_of(path: Path) -> dict:
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _run_info_evidence(path: Path) -> list[str]:
    """What the quantifier's own run records say (version, library type, mapping rate)."""
    out = []
    cmd = _json_of(path / "cmd_info.json")
    for key in ("salmon_version", "sailfish_version"):
        if key in cmd:
            out.append(f"cmd_info.json: {key.split('_')[0]} {cmd[key]}"
                       + (f", libType {cmd['libType']}" if "libType" in cmd else ""))
    lib = _json_of(path / "lib_format_counts.json")
    if "expected_format" in lib:
        out.append(f"lib_format_counts.json: library format {lib['expected_format']}")
    meta = _json_of(path / "aux_info" / "meta_info.json")
    if "percent_mapped" in meta:
        out.append(f"aux_info/meta_info.json: {meta.get('num_processed', '?')} fragments, "
                   f"{float(meta['percent_mapped']):.1f}% mapped")
    run = _json_of(path / "run_info.json")
    if "kallisto_version" in run:
        out.append(f"run_info.json: kallisto {run['kallisto_version']}, {run.get('n_processed', '?')} reads, "
                   f"{run.get('p_pseudoaligned', '?')}% pseudoaligned")
    return out


def _quant_dir(shown: str, path: Path, entries: Sequence[str], prefixes: Mapping[str, str]) -> SniffedFile | None:
    """A Salmon/Sailfish, kallisto or RSEM output folder of one sample, read through its main file."""
    present = set(entries)
    main = next((name for name, _ in _QUANT_DIR_FILES if name in present), None)
    if main is None:
        rsem = sorted(e for e in entries if e.endswith((".genes.results", ".isoforms.results")))
        prefixes_rsem = {re.sub(r"\.(?:genes|isoforms)\.results$", "", e) for e in rsem}
        if len(prefixes_rsem) != 1:
            return None
        main = next((e for e in rsem if e.endswith(".genes.results")), rsem[0])
    inner, _ = _guarded(os.path.join(shown, main), prefixes)
    if inner.datatype != "transcript_quantification":
        return None
    sample = path.resolve().name if path.name in ("", ".", "..") else path.name
    why = f"sample '{sample}' from the folder name"
    if sample.lower() in _GENERIC_QUANT_DIRS:
        sample, why = _quant_sample(path / "quant.sf")
    evidence = [f"{inner.fact('quantifier')} output folder: read through {main}"]
    evidence += [e for e in inner.evidence if not e.startswith("sample '")]
    evidence += _run_info_evidence(path) + [why]
    facts = tuple(inner.facts) + (Fact(name="files", value=[e for e in entries if not e.startswith(".")][:20],
                                       evidence="files in the folder"),)
    return SniffedFile(path=shown, datatype=inner.datatype, format=inner.format, evidence=tuple(evidence),
                       facts=facts, sample=sample)


def _quant_parent(shown: str, path: Path, entries: Sequence[str],
                  prefixes: Mapping[str, str]) -> tuple[SniffedFile, ...]:
    """A folder of per-sample quantifier folders (salmon/ctrl_1/quant.sf, salmon/ctrl_2/quant.sf, ...)."""
    found = []
    for name in entries:
        sub = path / name
        if name.startswith(".") or not sub.is_dir():
            continue
        try:
            inner = sorted(e.name for e in os.scandir(sub))
        except OSError:
            continue
        sniffed = _quant_dir(os.path.join(shown, name), sub, inner, prefixes)
        if sniffed is not None:
            found.append(sniffed.model_copy(update={"evidence": sniffed.evidence + (
                f"one of {shown}'s per-sample quantification folders",)}))
    return tuple(found)


def _sniff_directory(shown: str, path: Path, prefixes: Mapping[str, str]) -> tuple[SniffedFile, _Notes]:
    try:
        entries = sorted(e.name for e in os.scandir(path))
    except OSError as exc:
        raise _unreadable(shown, f"directory cannot be listed ({exc.strerror or exc})") from None
    present = set(entries)
    quant = _quant_dir(shown, path, entries, prefixes)
    if quant is not None:
        return quant, _Notes()
    mtx = _mtx_dir(shown, path, entries, prefixes)
    if mtx is not None:
        return mtx, _Notes()
    per_sample = _quant_parent(shown, path, entries, prefixes)
    if per_sample:
        return per_sample[0], _Notes(expanded=per_sample)
    k2d = [n for n in _K2D_FILES if n in present]
    if k2d:
        missing = [n for n in _K2D_FILES if n not in present]
        if missing:
            raise _unreadable(shown,
                              f"incomplete Kraken2 database: has {_quote_list(k2d)} but lacks {_quote_list(missing)}",
                              ["finish the build (kraken2-build --build --db DIR) or download a prebuilt index"],
                              expected="Kraken2 database")
        empty = [n for n in _K2D_FILES if (path / n).stat().st_size == 0]
        if empty:
            raise _unreadable(shown, f"Kraken2 database with empty {_quote_list(empty)}", expected="Kraken2 database")
        bracken = sorted(int(m.group(1)) for n in entries
                         for m in [re.match(r"database(\d+)mers\.kmer_distrib$", n)] if m)
        facts = [Fact(name="files", value=list(_K2D_FILES), evidence="hash.k2d, opts.k2d and taxo.k2d present")]
        evidence = ["Kraken2 database directory: hash.k2d, opts.k2d, taxo.k2d"]
        if bracken:
            facts.append(Fact(name="bracken_read_lengths", value=bracken,
                              evidence=f"Bracken kmer_distrib files for read lengths {bracken}"))
            evidence.append(f"Bracken distributions for read lengths {bracken}")
        return SniffedFile(path=shown, datatype="taxonomic_database", format=FMT_KRAKEN2_DB,
                           evidence=tuple(evidence), facts=tuple(facts)), _Notes()
    dmp = [n for n in _DMP_FILES if n in present]
    if len(dmp) == 2:
        for name in dmp:
            line = _first_line(path / name, f"{shown}/{name}")
            if line:
                _dmp_kind(f"{shown}/{name}", line, name)
        extra = [n for n in ("merged.dmp", "delnodes.dmp") if n in present]
        return SniffedFile(
            path=shown, datatype="taxonomy_dump", format=FMT_TAXONOMY_DUMP,
            evidence=("NCBI taxonomy dump directory: nodes.dmp and names.dmp"
                      + (f" (+ {', '.join(extra)})" if extra else ""),),
            facts=(Fact(name="files", value=dmp + extra, evidence="files present in the directory"),)), _Notes()
    if dmp:
        other = "names.dmp" if dmp[0] == "nodes.dmp" else "nodes.dmp"
        raise _unreadable(shown, f"taxonomy directory has {dmp[0]} but no {other}",
                          ["unpack both from NCBI taxdump.tar.gz (https://ftp.ncbi.nlm.nih.gov/pub/taxonomy/)"],
                          expected="taxonomy dump")
    listing = _quote_list(entries, 5) if entries else "nothing"
    hints = ["a directory is recognised only as a Kraken2 database (hash.k2d, opts.k2d, taxo.k2d) or an NCBI "
             "taxonomy dump (nodes.dmp, names.dmp)"]
    if any(_FASTQ_PATH_RE.search(e) for e in entries):
        hints.append("to use the FASTQ files in it, give each file (e.g. DIR/*.fastq.gz) instead of the directory")
    raise _unreadable(shown, f"is a directory bioplan does not recognise (it holds {listing})",
                      hints + [_RECOGNISED_HINT])


# --------------------------------------------------------------------------- tables

_NA = frozenset({"", "na", "nan", "n/a", "null", "none", "-", "."})
_SAMPLE_COLUMNS = ("sample", "sample_id", "sampleid", "sample_name", "samplename", "samples", "sample id",
                   "sample name", "sample.id", "id", "name")
_CONDITION_COLUMNS = ("condition", "group", "treatment", "genotype", "status", "disease", "phenotype", "diagnosis",
                      "state", "class", "cell_type", "celltype", "tissue", "timepoint", "time", "stage", "dex",
                      "infection", "strain", "line")
_GENE_HEADERS = frozenset({"gene", "genes", "gene_id", "geneid", "gene_name", "genename", "symbol", "gene_symbol",
                           "ensembl", "ensembl_gene_id", "ensembl_id", "entrez", "entrez_id", "entrezid", "entrezgene",
                           "entrezgene_id", "ncbi_gene_id", "feature", "feature_id", "features", "id_ref",
                           "external_gene_name", "hgnc_symbol", "mgi_symbol"})
_ENTREZ_HEADERS = frozenset({"entrez", "entrez_id", "entrezid", "entrezgene", "entrezgene_id", "ncbi_gene_id",
                             "ncbi_id", "gene_id_entrez", "geneid_entrez"})
_DE_STATS = (("log2foldchange", "logfc", "log2fc", "log2_fold_change"),
             ("pvalue", "p.value", "p_value", "pval", "padj", "fdr", "adj.p.val", "qvalue", "q_value"))
_FEATURECOUNTS_COLUMNS = ["geneid", "chr", "start", "end", "strand", "length"]


@dataclass(frozen=True)
class _QuantLayout:
    """Column layout of one quantifier's per-sample output table."""

    columns: tuple[str, ...]  # normalised header, leading columns
    tool: str
    format: str  # format id of ontology/formats.yaml
    level: str  # "transcript" or "gene"


_QUANT_LAYOUTS = (
    _QuantLayout(("name", "length", "effectivelength", "tpm", "numreads"), "salmon", "salmon_quant", "transcript"),
    # Sailfish <= 0.6 (its later versions write Salmon's layout)
    _QuantLayout(("transcript", "length", "tpm", "rpkm", "kpkm", "estimatednumkmers", "estimatednumreads"),
                 "sailfish", "salmon_quant", "transcript"),
    _QuantLayout(("target_id", "length", "eff_length", "est_counts", "tpm"), "kallisto", "kallisto_quant",
                 "transcript"),
    _QuantLayout(("transcript_id", "gene_id", "length", "effective_length", "expected_count", "tpm", "fpkm"),
                 "rsem", "rsem_quant", "transcript"),
    _QuantLayout(("gene_id", "transcript_id(s)", "length", "effective_length", "expected_count", "tpm", "fpkm"),
                 "rsem", "rsem_quant", "gene"),
)
# Output file names that say nothing about the sample: the folder names it.
_GENERIC_QUANT_FILES = frozenset({"quant.sf", "quant.genes.sf", "abundance.tsv", "abundance.h5"})
# Folder names that say nothing about the sample either (salmon/ctrl_1/quant/quant.sf).
_GENERIC_QUANT_DIRS = frozenset({"quant", "quants", "salmon", "sailfish", "kallisto", "rsem", "out", "output",
                                 "outputs", "results", "quantification", "quantifications"})
_QUANT_SUFFIX_RE = re.compile(
    r"(?:[._-](?:quant|abundance|salmon|kallisto|rsem))*"
    r"\.(?:genes\.results|isoforms\.results|quant\.genes\.sf|quant\.sf|sf|abundance\.tsv|tsv|txt|h5)$",
    re.IGNORECASE)


def _norm_header(h: str) -> str:
    return h.strip().strip('"').lower().replace(" ", "_").replace("-", "_")


def _num(value: str) -> float | None:
    """The number `value` holds, or None when it is not a number (NA/empty: see `_NA`)."""
    if "_" in value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


@dataclass
class _Column:
    name: str
    values: list[str]
    numeric: bool = False  # every non-missing value is a number (and there is one)
    n_missing: int = 0
    namespace: str = "unknown"
    distinct: int = 0
    paths: bool = False  # FASTQ paths

    @classmethod
    def of(cls, name: str, values: list[str], prefixes: Mapping[str, str]) -> _Column:
        present = [v for v in values if v.lower() not in _NA]
        col = cls(name, values, n_missing=len(values) - len(present), distinct=len(set(present)))
        col.numeric = bool(present) and all(_num(v) is not None for v in present)
        col.namespace = _namespace(present[:2000], prefixes)[0]
        col.paths = bool(present) and all(_FASTQ_PATH_RE.search(v) for v in present)
        return col


def _split_delimiter(src: _Source, lines: list[str]) -> str | None:
    """Tab, comma or None (one column); raises for semicolon- or space-separated tables."""
    sample = [ln for ln in lines[:200] if ln.strip()]
    if not sample:
        return None
    if all("\t" in ln for ln in sample):
        return "\t"
    if sum("\t" in ln for ln in sample) >= 0.8 * len(sample) and src.ext in (".tsv", ".tab", ".txt", ".gmt"):
        return "\t"
    if all("," in ln for ln in sample):
        return ","
    if all(";" in ln for ln in sample):
        raise _unreadable(src.shown, "looks semicolon-separated", [
            "save it as comma- (CSV) or tab-separated (TSV) text"], expected="TSV/CSV table")
    widths = {len(ln.split()) for ln in sample}
    if len(widths) == 1 and widths.pop() > 1:
        raise _unreadable(src.shown, "looks like a table separated by spaces", [
            "save it tab-separated (TSV) or comma-separated (CSV)"], expected="TSV/CSV table")
    return None


def _table_format(src: _Source, delim: str | None) -> str:
    if delim == ",":
        return "csv"
    if delim == "\t":
        return "tsv"
    return "csv" if src.ext == ".csv" else "tsv" if src.ext in (".tsv", ".tab") else "txt"


def _read_table_lines(src: _Source) -> tuple[list[str], list[str], bool]:
    """(leading comment lines, other non-empty lines, whole file read)."""
    reader = _Lines(src, _TABLE_BUDGET)
    comments: list[str] = []
    body: list[str] = []
    for line in reader:
        if not body and line.startswith("#"):
            comments.append(line)
            continue
        if line.strip():
            body.append(line)
            if len(body) >= _TABLE_ROWS:
                break
    return comments, body, reader.complete and len(body) < _TABLE_ROWS


def _sniff_table(src: _Source, prefixes: Mapping[str, str]) -> SniffedFile:
    comments, body, complete = _read_table_lines(src)
    if not body:
        raise _unreadable(src.shown, "holds no data (only blank or '#' comment lines)", [_RECOGNISED_HINT])
    featurecounts = any("featureCounts" in c for c in comments)
    delim = _split_delimiter(src, body)
    # a '#'-prefixed header line ("#sample<TAB>condition") counts as the header
    if comments and delim and not featurecounts:
        last = comments[-1].lstrip("#").strip()
        if last and len(last.split(delim)) == len(body[0].split(delim)) > 1:
            body.insert(0, last)
    fmt = _table_format(src, delim)
    if delim is None:
        return _sniff_gene_list(src, [ln.strip() for ln in body], fmt, prefixes, complete)
    rows = [[c.strip() for c in row] for row in csv.reader(body, delimiter=delim)]
    rows = [r for r in rows if any(r)]
    if not rows:
        raise _unreadable(src.shown, "holds only delimiters, no values", [_RECOGNISED_HINT])
    widths = Counter(len(r) for r in rows)
    if delim == "\t" and all(len(r) >= 3 for r in rows) and (src.ext == ".gmt" or len(widths) > 2):
        gmt = _sniff_gmt(src, rows, prefixes)
        if gmt is not None:
            return gmt
    width = max(widths, key=lambda w: (widths[w], w))
    if len(rows[0]) == width - 1 and len(rows) > 1:  # R write.table: no header cell over the row names
        rows[0] = [""] + rows[0]
    for i, r in enumerate(rows):
        if len(r) != width:
            raise _unreadable(src.shown, f"malformed table: row {i + 1} has {len(r)} fields but most rows have {width}",
                              ["every row of a table needs the same number of columns (check quoting and "
                               "stray delimiters)"], expected="TSV/CSV table")
    keep = [j for j in range(width) if any(r[j] for r in rows)]  # trailing delimiters make empty columns
    if len(keep) < width:
        rows = [[r[j] for j in keep] for r in rows]
    if len(keep) == 1:
        return _sniff_gene_list(src, [r[0] for r in rows], fmt, prefixes, complete)
    return _classify_table(src, rows, fmt, prefixes, complete, featurecounts, comments)


def _has_header(rows: list[list[str]], prefixes: Mapping[str, str]) -> bool:
    first = rows[0]
    if len(rows) < 2:  # one row: data when it holds a number
        return not any(_num(c) is not None for c in first)
    if any(_norm_header(c) in _GENE_HEADERS or _norm_header(c) in _SAMPLE_COLUMNS
           or _norm_header(c) in _CONDITION_COLUMNS for c in first):
        return True
    body = rows[1:2001]
    for j, cell in enumerate(first):
        col = [r[j] for r in body if r[j].lower() not in _NA]
        if not col:
            continue
        if all(_num(v) is not None for v in col) and _num(cell) is None and cell.lower() not in _NA:
            return True
        ns = _namespace(col, prefixes)[0]
        if ns == "ensembl" and not _is_ensembl_gene(cell, prefixes):
            return True
    # a table of words only: sheets and mappings have a header row by convention
    return not any(_num(c) is not None for c in first)


def _classify_table(src: _Source, rows: list[list[str]], fmt: str, prefixes: Mapping[str, str], complete: bool,
                    featurecounts: bool, comments: Sequence[str] = ()) -> SniffedFile:
    header = _has_header(rows, prefixes)
    names = rows[0] if header else [f"column_{j + 1}" for j in range(len(rows[0]))]
    data = rows[1:] if header else rows
    if not data:
        raise _unreadable(src.shown, "table with a header row but no data rows", expected="TSV/CSV table")
    cols = [_Column.of(names[j], [r[j] for r in data], prefixes) for j in range(len(names))]
    normed = [_norm_header(n) for n in names]
    evidence = [f"{fmt.upper()} table: {len(data)}{'' if complete else '+'} row{'' if len(data) == 1 else 's'} x "
                f"{_n(len(cols), 'column')}"
                + ("" if header else ", no header row")] + _compression_evidence(src)

    if normed[:6] == _FEATURECOUNTS_COLUMNS or featurecounts and "geneid" in normed:
        return _count_matrix(src, cols, fmt, prefixes, complete, evidence + [
            "featureCounts output: Geneid, Chr, Start, End, Strand, Length columns"], annotation=6)
    layout = next((q for q in _QUANT_LAYOUTS if header and tuple(normed[:len(q.columns)]) == q.columns), None)
    if layout is not None:
        return _quant_table(src, layout, names, cols, evidence, comments, prefixes)
    tx2gene = _tx2gene_table(src, rows, fmt, prefixes, evidence)
    if tx2gene is not None:
        return tx2gene
    has_fc = any(n in _DE_STATS[0] for n in normed)
    has_p = any(n in _DE_STATS[1] for n in normed)
    if header and has_fc and has_p:
        return _de_table(src, cols, normed, fmt, prefixes, evidence)
    peaks = None if header and normed[0] not in ("chrom", "chr", "seqnames", "seqname") else \
        _peak_table(src, cols, fmt, evidence)
    if peaks is not None:
        return peaks
    mapping = _mapping_table(src, cols, normed, fmt, prefixes, evidence, header)
    if mapping is not None:
        return mapping

    # count matrix (mostly numbers) vs sample sheet (mostly words)
    rest = cols[1:]
    numeric = [c for c in rest if c.numeric]
    frac = len(numeric) / len(rest)
    sheet_signal = 0.0
    if any(n in _CONDITION_COLUMNS for n in normed) or any(c.paths for c in cols):
        sheet_signal = 1.0
    elif any(n in _SAMPLE_COLUMNS[:-2] for n in normed):
        sheet_signal = 0.5
    count_signal = 0.0
    ids_unique = cols[0].distinct == len(data) - cols[0].n_missing
    row_numbers = cols[0].values == [str(i) for i in range(1, len(data) + 1)]
    if ids_unique and (cols[0].namespace == "ensembl" or cols[0].namespace == "entrez" and not row_numbers
                       and normed[0] not in _SAMPLE_COLUMNS):
        count_signal = 1.0
    elif normed[0] in _GENE_HEADERS:
        count_signal = 0.5
    score = (frac - 0.5) * 2 + count_signal - sheet_signal
    if len(data) > 200:
        score += 0.3  # sheets rarely have hundreds of rows; gene tables have thousands
    if not numeric:
        score = min(score, -1.0)
    if abs(score) < 0.2:
        raise _ambiguous(
            src.shown,
            f"could be a count matrix or a sample sheet: {len(numeric)} of {len(rest)} value columns are numeric and "
            f"neither the ids ({_quote_list([r[0] for r in data], 3)}) nor the column names settle it",
            ["raw_count_matrix", "sample_metadata"],
            ["a sample sheet needs a 'sample' column and a 'condition' (or group/treatment) column",
             "a count matrix needs gene ids (Ensembl, Entrez or symbols) in the first column",
             f"or declare it: --input-type {src.shown}=raw_count_matrix (or sample_metadata)"])
    if score > 0:
        return _count_matrix(src, cols, fmt, prefixes, complete, evidence, annotation=None)
    return _sample_sheet(src, cols, normed, fmt, evidence, header)


def _count_matrix(src: _Source, cols: list[_Column], fmt: str, prefixes: Mapping[str, str], complete: bool,
                  evidence: list[str], annotation: int | None) -> SniffedFile:
    ids = cols[0]
    if annotation is None:
        value_cols = [c for c in cols[1:] if c.numeric]
        annot = [c for c in cols[1:] if not c.numeric]
    else:
        value_cols = cols[annotation:]
        annot = cols[1:annotation]
        bad = [c.name for c in value_cols if not c.numeric]
        if bad:
            raise _unreadable(src.shown,
                              f"featureCounts table whose count column(s) {_quote_list(bad)} are not numeric",
                              expected="count matrix")
    if not value_cols:
        raise _unreadable(src.shown, "table without numeric sample columns", expected="count matrix")
    gene_named = [c.name for c in value_cols if _is_ensembl_gene(c.name, prefixes)]
    if len(gene_named) >= 0.9 * len(value_cols) and ids.namespace != "ensembl":
        raise _unreadable(
            src.shown, f"genes are columns ({_quote_list(gene_named, 3)}) and samples are rows: bioplan takes "
            "count matrices with one row per gene and one column per sample",
            ["transpose it (e.g. pandas: df.T.to_csv(...)) so that gene ids are the first column"],
            expected="count matrix")
    integer = True
    negative = False
    example = None
    missing = 0
    for c in value_cols:
        for i, v in enumerate(c.values):
            x = _num(v)
            if x is None:
                missing += 1
                continue
            if x < 0:
                negative = True
            if x < 0 or not x.is_integer():
                if integer:
                    example = (v, c.name, ids.values[i])
                integer = False
        if not integer and negative:
            break
    n = len(value_cols)
    if integer:
        why = f"integer values in all {n} numeric columns"
        datatype = "raw_count_matrix"
    else:
        v, col, row = example
        kind = "negative" if _num(v) < 0 else "non-integer"
        why = f"{kind} values (e.g. {v} in column '{col}', row '{row}'): normalised, not raw counts"
        datatype = "normalized_count_matrix"
    evidence.append(why)
    ns, share = _namespace(ids.values[:2000], prefixes)
    facts = [
        Fact(name="integer_counts", value=integer, evidence=why),
        Fact(name="id_namespace", value=ns,
             evidence=f"first column '{ids.name}' ids like {_quote_list(ids.values, 3)}"
             + (f" ({share:.0%} {ns})" if ns != "unknown" else "")),
    ]
    org = _organism_fact(ids.values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    names = [c.name for c in value_cols]
    facts += [
        Fact(name="n_genes", value=len(ids.values),
             evidence=f"{'' if complete else 'at least '}{_n(len(ids.values), 'row')}"),
        Fact(name="n_samples", value=n, evidence=f"{n} numeric columns"),
        Fact(name="sample_names", value=names, evidence=f"numeric column names {_quote_list(names)}"),
    ]
    if annot:
        a = [c.name for c in annot]
        facts.append(Fact(name="annotation_columns", value=a, evidence=f"non-sample columns {_quote_list(a)}"))
        evidence.append(f"annotation column(s) besides the counts: {_quote_list(a)}")
    if annotation is not None:
        facts.append(Fact(name="featurecounts", value=True, evidence="featureCounts column layout"))
    if missing:
        evidence.append(f"{missing} missing (NA/empty) values")
    if not complete:
        facts.append(Fact(name="scanned_whole_file", value=False,
                          evidence=f"stopped after {_TABLE_BUDGET >> 20} MB / {_TABLE_ROWS} rows"))
    facts += _compressed_fact(src)
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence), facts=tuple(facts))


def _de_table(src: _Source, cols: list[_Column], normed: list[str], fmt: str, prefixes: Mapping[str, str],
              evidence: list[str]) -> SniffedFile:
    stats = [c.name for c, n in zip(cols, normed) if n in _DE_STATS[0] or n in _DE_STATS[1]]
    evidence.append(f"differential expression statistics columns {_quote_list(stats)}")
    ns, _ = _namespace(cols[0].values[:2000], prefixes)
    facts = [Fact(name="id_namespace", value=ns, evidence=f"first column ids like {_quote_list(cols[0].values, 3)}"),
             Fact(name="n_genes", value=len(cols[0].values), evidence=_n(len(cols[0].values), "row"))]
    org = _organism_fact(cols[0].values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
    return SniffedFile(path=src.shown, datatype="differential_expression_table", format=fmt,
                       evidence=tuple(evidence), facts=tuple(facts + _compressed_fact(src)))


def _quant_sample(path: Path) -> tuple[str, str]:
    """(sample name, why) of a quantifier's output file: its folder for a generic name (ctrl_1/quant.sf),
    else its name without the quantifier's suffixes (ctrl_1.genes.results)."""
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    if name.lower() in _GENERIC_QUANT_FILES:
        folder = Path(os.path.abspath(path)).parent
        skipped = []
        while folder.name.lower() in _GENERIC_QUANT_DIRS and folder.parent != folder:
            skipped.append(folder.name)
            folder = folder.parent
        why = f"sample '{folder.name}' from the folder holding {name}"
        if skipped:
            why += f" (generic folder name(s) {_quote_list(skipped)} skipped)"
        return folder.name, why
    stem = _QUANT_SUFFIX_RE.sub("", name) or name
    return stem, f"sample '{stem}' from the file name '{name}'"


def _quant_facts(layout: _QuantLayout, n_rows: int, ids: Sequence[str], prefixes: Mapping[str, str],
                 version: str = "") -> list[Fact]:
    what = "genes" if layout.level == "gene" else "transcripts"
    facts = [Fact(name="quantifier", value=layout.tool,
                  evidence=f"{layout.tool} column layout" + (f" ({version})" if version else "")),
             Fact(name="quant_level", value=layout.level, evidence=f"one row per {what[:-1]}"),
             Fact(name=f"n_{what}", value=n_rows, evidence=_n(n_rows, "row"))]
    if layout.level == "transcript":
        org = _organism_fact(ids[:2000], prefixes, "transcript ids", transcripts=True)
    else:
        org = _organism_fact(ids[:2000], prefixes, "gene ids")
    if org:
        facts.append(org)
    versioned = sum(bool(re.search(r"\.\d+$", i.split("|", 1)[0])) for i in ids[:2000])
    if versioned >= 0.9 * max(1, min(len(ids), 2000)):
        facts.append(Fact(name="versioned_ids", value=True, evidence=f"ids carry a version suffix (e.g. {ids[0]!r})"))
    return facts


def _quant_table(src: _Source, layout: _QuantLayout, names: list[str], cols: list[_Column], evidence: list[str],
                 comments: Sequence[str], prefixes: Mapping[str, str]) -> SniffedFile:
    """A quantifier's per-sample table (quant.sf, abundance.tsv, *.results): one sample's estimates."""
    version = next((c.lstrip("# ").strip() for c in comments if re.search(r"sailfish|salmon", c, re.I)), "")
    if layout.tool == "salmon" and re.search("sailfish", " ".join(comments), re.I):
        layout = dataclasses.replace(layout, tool="sailfish")
    bad = [c.name for c in cols[1:len(layout.columns)] if not c.numeric and c.name.lower() not in ("gene_id",
                                                                                                 "transcript_id(s)")]
    if bad:
        raise _unreadable(src.shown, f"{layout.tool} output whose column(s) {_quote_list(bad)} are not numeric",
                          ["give the quantifier's output file unchanged"], expected=f"{layout.tool} output")
    sample, why = _quant_sample(src.path)
    level = "gene-level" if layout.level == "gene" else "transcript-level"
    evidence = evidence + [f"{layout.tool} {level} output: columns {_quote_list(names[:len(layout.columns)], 7)}",
                           why]
    facts = _quant_facts(layout, len(cols[0].values), cols[0].values, prefixes, version=version)
    return SniffedFile(path=src.shown, datatype="transcript_quantification", format=layout.format,
                       evidence=tuple(evidence), facts=tuple(facts + _compressed_fact(src)), sample=sample)


_TX_HEADERS = frozenset({"txname", "tx_name", "tx_id", "txid", "transcript_id", "transcriptid", "transcript",
                         "transcript_name", "ensembl_transcript_id", "transcript_stable_id", "target_id", "tx",
                         "transcripts", "name"})
_TX2GENE_GENE_HEADERS = _GENE_HEADERS | {"geneid", "gene_stable_id", "gene", "genes"}


# what a transcript id adds to its gene's id (AT1G01010.1, FBgn-RA style CG1234-RA, g1.t1)
_TX_SUFFIX_RE = re.compile(r"^(?:\.\d+|-R[A-Z]{1,2}|\.t\d+|-T\d+)$")


def _transcript_of(tx: str, gene: str) -> bool:
    """`tx` reads as a transcript id: a known transcript id form, or the gene id plus a suffix (AT1G01010.1)."""
    base = tx.split("|", 1)[0]
    return bool(_TX_ID_RE.match(base)) or (gene != "" and base.startswith(gene)
                                           and bool(_TX_SUFFIX_RE.match(base[len(gene):])))


def _tx2gene_table(src: _Source, rows: list[list[str]], fmt: str, prefixes: Mapping[str, str],
                   evidence: list[str]) -> SniffedFile | None:
    """A tximport tx2gene table: transcript ids, then the gene of each (with or without a header row)."""
    if not 2 <= len(rows[0]) <= 4:
        return None
    first = [_norm_header(c) for c in rows[0]]
    if any(n in _SAMPLE_COLUMNS[:-2] or n in _CONDITION_COLUMNS for n in first):
        return None
    named = first[0] in _TX_HEADERS and first[1] in _TX2GENE_GENE_HEADERS
    data = rows[1:] if named or not _transcript_of(rows[0][0], rows[0][1]) else rows
    if len(data) < 1:
        return None
    txs = [r[0] for r in data]
    genes = [r[1] for r in data]
    fits = sum(_transcript_of(t, g) for t, g in zip(txs, genes)) / len(data)
    gene_ns, share = _namespace(genes[:2000], prefixes)
    if fits < 0.9 or gene_ns == "unknown" and not named:
        return None
    distinct_tx, distinct_genes = len(set(txs)), len(set(genes))
    if distinct_tx < 0.95 * len(txs) or distinct_genes > distinct_tx:
        return None  # not one row per transcript, or not many transcripts to one gene
    header_note = f"header {_quote_list(rows[0][:2])}" if data is not rows else "no header row"
    versioned = sum(bool(re.search(r"\.\d+$", t)) for t in txs[:2000]) >= 0.9 * min(len(txs), 2000)
    facts = [Fact(name="n_transcripts", value=distinct_tx, evidence=_n(distinct_tx, "distinct transcript id")),
             Fact(name="n_genes", value=distinct_genes, evidence=_n(distinct_genes, "distinct gene id")),
             Fact(name="id_namespace", value=gene_ns, evidence=f"gene column like {_quote_list(genes, 3)}"),
             Fact(name="versioned_ids", value=versioned,
                  evidence=f"transcript ids like {_quote_list(txs, 2)}" + (" carry a version" if versioned else ""))]
    org = _organism_fact(genes[:2000], prefixes, "gene ids") or _organism_fact(txs[:2000], prefixes,
                                                                               "transcript ids", transcripts=True)
    if org:
        facts.append(org)
    evidence = evidence + [f"transcript-to-gene map (tximport tx2gene): {header_note}, {_n(distinct_tx, 'transcript')} "
                           f"of {_n(distinct_genes, 'gene')}, e.g. {txs[0]} -> {genes[0]}"]
    return SniffedFile(path=src.shown, datatype="transcript_gene_map", format="tx2gene", evidence=tuple(evidence),
                       facts=tuple(facts + _compressed_fact(src)))


def _peak_table(src: _Source, cols: list[_Column], fmt: str, evidence: list[str]) -> SniffedFile | None:
    """narrowPeak/broadPeak are peak calls; other BED-like interval files are refused."""
    if len(cols) < 3 or not (cols[1].numeric and cols[2].numeric):
        return None
    starts_ok = all(v.isdigit() for v in cols[1].values) and all(v.isdigit() for v in cols[2].values)
    if not starts_ok or not all(_CHROM_ID_RE.match(v) or _CHROM_ACC_RE.match(v) for v in cols[0].values[:200]):
        return None
    if not all(int(e) >= int(s) for s, e in zip(cols[1].values[:200], cols[2].values[:200])):
        return None
    ext = src.ext
    if ext in (".narrowpeak", ".broadpeak") or len(cols) in (9, 10) and fmt == "tsv":
        kind = "narrowpeak" if ext == ".narrowpeak" or (ext != ".broadpeak" and len(cols) == 10) else "broadpeak"
        return SniffedFile(path=src.shown, datatype="peak_calls", format=kind,
                           evidence=tuple(evidence + [f"{kind} intervals: chrom, start <= end, {len(cols)} columns"]),
                           facts=tuple([Fact(name="n_peaks", value=len(cols[0].values),
                                             evidence=_n(len(cols[0].values), "row"))] + _compressed_fact(src)))
    raise _unreadable(src.shown, "looks like a BED interval file (chromosome, start, end), which bioplan does not "
                      "take as an input", [_RECOGNISED_HINT, _INPUT_TYPE_HINT], expected="a recognised input")


def _mapping_table(src: _Source, cols: list[_Column], normed: list[str], fmt: str, prefixes: Mapping[str, str],
                   evidence: list[str], header: bool) -> SniffedFile | None:
    if any(n in _CONDITION_COLUMNS or n in _SAMPLE_COLUMNS[:-2] for n in normed):
        return None
    spaces: dict[str, str] = {}
    for c, n in zip(cols, normed):
        ns = c.namespace
        rows = len(c.values) - c.n_missing
        unique = c.distinct >= 0.8 * max(1, rows)
        if ns == "entrez" or (c.numeric and n in _ENTREZ_HEADERS):
            # integers are Entrez ids when the header says so, or (headerless) beside Ensembl ids, all distinct
            if n in _ENTREZ_HEADERS or (not header and unique and len(cols) == 2):
                spaces.setdefault("entrez", c.name)
                continue
            if c.numeric:
                return None  # a numeric value column: not a mapping
        elif c.numeric:
            return None
        elif ns == "ensembl":
            spaces.setdefault("ensembl", c.name)
        elif ns == "symbol" and (unique or n in _GENE_HEADERS):
            spaces.setdefault("symbol", c.name)
    if len(spaces) < 2 or not ({"ensembl", "entrez"} & set(spaces)):
        return None
    desc = ", ".join(f"'{col}' ({ns})" for ns, col in spaces.items())
    facts = [Fact(name="namespaces", value=dict(spaces), evidence=f"id columns {desc}"),
             Fact(name="n_genes", value=len(cols[0].values), evidence=_n(len(cols[0].values), "row"))]
    if "ensembl" in spaces:
        ens = next(c for c in cols if c.name == spaces["ensembl"])
        org = _organism_fact(ens.values[:2000], prefixes, "Ensembl ids")
        if org:
            facts.append(org)
    return SniffedFile(path=src.shown, datatype="gene_id_mapping", format=fmt,
                       evidence=tuple(evidence + [f"gene ids of {len(spaces)} namespaces side by side: {desc}"]),
                       facts=tuple(facts + _compressed_fact(src)))


def _sample_sheet(src: _Source, cols: list[_Column], normed: list[str], fmt: str, evidence: list[str],
                  header: bool) -> SniffedFile:
    by_header = dict(zip(normed, cols))
    sample_col = next((by_header[n] for n in _SAMPLE_COLUMNS if n in by_header), cols[0])
    samples = list(dict.fromkeys(v for v in sample_col.values if v.lower() not in _NA))
    if ".." in (s.strip() for s in samples):
        raise _unreadable(src.shown, f"the sample name '..' in column '{sample_col.name}' cannot name a sample "
                          "(outputs go to one folder per sample)",
                          ["rename the sample to letters, digits, '_' or '-' (and the matching count column)"],
                          override=False)
    numeric = sum(c.numeric for c in cols)
    evidence.append(f"mostly words: {numeric} of {len(cols)} columns numeric")
    evidence.append(f"sample column '{sample_col.name}' ({len(samples)} samples)")
    fastq_cols = [c.name for c in cols if c.paths]
    facts = [Fact(name="samples", value=samples, evidence=f"column '{sample_col.name}': {_quote_list(samples)}")]
    condition = None
    by_name = {n: c for c, n in zip(cols, normed) if c is not sample_col}
    for name in _CONDITION_COLUMNS:
        if name in by_name:
            condition = by_name[name]
            why = f"column named '{condition.name}'"
            break
    else:
        candidates = [c for c in cols if c is not sample_col and not c.numeric and not c.paths
                      and 1 < c.distinct < len(c.values) - c.n_missing]
        if len(candidates) == 1:
            condition = candidates[0]
            why = f"the only other categorical column, '{condition.name}'"
        elif candidates:
            evidence.append(f"several candidate condition columns ({_quote_list([c.name for c in candidates])}); "
                            "name one 'condition'")
        else:
            evidence.append("no condition column (condition/group/treatment/...) found")
    if condition is not None:
        per_sample: dict[str, str] = {}
        for s, level in zip(sample_col.values, condition.values):
            if s.lower() not in _NA and level.lower() not in _NA:
                per_sample.setdefault(s, level)
        counts = Counter(per_sample.values())
        replicates = {level: counts[level] for level in dict.fromkeys(per_sample.values())}
        shown = ", ".join(f"{k}: {v}" for k, v in replicates.items())
        facts += [
            Fact(name="condition_column", value=condition.name, evidence=why),
            Fact(name="replicates", value=replicates, evidence=f"samples per level of '{condition.name}': {shown}"),
            Fact(name="min_replicates", value=min(replicates.values()) if replicates else 0,
                 evidence=f"fewest samples in one level of '{condition.name}'"),
        ]
        evidence.append(f"condition column '{condition.name}' ({why}): {shown}")
    without_data = _rows_without_data(sample_col, condition, [c for c in cols if c is not sample_col])
    if without_data:  # left out by every step: said, never dropped silently
        facts.append(Fact(name="rows_without_data", value=without_data,
                          evidence=f"{_n(len(without_data), 'row')} without data: " + "; ".join(without_data[:10])))
    if fastq_cols:
        facts.append(Fact(name="fastq_columns", value=fastq_cols,
                          evidence=f"columns of FASTQ paths {_quote_list(fastq_cols)}"))
        evidence.append(f"FASTQ paths in {_quote_list(fastq_cols)}")
    facts.append(Fact(name="columns", value=[c.name for c in cols],
                      evidence="header row" if header else "no header row: columns numbered"))
    facts += _compressed_fact(src)
    return SniffedFile(path=src.shown, datatype="sample_metadata", format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts))


def _rows_without_data(sample_col: _Column, condition: _Column | None, others: list[_Column]) -> list[str]:
    """Sheet rows the workflow cannot use: no sample id, or a sample with no condition level (no values at all
    when there is no condition column). Blank rows are not rows."""
    missing: list[str] = []
    for i, sample in enumerate(sample_col.values):
        if sample.lower() in _NA:
            missing.append(f"data row {i + 1}: no sample id in column '{sample_col.name}'")
        elif condition is not None and condition.values[i].lower() in _NA:
            missing.append(f"sample '{sample}': no value in column '{condition.name}'")
        elif condition is None and others and all(c.values[i].lower() in _NA for c in others):
            missing.append(f"sample '{sample}': no values")
    return missing


_LIST_DATATYPES = {"ensembl": "ensembl_gene_list", "entrez": "entrez_gene_list", "symbol": "gene_symbol_list"}
_NAMESPACE_WORDS = {"ensembl": "Ensembl gene ids", "entrez": "Entrez gene ids", "symbol": "gene symbols"}


def _sniff_gene_list(src: _Source, values: list[str], fmt: str, prefixes: Mapping[str, str],
                     complete: bool) -> SniffedFile:
    values = [v.strip().strip('"') for v in values if v.strip()]
    header = None
    if len(values) > 1:
        rest_ns, _ = _namespace(values[1:2001], prefixes)
        head_ns, _ = _namespace(values[:1], prefixes)
        if _norm_header(values[0]) in _GENE_HEADERS or (rest_ns in ("ensembl", "entrez") and head_ns != rest_ns):
            header, values = values[0], values[1:]
    ns, share = _namespace(values[:2000], prefixes)
    if ns == "unknown" or not values:
        example = _quote_list(values, 3)
        hints = [_RECOGNISED_HINT, _INPUT_TYPE_HINT]
        if values and all(_FASTQ_PATH_RE.search(v) for v in values[:50]):
            hints.insert(0, "give the FASTQ files themselves, or a sample sheet with a 'sample' column")
        raise _unreadable(src.shown, f"one-column file whose values ({example}) are not gene ids of one namespace "
                          "(Ensembl, Entrez or symbols)", hints, expected="gene list")
    evidence = [f"one column of {len(values)}{'' if complete else '+'} {_NAMESPACE_WORDS[ns]} ({share:.0%}), e.g. "
                f"{_quote_list(values, 3)}"] + _compression_evidence(src)
    if header:
        evidence.append(f"header '{header}'")
    facts = [Fact(name="id_namespace", value=ns, evidence=evidence[0]),
             Fact(name="n_genes", value=len(values), evidence=f"{len(values)} ids")]
    org = _organism_fact(values[:2000], prefixes, "ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    facts += _compressed_fact(src)
    return SniffedFile(path=src.shown, datatype=_LIST_DATATYPES[ns], format=fmt, evidence=tuple(evidence),
                       facts=tuple(facts))


def _sniff_gmt(src: _Source, rows: list[list[str]], prefixes: Mapping[str, str]) -> SniffedFile | None:
    names = [r[0] for r in rows]
    genes = [g for r in rows for g in r[2:] if g]
    ns, share = _namespace(genes[:5000], prefixes)
    if ns == "unknown" or len(set(names)) < len(names) or (ns == "entrez" and src.ext != ".gmt"):
        if src.ext == ".gmt":
            raise _unreadable(src.shown, "not a valid GMT file: each line must be a unique set name, a description, "
                              "then gene ids of one namespace", expected="GMT")
        return None
    sizes = [len([g for g in r[2:] if g]) for r in rows]
    evidence = [f"GMT: {len(rows)} gene sets (name, description, {min(sizes)}-{max(sizes)} genes each)",
                f"genes are {_NAMESPACE_WORDS[ns]} ({share:.0%})"] + _compression_evidence(src)
    facts = [Fact(name="n_sets", value=len(rows), evidence=_n(len(rows), "line")),
             Fact(name="id_namespace", value=ns, evidence=f"genes like {_quote_list(genes, 3)}")]
    org = _organism_fact(genes[:5000], prefixes, "gene ids")
    if org:
        facts.append(org)
    return SniffedFile(path=src.shown, datatype="gene_set_library", format="gmt", evidence=tuple(evidence),
                       facts=tuple(facts + _compressed_fact(src)))


# --------------------------------------------------------------------------- dispatch


def _sniff_text(src: _Source, prefixes: Mapping[str, str]) -> tuple[SniffedFile, _Notes]:
    text_lines = _decode(src.head).lstrip("\ufeff").splitlines()
    if len(src.head) >= _HEAD_BYTES and len(text_lines) > 1:
        text_lines = text_lines[:-1]  # the head ends mid-line
    first = next((ln for ln in text_lines if ln.strip()), "")
    if first.startswith("@"):
        if _SAM_HEADER_RE.match(first):
            return _sniff_sam(src), _Notes()
        return _sniff_fastq(src)
    if first.startswith(">"):
        return _sniff_fasta(src, prefixes), _Notes()
    if first.startswith("##fileformat=VCF") or first.startswith("#CHROM\tPOS"):
        return _sniff_vcf(src), _Notes()
    if first.startswith("##gff-version") or _looks_like_gff(text_lines):
        return _sniff_gff(src, prefixes), _Notes()
    if first.lower().startswith("%%matrixmarket"):
        return _sniff_mtx_file(src, prefixes), _Notes()
    if _DMP_SEP in first:
        return _sniff_dmp_file(src, first)
    if _looks_like_sam_record(first):
        return _sniff_sam(src), _Notes()
    return _sniff_table(src, prefixes), _Notes()


def _sniff(shown: str, prefixes: Mapping[str, str]) -> tuple[SniffedFile, _Notes]:
    src = _open_source(shown)
    if isinstance(src, Path):
        return _sniff_directory(shown, src, prefixes)
    magic, head = src.magic, src.head
    if magic.startswith(b"CRAM"):
        return _sniff_cram(src), _Notes()
    if magic.startswith(_HDF5_MAGIC):
        return _sniff_hdf5(src, prefixes), _Notes()
    if head.startswith(b"BAM\x01"):
        if src.compression is None:
            raise _unreadable(shown, "uncompressed BAM data (BAM must be BGZF-compressed)",
                              ["re-write it with samtools view -b"], expected="BAM")
        return _sniff_bam(src), _Notes()
    if head.startswith(b"BCF\x02"):
        return _sniff_bcf(src), _Notes()
    if src.name.lower().endswith(".k2d"):
        raise _unreadable(shown, "is one file of a Kraken2 database",
                          ["give the database directory (holding hash.k2d, opts.k2d and taxo.k2d) instead"])
    for sig, what in _OTHER_COMPRESSION:
        if head.startswith(sig):
            raise _unreadable(shown, f"is {what}-compressed; bioplan reads plain or gzip-compressed files",
                              ["decompress it (or recompress with gzip/bgzip) and give the result"])
    if _looks_binary(head):
        what = "gzip-compressed binary data" if src.compression else "binary data"
        raise _unreadable(shown, f"is {what} of a type bioplan does not know", [_RECOGNISED_HINT, _INPUT_TYPE_HINT])
    return _sniff_text(src, prefixes)


def sniff_file(path: str, organism_prefixes: Mapping[str, str]) -> SniffedFile:
    """Recognise one input file (no cross-file pairing of FASTQ mates; see `sniff_inputs`).

    Raises:
        UnreadableInputError: missing, empty, unrecognised or malformed input.
        AmbiguousInputError: two readings are equally plausible.
    """
    return _guarded(path, organism_prefixes)[0]


def _guarded(path: str, prefixes: Mapping[str, str]) -> tuple[SniffedFile, _Notes]:
    try:
        return _sniff(path, prefixes)
    except BioplanError:
        raise
    except (OSError, EOFError, zlib.error, UnicodeError, csv.Error, struct.error) as exc:
        # a reader failed in a way the sniffers did not foresee: still a user-facing error, not a traceback
        raise _unreadable(path, f"could not be read ({type(exc).__name__}: {exc})",
                          [_RECOGNISED_HINT, _INPUT_TYPE_HINT]) from None


def sniff_inputs(paths: Sequence[str], organism_prefixes: Mapping[str, str]) -> InputProfile:
    """Recognise every input file: datatype, format and facts with evidence.

    Args:
        paths: input paths as the user gave them (files or directories).
        organism_prefixes: Ensembl gene-id prefix -> organism constraint id,
            e.g. {"ENSMUSG": "organism_mouse", "ENSG": "organism_human"}.

    Returns:
        InputProfile with one SniffedFile per path, in the order given, and
        warnings about the inputs taken together (unpaired mates, lanes,
        sample sheet vs count matrix mismatches).

    Raises:
        UnreadableInputError: a path is missing, empty, unrecognised or malformed.
        AmbiguousInputError: a file has two equally plausible readings.
    """
    results = []
    deferred: list[tuple[str, BioplanError]] = []
    warnings: list[str] = []
    for p in paths:
        try:
            sniffed, notes = _guarded(p, organism_prefixes)
        except BioplanError as exc:
            if any(Path(p).name.endswith((part, part + ".gz")) for part in _MTX_PARTS) \
                    or p.lower().endswith(_INDEX_SUFFIXES):
                deferred.append((p, exc))  # 10x barcodes/features, or an index, given beside their data file
                continue
            raise
        # a folder of per-sample folders is one input per sample
        results += [(f, _Notes()) for f in notes.expanded] if notes.expanded else [(sniffed, notes)]
    matrices = [f for f, _ in results if f.format == "mtx"]
    parts = [(f, n) for f, n in results if f.format != "mtx" and _mtx_part_of(f.path, matrices) is not None]
    for f, n in parts:  # a features.tsv.gz also reads as a gene table: beside its matrix it is part of it
        results.remove((f, n))
        warnings.append(f"{f.path} is read as part of the 10x matrix {_mtx_part_of(f.path, matrices).path}")
    for p, exc in deferred:
        if p.lower().endswith(_INDEX_SUFFIXES):
            data = next((f.path for f, _ in results if os.path.abspath(p).startswith(os.path.abspath(f.path) + ".")
                         or os.path.abspath(p) == os.path.abspath(os.path.splitext(f.path)[0]) + os.path.splitext(p)[1]),
                        None)
            if data is None:
                raise _unreadable(p, "is an index file (tabix .tbi/.csi, BAM .bai, CRAM .crai, FASTA .fai) without "
                                  "its data file among the inputs", ["give the data file it indexes (the index is "
                                                                     "found next to it)"]) from None
            warnings.append(f"{p} is read as the index of {data}")
            continue
        owner = _mtx_part_of(p, matrices)
        if owner is None:
            raise exc
        warnings.append(f"{p} is read as part of the 10x matrix {owner.path}")
    for f, _ in results:
        if f.fact("index_stale"):
            warnings.append(f"{f.path}: " + next(x.evidence for x in f.facts if x.name == "index_stale"))
    _check_unique_samples([f for f, _ in results])
    files = [sniffed for sniffed, _ in results]
    files = _pair_mates(files, [notes for _, notes in results], warnings)
    _check_cohort(files, [notes for _, notes in results], warnings)
    for path, n in Counter(paths).items():
        if n > 1:
            warnings.append(f"{path} is given {n} times")
    return InputProfile(files=tuple(files), warnings=tuple(warnings))


def _check_unique_samples(files: Sequence[SniffedFile]) -> None:
    """Two quantification outputs of one sample name would overwrite each other: an error naming both."""
    seen: dict[str, SniffedFile] = {}
    for f in files:
        if f.datatype != "transcript_quantification" or f.sample is None:
            continue
        other = seen.setdefault(f.sample, f)
        if other is not f:
            why = next((e for e in f.evidence if e.startswith("sample '")), "")
            raise AmbiguousInputError(
                f"two inputs have the sample name '{f.sample}': {other.path} and {f.path}"
                + (f" ({why})" if why else ""),
                ["give each sample's quantification in a folder named after the sample "
                 "(ctrl_1/quant.sf, ctrl_2/quant.sf) or in files named after it (ctrl_1.genes.results)",
                 "or check that the same sample was not given twice"],
                {"sample": f.sample, "paths": [other.path, f.path]})


def _pair_mates(files: list[SniffedFile], notes: list[_Notes], warnings: list[str]) -> list[SniffedFile]:
    """Settle weak mate suffixes (_1/_2) against the other inputs; warn about unpaired or repeated mates."""
    mates_of: dict[str, set[int]] = {}
    for f in files:
        if f.datatype == "raw_reads" and f.sample is not None and f.mate:
            mates_of.setdefault(f.sample, set()).add(f.mate)
    out: list[SniffedFile] = []
    for f, note in zip(files, notes):
        named = note.mate_name
        if (f.datatype == "raw_reads" and named is not None and named.mate and not named.strong
                and note.read_id_mate in (None, 1) and mates_of.get(f.sample, set()) == {named.mate}):
            # "x_1.fastq" alone: a single-end sample called "x_1", not mate 1 of "x"
            # (single-end Illumina reads all say read 1, so such ids do not make it a mate)
            ev = [e for e in f.evidence if not e.startswith(f"mate {named.mate} of sample")]
            ev.append(f"single-end sample '{named.stem}': name ends {named.suffix} but no mate "
                      f"{3 - named.mate} file among the inputs and no mate in the read ids")
            f = f.model_copy(update={"sample": named.stem, "mate": None, "evidence": tuple(ev)})
        out.append(f)
    groups: dict[tuple[str, int | None], list[str]] = {}
    for f in out:
        if f.datatype == "raw_reads" and f.sample is not None and not f.fact("interleaved", False):
            groups.setdefault((f.sample, f.mate), []).append(f.path)
    samples = dict.fromkeys(s for s, _ in groups)
    for s in samples:
        m1, m2 = groups.get((s, 1), []), groups.get((s, 2), [])
        if m1 and not m2:
            warnings.append(f"sample '{s}': mate 1 given ({_quote_list(m1, 2)}) but no mate 2")
        if m2 and not m1:
            warnings.append(f"sample '{s}': mate 2 given ({_quote_list(m2, 2)}) but no mate 1")
        if (m1 or m2) and groups.get((s, None)):
            warnings.append(f"sample '{s}' has both paired and unpaired FASTQ files")
        for mate in (1, 2, None):
            paths = groups.get((s, mate), [])
            if len(paths) > 1:
                what = f"mate {mate}" if mate else "single-end reads"
                warnings.append(f"sample '{s}' has {len(paths)} files for {what} ({_quote_list(paths, 3)}): "
                                "lanes or re-runs must be merged")
    return out


_ALIGNMENT_SUFFIX_RE = re.compile(
    r"(?:[._]?Aligned\.sortedByCoord\.out|\.sorted|\.markdup|\.dedup)*\.(?:bam|sam|cram)$")


def _column_sample(name: str) -> str:
    """featureCounts names count columns by BAM path: 'aln/ctrl_1.sorted.bam' -> 'ctrl_1'."""
    if _ALIGNMENT_SUFFIX_RE.search(name):
        return _ALIGNMENT_SUFFIX_RE.sub("", name.replace("\\", "/").rsplit("/", 1)[-1])
    return name


def _check_cohort(files: list[SniffedFile], notes: list[_Notes], warnings: list[str]) -> None:
    sheets = [f for f in files if f.datatype == "sample_metadata"]
    matrices = [f for f in files if f.datatype in ("raw_count_matrix", "normalized_count_matrix")]
    for sheet in sheets:
        if without_data := sheet.fact("rows_without_data"):
            warnings.append(f"{sheet.path}: {_n(len(without_data), 'row')} without data, left out of the analysis: "
                            + "; ".join(without_data[:10]) + (" ..." if len(without_data) > 10 else "")
                            + "; to resolve, fill them in or delete them")
        listed = set(sheet.fact("samples", []))
        for m in matrices:
            columns = {_column_sample(c) for c in m.fact("sample_names", [])}
            missing = sorted(listed - columns)
            extra = sorted(columns - listed)
            if missing:
                warnings.append(f"{sheet.path} lists sample(s) {_quote_list(missing)} that are not columns of {m.path}")
            if extra:
                warnings.append(f"{m.path} has column(s) {_quote_list(extra)} that {sheet.path} does not list")
        if sheet.fact("replicates") is not None and len(sheet.fact("replicates")) < 2:
            warnings.append(f"{sheet.path}: condition column '{sheet.fact('condition_column')}' has a single level "
                            "(nothing to compare)")
        elif (min_rep := sheet.fact("min_replicates")) is not None and min_rep < 2:
            reps = sheet.fact("replicates", {})
            single = [k for k, v in reps.items() if v < 2]
            warnings.append(f"{sheet.path}: level(s) {_quote_list(single)} of '{sheet.fact('condition_column')}' have "
                            "fewer than 2 samples (no replicates)")
    dmp = {name for n in notes for name in n.dmp_files}
    if dmp and len(dmp) < 2:
        (have,) = dmp
        other = "names.dmp" if have == "nodes.dmp" else "nodes.dmp"
        warnings.append(f"a taxonomy dump needs nodes.dmp and names.dmp; only {have} is given (add {other})")
    for f in files:
        if f.format == "vcf.gz" and f.fact("bgzipped") is False:
            warnings.append(f"{f.path} is gzip- but not bgzip-compressed: tabix and bcftools need bgzip "
                            "(zcat FILE | bgzip > FILE.bgz)")
