"""Sequence similarity search hits in BLAST's tabular form (BLAST+ and DIAMOND -outfmt 6/7, FASTA -m 8/8C):
refused by name. Before this the table reader took their identity, length and coordinate columns for a normalised
count matrix (or their two id columns for a sample sheet). USEARCH/VSEARCH .uc cluster files likewise (they were a
sample sheet of samples 'H' and 'N', their record types)."""

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


# --------------------------------------------------------------------------- other search and alignment reports
# (Biopython's SearchIO test files; each was 'a one-column file whose values are not gene ids' or 'a table
# separated by spaces'): what each is, and what bioplan reads instead
_PSL_FIELDS = 21  # matches ... tStarts; PSLX adds qSeq and tSeq
_REPORT_HEADS = (
    ("psLayout version", "BLAT/pslx alignments in PSL format (psLayout)"),
    ("# hmmscan ::", "HMMER hmmscan's text report"), ("# hmmsearch ::", "HMMER hmmsearch's text report"),
    ("# phmmer ::", "HMMER phmmer's text report"), ("# jackhmmer ::", "HMMER jackhmmer's text report"),
    ("# nhmmer ::", "HMMER nhmmer's text report"),
    ("Command line: [exonerate", "Exonerate's alignment report"),
    ("# LAST version", "LAST alignments in its tabular form (lastal -f TAB, or MAF)"),
    ("########################################", "an EMBOSS pairwise alignment report (needle/water)"),
)
_FASTA_M10_RE = re.compile(r"^#\s*(?:\S*/)?(?:fast[afmsxy]|ssearch|tfast[xy]|ggsearch|glsearch)\d+\s+-")
_HMMER_TABLE_RE = re.compile(r"^#\s+target name\s+accession\s+(?:tlen\s+)?query name")


def _psl_row(line: str) -> bool:
    fields = line.rstrip("\t").split("\t")
    return len(fields) in (_PSL_FIELDS, _PSL_FIELDS + 2) and all(f.isdigit() for f in fields[:8]) \
        and fields[8] in ("+", "-", "++", "+-", "-+", "--") and fields[18].rstrip(",").replace(",", "").isdigit()


def report_kind(src: Source) -> str | None:
    lines = [ln for ln in src.text_lines[:12] if ln.strip()]
    if any(_FIELDS_RE.match(ln) for ln in src.text_lines[:40]):
        return None  # BLAST's tabular form with comments (BLAST+ -outfmt 7, FASTA -m 8C): BLAST_TABULAR's
    first = lines[0] if lines else ""
    said = next((what for head, what in _REPORT_HEADS if first.startswith(head)), None)
    if said and "EMBOSS" in said and not any(ln.startswith("# Program:") for ln in lines[:3]):
        said = None
    if said is None and any(_HMMER_TABLE_RE.match(ln) for ln in lines[:3]):
        said = "HMMER's per-" + ("domain" if any("#  of" in ln for ln in lines[:3]) else "sequence") + \
            " hits table (--tblout/--domtblout)"
    if said is None and _FASTA_M10_RE.match(first):
        said = "a FASTA suite search report (fasta36/ssearch, -m 10 or text output)"
    if said is None and lines and all(_psl_row(ln) for ln in lines[:5]):
        said = "BLAT alignments in PSL format without its header (blat -noHead)"
    return said


def _refuse_report(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    said = report_kind(src) or ""
    hint = ("give the sequences the search started from (FASTA or reads) and ask for the analysis bioplan plans "
            "on them (e.g. DIAMOND blastx for protein hits), or use the report as it is")
    if "PSL" in said or "LAST" in said:
        hint = "give the sequences (FASTA or reads) and ask for their alignment" + (
            ", or convert the PSL to BED (pslToBed) where an interval file is wanted" if "PSL" in said else "")
    raise unreadable(src.shown, f"is {said}, a search or alignment result no step of bioplan reads", [hint],
                     expected="a recognised input")


SEARCH_REPORTS = FileSniffer("BLAT PSL, HMMER, Exonerate, FASTA-suite and EMBOSS alignment reports (refused)", (),
                             (), lambda src, ctx: report_kind(src) is not None, _refuse_report)


# USEARCH/VSEARCH cluster format (.uc): record type, cluster, length or size, % identity, strand, 2 unused fields,
# CIGAR, query label, target label; H a hit, S a centroid, C a cluster's size, N no hit, L a library centroid
_UC_TYPES = frozenset("HSCNL")


def _uc_row(fields: list[str]) -> bool:
    """A record: its type, then cluster number and length (or size; '*' for N, no hit), % identity, strand."""
    return len(fields) == 10 and fields[0] in _UC_TYPES and all(f.isdigit() or f == "*" for f in fields[1:3]) \
        and (fields[3] == "*" or bool(_NUMBER_RE.match(fields[3]))) and fields[4] in ("+", "-", "*", ".")


def _uc_file(src: Source) -> bool:
    rows = [ln.split("\t") for ln in src.text_lines[:40] if ln.strip()]
    return bool(rows) and all(_uc_row(r) for r in rows)


def _refuse_uc(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(
        src.shown, "is a USEARCH/VSEARCH cluster file (.uc: one line per read or centroid, H a hit, S a centroid, "
        "C a cluster, N no hit), a clustering result no step of bioplan reads",
        ["give the OTU table of the clusters (vsearch --usearch_global READS.fa --db OTUS.fa --id 0.97 --otutabout "
         "otu_table.tsv, a taxa x samples table) or the amplicon reads themselves"], expected="abundance table")


UC_CLUSTERS = FileSniffer("USEARCH/VSEARCH .uc cluster files (refused)", (), (),
                          lambda src, ctx: _uc_file(src), _refuse_uc)
