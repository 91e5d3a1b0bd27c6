"""Genomic interval files as genome browsers and bedtools write them: BED (3 to 12 columns, with
UCSC `track`/`browser` lines or `#` comments above), narrowPeak/broadPeak, bedGraph; and the interval
files bioplan does not take, refused by name (BEDPE, WIG, chromosome sizes).

A BED file holds no word saying what its intervals are: the file name may (`hg38-blacklist.v2.bed`,
`sample_peaks.bed`), else the reading is ambiguous between the BED datatypes of the knowledge and
the request settles it (`registry.guarded`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bioplan.errors import UnreadableInputError
from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    CHROM_ACC_RE,
    CHROM_ID_RE,
    Context,
    FileSniffer,
    Lines,
    Notes,
    Source,
    ambiguous,
    compressed_fact,
    compression_evidence,
    count_noun,
    quote_list,
    unreadable,
)

_BUDGET = 16 << 20
_SHAPE_ROWS = 2000  # rows whose shape is checked; the rest are only counted
# extensions that say "intervals" whatever the first column holds (bedtools' test chromosomes 'xx', 'chrbig')
_INTERVAL_EXTS = (".bed", ".narrowpeak", ".broadpeak", ".gappedpeak", ".bedgraph", ".bdg", ".bedpe", ".genome",
                  ".sizes", ".wig")
_HEADER_PREFIXES = ("track ", "track\t", "browser ", "#")
_STRANDS = frozenset("+-.")
_BLACKLIST_NAME_RE = re.compile(r"blacklist|exclu(?:de|sion)|denylist|problematic[_-]?regions", re.IGNORECASE)
_PEAK_NAME_RE = re.compile(r"peaks?\b|peaks?[_.-]|summits?", re.IGNORECASE)
_CHROM_SIZES_NAME_RE = re.compile(r"\.genome$|\.sizes$|\.genomesize$|chrom_?info|chromsizes", re.IGNORECASE)
BED_READINGS = ("peak_calls", "genome_blacklist")


@dataclass(frozen=True)
class Intervals:
    """The first rows of an interval file, below its track/browser/comment lines."""

    headers: tuple[str, ...]  # track, browser and '#' lines above the data
    rows: tuple[tuple[str, ...], ...]  # the first data rows, split on tabs
    n_rows: int
    complete: bool

    @property
    def track_type(self) -> str | None:
        track = next((h for h in self.headers if h.startswith("track")), "")
        found = re.search(r"\btype=\"?([A-Za-z_0-9]+)", track)
        return found.group(1).lower() if found else None

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0


def _is_int(v: str) -> bool:
    return v.isdigit()


def _is_num(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def _chrom_like(v: str) -> bool:
    return bool(CHROM_ID_RE.match(v) or CHROM_ACC_RE.match(v))


def _data_lines(src: Source) -> tuple[list[str], list[str]]:
    """(header lines, data lines) of the head: blank lines dropped."""
    headers: list[str] = []
    data: list[str] = []
    for ln in src.text_lines:
        if not ln.strip():
            continue
        if not data and ln.startswith(_HEADER_PREFIXES):
            headers.append(ln)
        else:
            data.append(ln)
    return headers, data


def _bed_like(fields: Sequence[str]) -> bool:
    return len(fields) >= 3 and bool(fields[0]) and _is_int(fields[1]) and _is_int(fields[2])


def _claims(src: Source, ctx: Context) -> bool:
    headers, data = _data_lines(src)
    if any(h.startswith(("track", "browser")) for h in headers) and not data:
        return True
    if any(ln.startswith(("fixedStep", "variableStep")) for ln in data[:1]) \
            or any(h.startswith("track") and "type=wiggle_0" in h for h in headers):
        return True  # WIG (several tracks: BED-like, variableStep and fixedStep blocks in one file)
    rows = [ln.split("\t") for ln in data[:50]]
    if not rows:
        return False
    named = src.ext in _INTERVAL_EXTS or _CHROM_SIZES_NAME_RE.search(src.name) is not None
    browser = any(h.startswith(("track", "browser")) for h in headers)
    if all(len(r) == 2 and _is_int(r[1]) for r in rows):  # chromosome sizes
        return named or sum(_chrom_like(r[0]) for r in rows) >= 0.8 * len(rows)
    if not all(_bed_like(r) for r in rows):
        # a browser track may be space-separated (UCSC accepts whitespace)
        return browser and all(_bed_like(ln.split()) for ln in data[:50])
    # without an interval extension or a track line, only BED's own widths (not a 40-column table of integers),
    # on chromosome-like names or on sequence names repeated down the file (a table's ids are distinct)
    if named or browser:
        return True
    # intervals have a length: start < end (an Illumina qseq's run 1, lane 1 columns do not)
    ordered = all(int(r[1]) <= int(r[2]) for r in rows) and sum(int(r[1]) < int(r[2]) for r in rows) >= 0.9 * len(rows)
    chroms = [r[0] for r in rows]
    repeated = len(rows) >= 4 and len(set(chroms)) <= len(rows) / 2
    return len(rows[0]) <= 15 and ordered and (sum(map(_chrom_like, chroms)) >= 0.8 * len(rows) or repeated)


def _read_intervals(src: Source) -> Intervals:
    headers: list[str] = []
    rows: list[tuple[str, ...]] = []
    n = 0
    reader = Lines(src, _BUDGET)
    for ln in reader:
        if not ln.strip():
            continue
        if n == 0 and ln.startswith(_HEADER_PREFIXES):
            headers.append(ln)
            continue
        n += 1
        if len(rows) < _SHAPE_ROWS:
            rows.append(tuple(ln.split("\t") if "\t" in ln else ln.split()))
    return Intervals(tuple(headers), tuple(rows), n, reader.complete)


def _refuse(src: Source, problem: str, hints: Sequence[str]) -> UnreadableInputError:
    return unreadable(src.shown, problem, list(hints), expected="a recognised input")


def _check_rows(src: Source, iv: Intervals) -> None:
    """Every shape-checked row is chrom, start, end with 0 <= start <= end and the first row's width."""
    for i, r in enumerate(iv.rows):
        if len(r) != iv.width:
            raise unreadable(src.shown, f"malformed BED: data row {i + 1} has {len(r)} fields but the first has "
                             f"{iv.width}", ["every BED line needs the same number of tab-separated columns"],
                             expected="BED intervals")
        if not _bed_like(r) or int(r[1]) > int(r[2]):
            raise unreadable(src.shown, f"malformed BED: data row {i + 1} is not chrom, start, end with start <= end "
                             f"({quote_list(r[:3], 3)})", ["BED lines are chrom<TAB>start<TAB>end[<TAB>...]"],
                             expected="BED intervals")


def _peak_shape(iv: Intervals, width: int) -> bool:
    """narrowPeak (10 columns) / broadPeak (9): name, score, strand, signal, p, q [, summit offset]."""
    return iv.width == width and all(
        r[5] in _STRANDS and _is_num(r[4]) and all(_is_num(v) for v in r[6:]) for r in iv.rows)


def _bedpe_shape(iv: Intervals) -> bool:
    return iv.width >= 6 and all(not _is_int(r[3]) and _is_int(r[4]) and _is_int(r[5]) for r in iv.rows)


def _file(src: Source, datatype: str, fmt: str, iv: Intervals, what: str, count: str) -> SniffedFile:
    chroms = list(dict.fromkeys(r[0] for r in iv.rows))
    more = "" if iv.complete else "+"
    evidence = (f"{what}: {iv.n_rows}{more} intervals of {iv.width} columns (chrom, start <= end) on "
                f"{count_noun(len(chroms), 'sequence')} such as {quote_list(chroms, 3)}",
                *(f"header line {h[:80]!r}" for h in iv.headers if h.startswith("track")),
                *compression_evidence(src))
    facts = [Fact(name=count, value=iv.n_rows, evidence=count_noun(iv.n_rows, "data row") + more)]
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=evidence,
                       facts=tuple(facts + compressed_fact(src)))


def _refuse_other(src: Source, iv: Intervals) -> None:
    """The interval files bioplan does not take, named so the user knows what was seen."""
    if iv.track_type in ("wiggle_0", "bigwig", "bigbed", "vcftabix", "bam") \
            or any(r and r[0].startswith(("fixedStep", "variableStep")) for r in iv.rows[:1]):
        raise _refuse(src, "is a WIG coverage track (a UCSC 'track type=wiggle_0' or fixedStep/variableStep file), "
                      "which bioplan does not read", ["convert it to bigWig (wigToBigWig) or bedGraph and give that"])
    if not iv.rows:
        raise _refuse(src, "holds only track/browser/comment lines, no intervals", ["give a file with intervals"])
    if iv.width == 2 and all(_is_int(r[1]) for r in iv.rows):
        raise _refuse(src, f"is a chromosome sizes table (name, length; e.g. {iv.rows[0][0]} {iv.rows[0][1]}), "
                      "which bioplan does not take as an input",
                      ["bioplan derives chromosome sizes from the reference genome FASTA (samtools faidx): give the "
                       "genome FASTA instead"])
    if src.ext == ".gappedpeak" or iv.width == 15 and _peak_shape(iv, 15):
        raise _refuse(src, "is a gappedPeak file (MACS2 --broad: broad regions with their narrow peaks as blocks), "
                      "which bioplan does not read", ["give the broadPeak file MACS2 wrote beside it"])
    if _junction_bed(iv):
        raise _refuse(src, "is a splice-junction BED (TopHat's junctions.bed: one junction per line as two blocks "
                      "around the intron, its read count in the score), which bioplan does not take as an input",
                      ["give the alignments (BAM) the junctions were found in: bioplan counts reads and assembles "
                       "transcripts from them"])
    if iv.width >= 6 and sum(bool(_PRIMER_NAME_RE.search(r[3])) for r in iv.rows if len(r) > 3) >= 0.9 * len(iv.rows):
        raise _refuse(src, f"is an amplicon primer scheme (ARTIC/PrimalScheme primer BED: {iv.rows[0][3]!r} and the "
                      "other _LEFT/_RIGHT primers with their pool), which bioplan does not read: it has no "
                      "primer-trimming step for tiled-amplicon sequencing", [
                          "run a pipeline made for amplicon sequencing with it (nf-core/viralrecon --primer_bed), or "
                          f"trim the primers from the alignments first (ivar trim -b {src.shown}) and give the trimmed "
                          "alignments (BAM)"])
    if _bedpe_shape(iv) and not _peak_shape(iv, 10):
        raise _refuse(src, "is BEDPE (two intervals per line: chrom1, start1, end1, chrom2, start2, end2), which "
                      "bioplan does not take as an input", ["give single-interval BED, narrowPeak or bedGraph files"])


_JUNCTION_NAME_RE = re.compile(r"^JUNC\d+$")
# PrimalScheme's primer names: <scheme>_<amplicon>_LEFT|RIGHT, with _alt / _1 / _2 variants
_PRIMER_NAME_RE = re.compile(r"_\d+_(?:LEFT|RIGHT)(?:_(?:alt)?\d*)?$", re.IGNORECASE)


def _junction_bed(iv: Intervals) -> bool:
    """TopHat's junctions.bed (and regtools' BED12): 12 columns, two blocks, JUNC names or a 'junctions' track."""
    track = next((h for h in iv.headers if h.startswith("track")), "").lower()
    # rows as read, of any width (a truncated last row is shorter): the width is the most rows'
    return iv.width == 12 and all(len(r) == 12 and r[9] == "2" for r in iv.rows) and (
        "junctions" in track or all(_JUNCTION_NAME_RE.match(r[3]) for r in iv.rows))


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    iv = _read_intervals(src)
    _refuse_other(src, iv)
    _check_rows(src, iv)
    if src.ext == ".narrowpeak" or _peak_shape(iv, 10):
        return _file(src, "peak_calls", "narrowpeak", iv, "narrowPeak peaks", "n_peaks"), Notes()
    if src.ext == ".broadpeak" or (src.ext != ".bed" and _peak_shape(iv, 9)):
        return _file(src, "peak_calls", "broadpeak", iv, "broadPeak peaks", "n_peaks"), Notes()
    # a number, not a name, in the fourth column: coverage (bedtools genomecov -bg, mosdepth's per-base.bed.gz)
    if iv.track_type == "bedgraph" or src.ext in (".bedgraph", ".bdg") or (
            iv.width == 4 and all(_is_num(r[3]) for r in iv.rows)):
        return _file(src, "coverage_track", "bedgraph", iv, "bedGraph coverage", "n_intervals"), Notes()
    return _bed(src, iv), Notes()


def _bed(src: Source, iv: Intervals) -> SniffedFile:
    """A plain BED file: blacklist or peaks by its name, else ambiguous (the request may settle it)."""
    if (word := _BLACKLIST_NAME_RE.search(src.name)) is not None:
        return _file(src, "genome_blacklist", "bed", iv, f"BED intervals, a blacklist by the file name "
                     f"({word.group(0)!r})", "n_intervals")
    if (word := _PEAK_NAME_RE.search(src.name)) is not None:
        return _file(src, "peak_calls", "bed", iv, f"BED intervals, peaks by the file name ({word.group(0)!r})",
                     "n_peaks")
    found = _file(src, BED_READINGS[0], "bed", iv, "BED intervals", "n_intervals")
    raise ambiguous(
        src.shown,
        f"BED file of {count_noun(iv.n_rows, 'interval')}{'' if iv.complete else ' or more'} ({iv.width} columns): "
        "neither its name nor "
        "its content says whether they are peaks or regions to exclude (a blacklist)",
        list(BED_READINGS),
        ["say it in the request ('filter the peaks against this blacklist', 'merge these peaks'), or name the file "
         "after what it holds (sample_peaks.bed, hg38-blacklist.bed)",
         f"or declare it: --input-type {src.shown}=peak_calls (or genome_blacklist)"],
        found=found)


INTERVALS = FileSniffer("BED, narrowPeak/broadPeak, bedGraph (BEDPE, WIG, chromosome sizes refused)",
                        ("bed", "narrowpeak", "broadpeak", "bedgraph"),
                        ("peak_calls", "genome_blacklist", "coverage_track"), _claims, _read)
