"""Sequence records in the databases' flat-file formats (GenBank/GenPept 'LOCUS', EMBL and UniProt 'ID   '): refused
by name, saying what to give. Before this the table reader called them one-column files of values that are not gene
ids. bioplan reads sequences as FASTA and annotation as GTF/GFF3; a flat file holds both."""

from __future__ import annotations

import re

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

_LOCUS_RE = re.compile(r"^LOCUS {2,}\S+")
_ID_RE = re.compile(r"^ID {3}\S+")
_EMBL_KEYS = ("AC   ", "DE   ", "DT   ", "XX", "SQ   ", "FT   ", "OS   ")


def _kind(src: Source) -> str | None:
    lines = [ln for ln in src.text_lines[:40] if ln.strip()]
    if not lines:
        return None
    if _LOCUS_RE.match(lines[0]) and any(ln.startswith(("DEFINITION", "ACCESSION", "FEATURES", "ORIGIN"))
                                         for ln in lines[1:]):
        return "a GenBank flat file (LOCUS, DEFINITION, FEATURES, ORIGIN records)"
    if _ID_RE.match(lines[0]) and any(ln.startswith(_EMBL_KEYS) for ln in lines[1:]):
        protein = " AA." in lines[0] or lines[0].rstrip().endswith("AA.")
        return "a UniProt/EMBL protein flat file" if protein else "an EMBL flat file (ID, AC, FT, SQ records)"
    return None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, f"is {_kind(src)}, which bioplan does not read",
                     ["give the sequences as FASTA and their annotation as GFF3 or GTF (NCBI and ENA offer both for "
                      "a record; or convert it, e.g. with Biopython's SeqIO.convert(FILE, 'genbank', OUT, 'fasta'))"],
                     expected="FASTA and GFF3/GTF")


FLAT_FILES = FileSniffer("GenBank/EMBL/UniProt flat files (refused)", (), (), lambda src, ctx: _kind(src) is not None,
                         _refuse)
