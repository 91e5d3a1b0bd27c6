"""Tables with one read per row: Illumina's pipeline files of before FASTQ (qseq, export, _seq.txt) and
old aligners' text output (Bowtie 1's default, MAQ's mapview). Their tile, coordinate and position
columns made the table reader take them for a count matrix; a column of read sequences says what they
are. Also the other files of a sequencing run before its FASTQ: Oxford Nanopore's sequencing summary
(one row per read: read_id, channel, start_time, ... as Guppy, Dorado and MinKNOW write it; its numeric
columns made it a normalised count matrix) and Illumina's run sample sheet (bcl2fastq / BCL Convert
SampleSheet.csv: [Header], [Reads], [Data] sections; its section names were taken for samples). Each is
refused by name, saying what to give instead (bioplan reads reads as FASTQ, alignments as SAM/BAM/CRAM)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, quote_list, unreadable

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


# Oxford Nanopore's per-read summary: its read id column and the run's own columns (MinKNOW/Guppy/Dorado)
_ONT_RUN_COLUMNS = {"channel", "start_time", "duration", "sequence_length_template", "mean_qscore_template",
                    "passes_filtering", "num_events", "template_start", "mux"}
_ONT_HINT = ("bioplan reads the reads themselves: give the basecalled FASTQ files (the run's fastq_pass files "
             "concatenated per sample or barcode) and ask for read quality control; the summary is what NanoPlot "
             "and pycoQC read, which bioplan does not run")
_RUN_SHEET_HINT = ("bioplan starts from the demultiplexed reads: give the FASTQ files bcl2fastq or BCL Convert wrote "
                   "(SAMPLE_S1_L001_R1_001.fastq.gz, ...), with a sample sheet of one row per sample (sample, "
                   "fastq_1, fastq_2 and, to compare groups, a condition column) if the analysis needs one")
_DATA_SECTIONS = ("[data]", "[bclconvert_data]")


def _ont_summary(src: Source) -> bool:
    header = {c.strip().lower() for c in src.first_line.split("\t")}
    return "read_id" in header and len(header & _ONT_RUN_COLUMNS) >= 3


def _run_sheet(src: Source) -> bool:
    return src.first_line.lstrip("\ufeff").split(",")[0].strip().lower() == "[header]"


def _sheet_samples(src: Source) -> list[str]:
    """The Sample_ID column of the sheet's [Data] (v1) or [BCLConvert_Data] (v2) section."""
    lines = [ln.split(",") for ln in src.text_lines]
    start = next((i for i, f in enumerate(lines) if f[0].strip().lower() in _DATA_SECTIONS), None)
    if start is None or start + 1 >= len(lines):
        return []
    header = [f.strip().lower() for f in lines[start + 1]]
    column = header.index("sample_id") if "sample_id" in header else 0
    rows = []
    for fields in lines[start + 2:]:
        if not fields[0].strip() or fields[0].strip().startswith("["):
            break
        rows.append(fields[column].strip() if column < len(fields) else "")
    return rows


def _run_file(src: Source) -> tuple[str, str] | None:
    """(what the file is, what to give instead) for a nanopore summary or an Illumina run sample sheet, or None."""
    if _ont_summary(src):
        return ("an Oxford Nanopore sequencing summary (the basecaller's per-read table: read_id, channel, "
                "start_time, read length and mean quality of each read)", _ONT_HINT)
    if _run_sheet(src):
        samples = _sheet_samples(src)
        listed = f" of {len(samples)} samples ({quote_list(samples, 4)})" if samples else ""
        return (f"an Illumina run sample sheet{listed}: bcl2fastq / BCL Convert's SampleSheet.csv, whose [Header], "
                "[Reads] and [Data] sections give each sample's index for demultiplexing and hold no data",
                _RUN_SHEET_HINT)
    return None


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
    run_file = _run_file(src)
    if run_file is not None:
        raise unreadable(src.shown, f"is {run_file[0]}, a file bioplan does not read", [run_file[1]])
    layout = _layout_of(src)
    assert layout is not None  # claimed by _layout_of
    raise unreadable(src.shown, f"is {layout.what}: one read per row (column {layout.seq_column + 1} holds read "
                     "sequences), a format bioplan does not read", [layout.hint])


READ_TABLES = FileSniffer("per-read tables (Illumina qseq/export/_seq.txt, Bowtie 1, MAQ, Nanopore sequencing "
                          "summaries) and Illumina run sample sheets (refused)", (), (),
                          lambda src, ctx: _run_file(src) is not None or _layout_of(src) is not None, _refuse)
