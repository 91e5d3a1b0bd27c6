"""Tables with one read per row: Illumina's pipeline files of before FASTQ (qseq, export, _seq.txt) and
old aligners' text output (Bowtie 1's default, MAQ's mapview). Their tile, coordinate and position
columns made the table reader take them for a count matrix; a column of read sequences says what they
are. Each is refused by name, saying what to give instead (bioplan reads reads as FASTQ, alignments as
SAM/BAM/CRAM)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

_READ_SEQ_RE = re.compile(r"^[ACGTNacgtn.]{12,}$")
_INT_RE = re.compile(r"^-?\d+$")
_TO_FASTQ = ("convert it to FASTQ and give that: one record per row, named from the instrument:lane:tile:x:y "
             "columns, with the sequence and quality columns (Picard IlluminaBasecallsToFastq does this from the "
             "run folder); old pipelines wrote Phred+64 qualities, which bioplan's tools read once converted "
             "(seqtk seq -Q64 -V)")
_REALIGN = ("give the reads as FASTQ to align them again, or the alignments as SAM/BAM "
            "(rerun the aligner with SAM output)")


@dataclass(frozen=True)
class _Layout:
    """One per-read table: its column count, the column holding the reads, what else its rows say, and
    what the refusal names it and asks for."""

    columns: int
    seq_column: int
    fits: Callable[[Sequence[str]], bool]
    what: str
    hint: str


def _ints(row: Sequence[str], *columns: int) -> bool:
    return all(_INT_RE.match(row[c].strip()) for c in columns)


_LAYOUTS = (
    # machine run lane tile x y index read# sequence quality filter
    _Layout(11, 8, lambda r: _ints(r, 1, 2, 3, 4, 5, 7) and r[10].strip() in ("0", "1"),
            "an Illumina qseq file (the GA/HiSeq pipeline's per-tile base calls)", _TO_FASTQ),
    # GERALD export: the qseq columns, then the ELAND alignment and the filter flag
    _Layout(22, 8, lambda r: _ints(r, 2, 3, 4, 5) and r[21].strip() in ("Y", "N"),
            "an Illumina export file (GERALD's base calls with their ELAND alignments)", _TO_FASTQ),
    # lane tile x y sequence (Bustard's calls, qualities apart in _prb.txt)
    _Layout(5, 4, lambda r: _ints(r, 0, 1, 2, 3),
            "an Illumina _seq.txt file (Bustard's base calls, without qualities)",
            "give the run's reads as FASTQ (with qualities: the _seq.txt file has none)"),
    # read strand reference position sequence qualities mismatches-at ...
    _Layout(8, 4, lambda r: r[1] in ("+", "-") and _ints(r, 3),
            "Bowtie 1 alignments in its default text format", _REALIGN),
    # MAQ mapview: read chrom pos strand ... length sequence qualities
    _Layout(16, 14, lambda r: r[3] in ("+", "-") and _ints(r, 2, 13),
            "MAQ alignments (maq mapview output)", _REALIGN),
)


def _rows(src: Source) -> list[list[str]]:
    return [line.split("\t") for line in src.text_lines[:50] if line.strip() and not line.startswith("#")]


def _layout_of(src: Source) -> _Layout | None:
    rows = _rows(src)
    if not rows:
        return None
    for layout in _LAYOUTS:
        if all(len(r) == layout.columns and _READ_SEQ_RE.match(r[layout.seq_column].strip()) and layout.fits(r)
               for r in rows):
            return layout
    return None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    layout = _layout_of(src)
    assert layout is not None  # claimed by _layout_of
    raise unreadable(src.shown, f"is {layout.what}: one read per row (column {layout.seq_column + 1} holds read "
                     "sequences), a format bioplan does not read", [layout.hint])


READ_TABLES = FileSniffer("per-read tables (Illumina qseq/export/_seq.txt, Bowtie 1, MAQ; refused)", (), (),
                          lambda src, ctx: _layout_of(src) is not None, _refuse)
