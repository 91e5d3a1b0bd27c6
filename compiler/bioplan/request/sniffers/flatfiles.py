"""Sequence records in the databases' flat-file formats (GenBank/GenPept 'LOCUS', EMBL and UniProt 'ID   ') and GEO's
SOFT files ('^SERIES', '^SAMPLE', '^PLATFORM', '^DATABASE'): refused by name, saying what to give. Before this the
table reader called them one-column files of values that are not gene ids. bioplan reads sequences as FASTA and
annotation as GTF/GFF3; a flat file holds both. A SOFT file holds expression tables per sample (GEOquery reads it).
"""

from __future__ import annotations

import re

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

_LOCUS_RE = re.compile(r"^LOCUS {2,}\S+")
_ID_RE = re.compile(r"^ID {3}\S+")
_SOFT_RE = re.compile(r"^\^(DATABASE|SERIES|SAMPLE|PLATFORM|DATASET|SUBSET|Annotation)\b")
_EMBL_KEYS = ("AC   ", "DE   ", "DT   ", "XX", "SQ   ", "FT   ", "OS   ")


_XML_ROOT_RE = re.compile(r"<(?!\?|!)([A-Za-z_][\w.:-]*)")
_XML_KINDS = {"BlastOutput": "BLAST XML output", "uniprot": "UniProt XML", "seqXML": "SeqXML", "INSDSet": "INSDSeq XML",
              "GBSet": "GenBank XML", "EMBL": "EMBL XML", "nex:nexml": "NeXML", "phyloxml": "phyloXML",
    "phy:phyloxml": "phyloXML", "BlastXML2": "BLAST XML output",
              "interpro_matches": "InterProScan XML", "protein-matches": "InterProScan XML"}


def _xml_kind(lines: list[str]) -> str:
    root = next((m.group(1) for ln in lines for m in [_XML_ROOT_RE.search(ln)] if m), "")
    return _XML_KINDS.get(root, f"an XML document (root element <{root}>)" if root else "an XML document")


def _kind(src: Source) -> str | None:
    lines = [ln for ln in src.text_lines[:40] if ln.strip()]
    if not lines:
        return None
    if _SOFT_RE.match(lines[0]):
        return "a GEO SOFT file (^DATABASE, ^SERIES, ^PLATFORM, ^SAMPLE records with their '!' attributes and tables)"
    if lines[0].lstrip().startswith("<?xml"):
        return _xml_kind(lines[1:])
    if _LOCUS_RE.match(lines[0]) and any(ln.startswith(("DEFINITION", "ACCESSION", "FEATURES", "ORIGIN"))
                                         for ln in lines[1:]):
        return "a GenBank flat file (LOCUS, DEFINITION, FEATURES, ORIGIN records)"
    if _ID_RE.match(lines[0]) and any(ln.startswith(_EMBL_KEYS) for ln in lines[1:]):
        protein = " AA." in lines[0] or lines[0].rstrip().endswith("AA.")
        return "a UniProt/EMBL protein flat file" if protein else "an EMBL flat file (ID, AC, FT, SQ records)"
    return None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    kind = _kind(src) or ""
    if kind.startswith("a GEO SOFT"):
        raise unreadable(src.shown, f"is {kind}, which bioplan does not read",
                         ["give the expression values as one genes x samples table with a sample sheet (in R, for "
                          "a GDS: eset <- GEOquery::GDS2eSet(GEOquery::getGEO(filename = FILE), getGPL = FALSE); "
                          "write.table(Biobase::exprs(eset), 'expression.tsv', sep = '\\t', quote = FALSE); for a "
                          "series, the same from its series matrix file); for sequencing studies, give the series' "
                          "count matrix or the runs' reads (SRA) instead"], expected="a recognised input")
    if "flat file" not in kind:  # an XML kind by its root element
        raise unreadable(src.shown, f"is {kind if kind.startswith('an XML') else kind + ' (XML)'}, which bioplan "
                         "does not read", ["give the data in the tabular or sequence format the tool also writes "
                                           "(FASTA, FASTQ, TSV, GFF3, VCF)"], expected="a recognised input")
    raise unreadable(src.shown, f"is {_kind(src)}, which bioplan does not read",
                     ["give the sequences as FASTA and their annotation as GFF3 or GTF (NCBI and ENA offer both for "
                      "a record; or convert it, e.g. with Biopython's SeqIO.convert(FILE, 'genbank', OUT, 'fasta'))"],
                     expected="FASTA and GFF3/GTF")


FLAT_FILES = FileSniffer("GenBank/EMBL/UniProt flat files and XML documents (refused)", (), (),
                         lambda src, ctx: _kind(src) is not None, _refuse)
