"""What every sniffer shares: the input as a `Source` (first bytes, compression, bounded line
reading), user-facing errors that say how to override the sniffing, and identifier helpers (gene id
namespace, organism from Ensembl prefixes). No knowledge ids here."""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import re
import stat
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from bioplan.errors import AmbiguousInputError, UnreadableInputError
from bioplan.models import Fact, SniffedFile

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
RECOGNISED_HINT = "bioplan recognises: " + "; ".join(RECOGNISED)
INPUT_TYPE_HINT = "or say what the file is with --input-type FILE=DATATYPE (datatype ids: ontology/datatypes.yaml)"


def _override_hint(shown: str, readings: Sequence[str] = ()) -> str:
    """How to overrule the sniffing for this one file (`--input-type FILE=DATATYPE`)."""
    example = readings[0] if readings else "DATATYPE"
    also = f" (one of {', '.join(readings)})" if len(readings) > 1 else ""
    return f"to override the sniffing, declare the file's type: --input-type {shown}={example}{also}"

# Reading budgets (bytes after decompression / records).
HEAD_BYTES = 64 * 1024
MAX_LINE = 1 << 20
_BLOCK = 64 * 1024  # Lines.take reads this much at a time

BAM_HEADER_MAX = 64 << 20

_GZIP_MAGIC = b"\x1f\x8b"

# --------------------------------------------------------------------------- identifiers

# a cell barcode (10x, Drop-seq; a sample prefix and a GEM well suffix allowed): read by the cell-table reader and
# by the table reader (a one-column list of them), which must not import that whole reader for it
BARCODE_RE = re.compile(r"^(?:[A-Za-z0-9]+[_:.-])?[ACGTN]{8,20}(?:-\d{1,2})?$")
_ENSEMBL_GENE_RE = re.compile(r"^(?:ENS[A-Z]*G\d{6,}|FBgn\d{5,})(?:\.\d+)?$")
_ENTREZ_RE = re.compile(r"^\d{1,9}$")
_SYMBOL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9]*(?:[-._:/@()'][A-Za-z0-9]+)*[)']?$")
FASTQ_PATH_RE = re.compile(r"\.(?:fastq|fq)(?:\.gz)?$", re.IGNORECASE)


def _organism_name(constraint_id: str) -> str:
    return constraint_id.removeprefix("organism_").replace("_", " ")


def _id_prefix(gene_id: str, prefixes: Mapping[str, str]) -> str | None:
    """The longest organism prefix `gene_id` starts with (followed by a digit)."""
    return _prefix_finder(prefixes)(gene_id)


def _prefix_finder(prefixes: Mapping[str, str]) -> Callable[[str], str | None]:
    """`_id_prefix` for many ids: the prefixes grouped by their first character, longest first, so an
    id is compared with the few that can start it instead of every organism's (a sniffed table asks
    this of up to 2,000 values per column: ~10 ms of the bulk example's sniffing)."""
    by_first: dict[str, list[str]] = {}
    for prefix in sorted(prefixes, key=len, reverse=True):  # two of one length cannot both fit an id
        by_first.setdefault(prefix[:1], []).append(prefix)
    empty = "" in by_first  # the empty prefix fits any id starting with a digit

    def find(gene_id: str) -> str | None:
        for prefix in by_first.get(gene_id[:1], ()):
            if gene_id.startswith(prefix) and len(gene_id) > len(prefix) and gene_id[len(prefix)].isdigit():
                return prefix
        return "" if empty and gene_id[:1].isdigit() else None

    return find


def is_ensembl_gene(value: str, prefixes: Mapping[str, str]) -> bool:
    return bool(_ENSEMBL_GENE_RE.match(value)) or _id_prefix(value, prefixes) is not None


def id_namespace(values: Sequence[str], prefixes: Mapping[str, str]) -> tuple[str, float]:
    """Identifier namespace of `values` ("ensembl", "entrez", "symbol", "unknown") and the share that fits."""
    vals = [v for v in values if v]
    if not vals:
        return "unknown", 0.0
    n = len(vals)
    find = _prefix_finder(prefixes)
    # how many values fit each namespace; each regular expression mapped over the values in C
    fits: dict[str, Callable[[], int]] = {
        "ensembl": lambda: sum(1 for v, m in zip(vals, map(_ENSEMBL_GENE_RE.match, vals)) if m or find(v) is not None),
        "entrez": lambda: n - list(map(_ENTREZ_RE.match, vals)).count(None),
        "symbol": lambda: sum(1 for v, m in zip(vals, map(_SYMBOL_RE.match, vals))
                              if m and not v.isdigit() and len(v) <= 40),
    }
    shares = []
    for name, fit in fits.items():  # most specific first; the first that fits answers, unread the rest
        share = fit() / n
        if share >= 0.9:
            return name, share
        shares.append(share)
    return "unknown", max(shares)


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
    find = _prefix_finder(table)
    hits = Counter(p for p in (find(i) for i in ids if i) if p)
    if not hits:
        return None
    prefix, n = hits.most_common(1)[0]
    if n < 0.8 * sum(hits.values()):
        return None  # mixed organisms: say nothing
    return table[prefix], prefix, n


def organism_fact(ids: Sequence[str], prefixes: Mapping[str, str], what: str,
                  transcripts: bool = False) -> Fact | None:
    found = _organism_of(ids, prefixes, transcripts)
    if found is None:
        return None
    organism, prefix, n = found
    return Fact(name="organism", value=organism,
                evidence=f"{what} match {prefix} ({_organism_name(organism)}; {n} of {len(ids)} checked)")


def count_noun(count: int, noun: str, plural: str | None = None) -> str:
    """'1 sample', '3 samples'."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def quote_list(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(f"'{i}'" for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")



# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Source:
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
        return cast(IO[bytes], gzip.open(self.path, "rb")) if self.compression == "gzip" else open(self.path, "rb")

    @functools.cached_property
    def text_lines(self) -> list[str]:
        """The head as text lines (a last line cut by the head's end left out)."""
        lines = decode(self.head).lstrip("\ufeff").splitlines()
        return lines[:-1] if len(self.head) >= HEAD_BYTES and len(lines) > 1 else lines

    @functools.cached_property
    def nonblank_lines(self) -> list[str]:
        """The head's text lines that are not blank (the report readers ask several times per file; not
        to be changed)."""
        return list(filter(str.strip, self.text_lines))  # the lines whose strip() is not empty, filtered in C

    @property
    def first_line(self) -> str:
        """The first non-blank line of the head ("" for none)."""
        return next((ln for ln in self.text_lines if ln.strip()), "")


@dataclass(frozen=True)
class Folder:
    """A directory given as an input, with its entries' names (sorted)."""

    shown: str
    path: Path
    entries: tuple[str, ...]


@dataclass(frozen=True)
class Context:
    """What a reader may consult beyond the input: the organisms' Ensembl gene-id prefixes, the
    declarative format signatures of the knowledge (formats.yaml `sniff`), and the whole dispatch,
    for a folder read through a file inside it (a Salmon folder through its quant.sf)."""

    prefixes: Mapping[str, str]
    signatures: tuple[FormatSignature, ...] = ()
    dispatch: Callable[[str, Context], tuple[SniffedFile, Notes]] | None = None
    # datatypes the request expects among its inputs, each with why ("read alignment reads a reference
    # genome"), in levels (what the requested operations read, then what the request names): they settle a
    # file whose content allows several readings (a FASTA of 'seq1', 'seq2'; a plain BED)
    expected: tuple[Mapping[str, str], ...] = ()
    # every input path as given: a tool's report beside the data it describes (featureCounts' .summary beside
    # the counts) is a QC report then, not a misplaced file
    inputs: tuple[str, ...] = ()

    def sniff(self, shown: str) -> tuple[SniffedFile, Notes]:
        if self.dispatch is None:
            raise RuntimeError("a Context without a dispatch cannot read a file inside a folder")
        return self.dispatch(shown, self)


@dataclass(frozen=True)
class FormatSignature:
    """A format of the knowledge recognised by its name and first bytes alone (formats.yaml `sniff`)."""

    format: str  # format id
    label: str
    datatype: str  # what a file of the format is
    extensions: tuple[str, ...]  # lower case, with the dot
    magic: bytes | None  # the content (after gzip decompression) starts with these bytes
    header: re.Pattern[str] | None  # the first non-blank line matches


@dataclass(frozen=True)
class FileSniffer:
    """One reader of the registry: the knowledge formats and datatypes it can report, whether it takes
    a file (from its first bytes, its first line or its name), and how it reads it. `read` raises a
    BioplanError for a file it takes but finds malformed (or refuses)."""

    name: str
    formats: tuple[str, ...]
    datatypes: tuple[str, ...]
    claims: Callable[[Source, Context], bool]
    read: Callable[[Source, Context], tuple[SniffedFile, Notes]]


@dataclass(frozen=True)
class FolderSniffer:
    """A reader of directories: None when the folder is not its kind."""

    name: str
    formats: tuple[str, ...]
    datatypes: tuple[str, ...]
    read: Callable[[Folder, Context], tuple[SniffedFile, Notes] | None]


def _with_override(shown: str, hints: Sequence[str], readings: Sequence[str] = ()) -> list[str]:
    """`hints`, ending with how to declare the type when no hint says so yet."""
    out = list(hints)
    if not any("--input-type" in h for h in out):
        out.append(_override_hint(shown, readings))
    return out


def unreadable(shown: str, problem: str, hints: Sequence[str] = (),
               expected: str | None = None, override: bool = True) -> UnreadableInputError:
    details: dict[str, Any] = {"path": shown}
    if expected:
        details["expected"] = expected
    # every error about an input's content says how to overrule the sniffing (a missing file it cannot help)
    return UnreadableInputError(f"{shown}: {problem}", _with_override(shown, hints) if override else list(hints),
                                details)


def ambiguous(shown: str, problem: str, readings: Sequence[str], hints: Sequence[str],
              found: SniffedFile | None = None) -> AmbiguousInputError:
    """`found`: what the file is read as (format, evidence, facts) once a reading is chosen, when the readings
    differ only in the datatype; the request may then settle it (`registry.guarded`, `Context.expected`)."""
    exc = AmbiguousInputError(f"{shown}: {problem}", _with_override(shown, hints, readings),
                              {"path": shown, "readings": list(readings)})
    exc.found = found  # type: ignore[attr-defined]
    return exc


def corrupt(shown: str, exc: BaseException) -> UnreadableInputError:
    return unreadable(shown, f"compressed data is corrupt or truncated ({exc})",
                      ["re-download or re-compress the file (gzip -t FILE checks it)"])


NOT_REGULAR = "is not a regular file (a pipe, socket or device cannot be sniffed)"


def open_regular(path: Path, shown: str) -> IO[bytes]:
    """`path` opened for reading only if it is a regular file. A FIFO, socket or device (a file inside a
    folder an input names, or one swapped in after a check by name) would block the sniffer for ever or
    never end: it is opened without blocking and checked on the open descriptor, not by its name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise unreadable(shown, NOT_REGULAR, ["save the data to a file and give its path"])
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


@contextlib.contextmanager
def open_member(path: Path, shown: str) -> Iterator[IO[bytes]]:
    """A regular file of an input folder (a 10x matrix's parts, a quantifier's run records), gunzipped when
    its name ends in .gz. Readers take bounded lines from it (`readline(MAX_LINE)`): its content is the
    user's, and a gzip member can expand a thousandfold."""
    with open_regular(path, shown) as raw:
        if path.name.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw) as unzipped:
                yield cast(IO[bytes], unzipped)
        else:
            yield raw


def decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


class Lines:
    """Lines of a (possibly gzipped) text file, up to `budget` bytes of content.

    `complete` is True once the whole file has been read.
    """

    def __init__(self, src: Source, budget: int, max_line: int = MAX_LINE):
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
                    raise corrupt(self.src.shown, exc) from None
                if not raw:
                    self.complete = True
                    return
                read += len(raw)
                self.lineno += 1
                yield raw

    def __iter__(self) -> Iterator[str]:
        for raw in self.raw():
            line = decode(raw).rstrip("\r\n")
            if self.lineno == 1:
                line = line.lstrip("\ufeff")
            yield line

    def take(self, n: int) -> list[str] | None:
        """The first `n` lines as iterating gives them (fewer where the file ends), read and cut as one
        block: 4,000 FASTQ lines cost ~10x less than with a `readline` per line through gzip's Python
        layers. None where the block could differ from iterating (a damaged file, a line over `max_line`,
        the budget reached, text that is not UTF-8): the caller then reads line by line, as before."""
        text = self._block(n)
        if text is None:
            return None
        lines = text.lstrip("\ufeff").split("\n")
        return [line.rstrip("\r") for line in lines] if "\r" in text else lines

    def _block(self, n: int) -> str | None:
        """The text of the first `n` lines without the last newline, or None (see `take`)."""
        pieces: list[bytes] = []
        newlines = size = 0
        try:
            with self.src.open() as fh:
                reader: Any = fh  # gzip and plain files: one block per read1
                while newlines < n and size < self.budget:
                    more = reader.read1(_BLOCK)
                    if not more:
                        break
                    pieces.append(more)
                    newlines += more.count(b"\n")
                    size += len(more)
        except (OSError, EOFError, zlib.error):
            return None  # read again line by line: the error where that reading meets it
        lines = b"".join(pieces).split(b"\n", n)[:n]
        if lines and not lines[-1] and newlines < n:
            lines.pop()  # the file ends with a newline
        if not lines or sum(map(len, lines)) + len(lines) >= self.budget or max(map(len, lines)) >= self.max_line:
            return None
        try:
            return b"\n".join(lines).decode("utf-8")
        except UnicodeDecodeError:
            return None


def _is_bgzf(magic: bytes) -> bool:
    # gzip member with FEXTRA whose first subfield is 'BC' (SAM/BAM spec, section 4.1)
    return len(magic) >= 14 and magic[:2] == _GZIP_MAGIC and bool(magic[3] & 4) and magic[12:14] == b"BC"


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13))


def looks_binary(head: bytes) -> bool:
    sample = head[:8192]
    if b"\x00" in sample:
        return True
    control = len(sample) - len(sample.translate(None, _CONTROL_BYTES))  # counted in C
    return control > 0.05 * max(1, len(sample))


def open_source(shown: str) -> Source | Path:
    """A readable regular file as a `Source`, or the Path of a directory."""
    if not shown.strip():
        raise unreadable(shown, "an empty string is not a path", ["give the path of an input file"], override=False)
    path = Path(shown)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise unreadable(shown, "no such file or directory",
                         ["check the path (relative paths are taken from the current directory)"],
                         override=False) from None
    except OSError as exc:
        raise unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        return path
    if not stat.S_ISREG(st.st_mode):
        raise unreadable(shown, NOT_REGULAR, ["save the data to a file and give its path"])
    if st.st_size == 0:
        raise unreadable(shown, "is empty (0 bytes)",
                         ["give the file that holds the data; an empty file has no datatype"])
    try:
        with open_regular(path, shown) as fh:  # checked again on the descriptor: a FIFO swapped in since
            magic = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None
    if magic[:2] != _GZIP_MAGIC:
        return Source(shown, path, None, False, magic, magic)
    try:
        with gzip.open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise corrupt(shown, exc) from None
    if not head:
        raise unreadable(shown, "is empty once decompressed (a gzip file holding 0 bytes)",
                         ["give the file that holds the data"])
    return Source(shown, path, "gzip", bool(_is_bgzf(magic)), magic, head)


def compression_evidence(src: Source) -> list[str]:
    if src.compression is None:
        return []
    return ["bgzip-compressed (BGZF)" if src.bgzf else "gzip-compressed"]


def compressed_fact(src: Source) -> list[Fact]:
    """For formats whose id does not say `.gz` (gtf, tsv, ...): record the compression as a fact."""
    if src.compression is None:
        return []
    return [Fact(name="compressed", value=True, evidence=compression_evidence(src)[0])]



@dataclass(frozen=True)
class MateName:
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





@dataclass(frozen=True)
class Notes:
    """What the cross-file pass needs to know beyond the SniffedFile."""

    mate_name: MateName | None = None
    read_id_mate: int | None = None
    # a FASTQ's first read name without its /1 /2: mates of one pair share it, whatever the files are called
    first_read: str = ""
    dmp_files: tuple[str, ...] = ()
    # a folder that stands for several inputs (one quantification folder per sample)
    expanded: tuple[SniffedFile, ...] = ()


CHROM_ID_RE = re.compile(r"^(?:chr)?(?:\d{1,2}[A-Za-z]?|[XYZW]|MT?|Un\S*|\S*_random|\S*_alt)$", re.IGNORECASE)
CHROM_ACC_RE = re.compile(r"^(?:NC_|NT_|NW_|NZ_|AC_|CM\d|CP\d|GK\d|KI\d|JH\d|GL\d)")

TX_ID_RE = re.compile(r"^(?:ENS[A-Z]*T\d{6,}|FBtr\d{5,}|[NX][MR]_\d+|TRINITY_|transcript:|rna-)")

def read_exact(fh: IO[bytes], n: int, shown: str) -> bytes:
    try:
        return fh.read(n)
    except (OSError, EOFError, zlib.error) as exc:
        raise corrupt(shown, exc) from None




def attr_str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def h5_strings(ds: Any, limit: int) -> list[str]:
    return [attr_str(v) for v in ds[:limit]]


NAMESPACE_WORDS = {"ensembl": "Ensembl gene ids", "entrez": "Entrez gene ids", "symbol": "gene symbols"}
