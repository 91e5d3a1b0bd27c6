"""Sequence similarity search hits in BLAST's tabular form (BLAST+ and DIAMOND -outfmt 6/7, FASTA -m 8/8C):
refused by name. Before this the table reader took their identity, length and coordinate columns for a normalised
count matrix (or their two id columns for a sample sheet)."""

from __future__ import annotations

import re

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

_FIELDS_RE = re.compile(r"^#\s*Fields:\s*query (?:id|acc)", re.IGNORECASE)
_NUMBER_RE = re.compile(r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def _hit_row(fields: list[str]) -> bool:
    """qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore (and more)."""
    if not 12 <= len(fields) <= 40 or (_NUMBER_RE.match(fields[0]) and _NUMBER_RE.match(fields[1])):
        return False  # a wide numeric table (or a matrix of numbers) is not hits of named sequences
    values = [f.strip() for f in fields[2:12]]
    return all(_NUMBER_RE.match(v) for v in values) and 0 <= float(values[0]) <= 100 \
        and all(v.isdigit() for v in values[1:8])


def _kind(src: Source) -> str | None:
    lines = [ln for ln in src.text_lines[:40] if ln.strip()]
    if any(_FIELDS_RE.match(ln) for ln in lines):
        return "commented"
    rows = [ln.split("\t") for ln in lines[:20] if not ln.startswith("#")]
    return "plain" if rows and all(_hit_row(r) for r in rows) else None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    said = "with its '# Fields:' comment lines" if _kind(src) == "commented" else "12 columns"
    raise unreadable(src.shown, f"is a table of sequence similarity hits in BLAST's tabular form ({said}: query, "
                     "subject, % identity, alignment length, mismatches, gap opens, query and subject start and end, "
                     "e-value, bit score), a search result no step of bioplan reads",
                     ["give the sequences the search started from (FASTA or reads) and ask for the search (DIAMOND "
                      "blastx), or use the hits as they are"], expected="a recognised input")


BLAST_TABULAR = FileSniffer("BLAST/DIAMOND tabular hits (outfmt 6/7; refused)", (), (),
                            lambda src, ctx: _kind(src) is not None, _refuse)
