"""Multiple sequence alignments (Clustal, Stockholm, PHYLIP, UCSC MAF): refused by name. Before this they fell to
the table reader, which called a Clustal file a one-column list of values that are not gene ids. bioplan reads an
alignment as aligned FASTA only (what its tree inference reads); the refusal says what the file is and what bioplan
reads instead."""

from __future__ import annotations

import re

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, unreadable

# PHYLIP: 'ntaxa nchars' (and options) on the first line, then a name and residues, in blocks of ten
_NEWICK_RE = re.compile(r"^\(+[^\s(),:;]+(?::-?[\d.eE-]+)?[,)]")  # '(A:0.1,(B:0.2,...' or '((a,b),c);'
_PHYLIP_HEAD_RE = re.compile(r"^\s*(\d+)\s+(\d+)(?:\s+[A-Za-z]+)*\s*$")
# a row: a name in its first 10 columns (strict PHYLIP glues the residues to it), then residues in blocks
_PHYLIP_RESIDUES_RE = re.compile(r"[A-Za-z0-9\-.?*\s]+")


def _phylip_row(line: str) -> bool:
    rest = line[10:]
    return bool(rest.strip()) and _PHYLIP_RESIDUES_RE.fullmatch(rest) is not None \
        and sum(c.isalnum() or c == "-" for c in rest) >= 3


def _ucsc_maf(lines: list[str]) -> bool:
    """UCSC's Multiple Alignment Format: '##maf version=1' (after an optional 'track' line), then 'a' blocks of 's'
    rows (source, start, size, strand, source size, aligned text)."""
    heads = [ln for ln in lines[:60] if ln.strip()]
    if any(ln.startswith("##maf") for ln in heads[:3]):
        return True
    blocks = [i for i, ln in enumerate(heads) if ln == "a" or ln.startswith("a score=")]
    return bool(blocks) and blocks[0] + 1 < len(heads) and heads[blocks[0] + 1].startswith("s ")


def _kind(src: Source) -> str | None:
    if _ucsc_maf(src.text_lines):
        return ("a UCSC MAF multiple genome alignment ('##maf', 'a' blocks of 's' rows: multiz, TBA; not the "
                "Mutation Annotation Format)")
    first = src.first_line.strip()
    if first.startswith("CLUSTAL") or "multiple sequence alignment" in first or "alignment in ClustalW format" in first:
        return "a Clustal multiple sequence alignment"  # also MUSCLE's, Kalign's, MSAProbs', ProbCons' Clustal output
    if first.startswith("(") and src.text_lines and any(ln.rstrip().endswith(";") for ln in src.text_lines[:200]) \
            and _NEWICK_RE.match(first):
        return "a Newick phylogenetic tree"
    if first.startswith("# STOCKHOLM"):
        return "a Stockholm multiple sequence alignment (HMMER, Pfam, Rfam)"
    m = _PHYLIP_HEAD_RE.match(first)
    if m and int(m.group(1)) >= 2:
        rows = [ln for ln in src.text_lines[1:8] if ln.strip()]
        if rows and all(_phylip_row(ln) for ln in rows):
            return "a PHYLIP multiple sequence alignment"
    return None


def _refuse(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    kind = _kind(src) or ""
    if "tree" in kind:
        raise unreadable(src.shown, f"is {kind}, which bioplan does not read (no step of bioplan takes a tree)",
                         ["give the sequences the tree was built from as FASTA"], expected="a recognised input")
    raise unreadable(src.shown, f"is {kind}, which bioplan does not read (it reads an alignment as aligned FASTA "
                     "only, for a tree)", ["give the unaligned sequences as FASTA for the analysis to run on them",
                                           "or, to build a tree from this alignment, convert it to aligned FASTA "
                                           "(EMBOSS seqret -osformat fasta, or Biopython's AlignIO.convert)"],
                     expected="a recognised input")


MSA = FileSniffer("multiple sequence alignments (Clustal, Stockholm, PHYLIP, UCSC MAF) and Newick trees (refused)",
                  (), (), lambda src, ctx: _kind(src) is not None, _refuse)
