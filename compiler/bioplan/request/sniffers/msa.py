"""Multiple sequence alignments (Clustal, Stockholm, PHYLIP): refused by name. Before this they fell to the table
reader, which called a Clustal file a one-column list of values that are not gene ids. bioplan has no step that reads
an alignment of sequences; the refusal says what the file is and what bioplan reads instead."""

from __future__ import annotations

import re

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

# PHYLIP: 'ntaxa nchars' (and options) on the first line, then a name and residues, in blocks of ten
_PHYLIP_HEAD_RE = re.compile(r"^\s*(\d+)\s+(\d+)(?:\s+[A-Za-z]+)*\s*$")
_PHYLIP_ROW_RE = re.compile(r"^\S.{0,30}?\s+[A-Za-z0-9\-.?*]{5,}(?:\s+[A-Za-z0-9\-.?*]+)*\s*$")


def _kind(src: Source) -> str | None:
    first = src.first_line.strip()
    if first.startswith("CLUSTAL") or first.startswith("MUSCLE (") and "multiple sequence alignment" in first:
        return "a Clustal multiple sequence alignment"
    if first.startswith("# STOCKHOLM"):
        return "a Stockholm multiple sequence alignment (HMMER, Pfam, Rfam)"
    m = _PHYLIP_HEAD_RE.match(first)
    if m and int(m.group(1)) >= 2:
        rows = [ln for ln in src.text_lines[1:8] if ln.strip()]
        if rows and all(_PHYLIP_ROW_RE.match(ln) for ln in rows):
            return "a PHYLIP multiple sequence alignment"
    return None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, f"is {_kind(src)}, which bioplan does not read (no step of bioplan takes aligned "
                     "sequences)", ["give the unaligned sequences as FASTA for the analysis to run on them"],
                     expected="a recognised input")


MSA = FileSniffer("multiple sequence alignments (Clustal, Stockholm, PHYLIP; refused)", (), (),
                  lambda src, ctx: _kind(src) is not None, _refuse)
