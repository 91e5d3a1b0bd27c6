"""Multiple sequence alignments and trees. Clustal and PHYLIP alignments in the forms IQ-TREE and FastTree read are
the multiple sequence alignment a requested tree is inferred from (formats `clustal`, `phylip`); the forms they
misread (strict PHYLIP with names glued to the residues, sequential PHYLIP with wrapped lines, option letters on the
PHYLIP head, Clustal output under another program's head line) are refused saying how to convert them, as is any
alignment a request builds no tree from. Stockholm, UCSC MAF and Newick trees are refused by name. Before round 4
they fell to the table reader, which called a Clustal file a one-column list of values that are not gene ids."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import Context, FileSniffer, Notes, Source, count_noun, decode, unreadable

_NEWICK_RE = re.compile(r"^\(+[^\s(),:;]+(?::-?[\d.eE-]+)?[,)]")  # '(A:0.1,(B:0.2,...' or '((a,b),c);'
# PHYLIP: 'ntaxa nchars' (and options) on the first line, then a name and residues, in blocks of ten
_PHYLIP_HEAD_RE = re.compile(r"^\s*(\d+)\s+(\d+)((?:\s+[A-Za-z]+)*)\s*$")
# a row: a name in its first 10 columns (strict PHYLIP glues the residues to it), then residues in blocks
_PHYLIP_RESIDUES_RE = re.compile(r"[A-Za-z0-9\-.?*\s]+")
_CLUSTAL_HEADS = ("CLUSTAL", "MUSCLE", "PROBCONS", "MSAPROBS", "Kalign")
_BUDGET = 32 << 20  # an alignment is read whole up to this many bytes
_GAPS = frozenset("-.?*")
_NUCLEOTIDE_LETTERS = frozenset("ACGTUNacgtun")
_TO_FASTA = ("convert it to aligned FASTA, which both tree tools read: python3 -c \"from Bio import AlignIO; "
             "AlignIO.convert('{src}', '{fmt}', 'alignment.afa', 'fasta')\" (Biopython), or EMBOSS seqret "
             "-sequence {src} -osformat fasta -outseq alignment.afa")


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
    if first.upper().startswith("#NEXUS"):
        return "a NEXUS file (TAXA, CHARACTERS/DATA or TREES blocks: PAUP*, MrBayes, MEGA)"
    if first.startswith(("!!AA_MULTIPLE_ALIGNMENT", "!!NA_MULTIPLE_ALIGNMENT", "PileUp")) \
            or any(" MSF: " in f" {ln}" and "Check:" in ln for ln in src.text_lines[:20]):
        return "a GCG MSF multiple sequence alignment"
    m = _PHYLIP_HEAD_RE.match(first)
    if m and int(m.group(1)) >= 2:
        rows = [ln for ln in src.text_lines[1:8] if ln.strip()]
        if rows and all(_phylip_row(ln) for ln in rows):
            return "a PHYLIP multiple sequence alignment"
    return None


@dataclass(frozen=True)
class _Alignment:
    """An alignment read whole: its names and aligned rows, or why the tree tools misread it (`problem`)."""

    form: str  # "relaxed interleaved PHYLIP", "Clustal (MUSCLE's head line)", ...
    names: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    problem: str = ""
    fix: str = ""


def _read_whole(src: Source) -> tuple[list[str], bool]:
    with src.open() as handle:
        data = handle.read(_BUDGET + 1)
    lines = decode(data[:_BUDGET]).lstrip("\ufeff").splitlines()
    return (lines, True) if len(data) <= _BUDGET else (lines[:-1], False)


def _split(line: str, strict: bool) -> tuple[str, str]:
    if strict:
        return line[:10].strip(), "".join(line[10:].split())
    name, _, rest = line.strip().partition(" ")
    name, _, tabbed = name.partition("\t")
    return name, "".join((tabbed + " " + rest).split())


def _phylip_interleaved(rows: list[str], ntaxa: int, strict: bool) -> tuple[list[str], list[str]]:
    """Names on the first block's rows, later blocks' rows appended in turn (one block: sequential on one line)."""
    heads = [_split(ln, strict) for ln in rows[:ntaxa]]
    seqs = [rest for _, rest in heads]
    for i, ln in enumerate(rows[ntaxa:]):
        seqs[i % ntaxa] += "".join(ln.split())
    return [name for name, _ in heads], seqs


def _phylip_sequential(rows: list[str], ntaxa: int, nchar: int, strict: bool) -> tuple[list[str], list[str]]:
    """Each sequence whole before the next, wrapped over several lines."""
    names: list[str] = []
    seqs: list[str] = []
    it = iter(rows)
    for line in it:
        if len(names) == ntaxa:
            return [], []  # rows left over
        name, seq = _split(line, strict)
        while len(seq) < nchar and (more := next(it, None)) is not None:
            seq += "".join(more.split())
        names.append(name)
        seqs.append(seq)
    return names, seqs


def _fits(names: Sequence[str], seqs: Sequence[str], ntaxa: int, nchar: int) -> bool:
    return len(names) == ntaxa and all(names) and len(set(names)) == ntaxa and all(len(s) == nchar for s in seqs)


def _read_phylip(src: Source, lines: list[str]) -> _Alignment:
    head = next((ln for ln in lines if ln.strip()), "")
    m = _PHYLIP_HEAD_RE.match(head)
    assert m is not None
    ntaxa, nchar, options = int(m.group(1)), int(m.group(2)), m.group(3).split()
    rows = [ln for ln in lines[lines.index(head) + 1:] if ln.strip()]
    relaxed = _phylip_interleaved(rows, ntaxa, strict=False)
    wrapped = _phylip_sequential(rows, ntaxa, nchar, strict=False)
    # wrapped sequences may pass for blocks too, their lines taken for names: their own names settle it
    if not options and _fits(*relaxed, ntaxa, nchar) and not (_fits(*wrapped, ntaxa, nchar) and wrapped != relaxed):
        return _Alignment("PHYLIP (names apart from the residues, interleaved or one line per sequence)",
                          tuple(relaxed[0]), tuple(relaxed[1]))
    readings = (("strict interleaved PHYLIP (names in the first 10 columns, glued to the residues)",
                 _phylip_interleaved(rows, ntaxa, strict=True)),
                ("sequential PHYLIP with each sequence wrapped over several lines", wrapped),
                ("strict sequential PHYLIP (names in the first 10 columns, sequences wrapped over several lines)",
                 _phylip_sequential(rows, ntaxa, nchar, strict=True)),
                ("interleaved PHYLIP", relaxed))
    form, (names, seqs) = next(((f, r) for f, r in readings if _fits(*r, ntaxa, nchar)), ("", ([], [])))
    fix = _TO_FASTA.format(src=src.shown, fmt="phylip" + ("-sequential" if "sequential" in form else ""))
    if options and form:
        return _Alignment(form, tuple(names), tuple(seqs), f"has the option letters {' '.join(options)!r} after "
                          f"'{ntaxa} {nchar}' on its first line, which IQ-TREE and FastTree misread",
                          "delete them from its first line (sed -i '1s/[A-Za-z ]*$//'), or " + fix)
    if form:
        return _Alignment(form, tuple(names), tuple(seqs), "is in a form IQ-TREE and FastTree misread (they read a "
                          "name up to the first space, then one block of lines per sequence)", fix)
    return _Alignment("PHYLIP", problem=f"does not hold {ntaxa} distinctly named sequences of {nchar} columns, as "
                      "its first line says, in any PHYLIP form (interleaved or sequential, strict or relaxed names)",
                      fix="check that the file is whole, or give the sequences as aligned FASTA")


def _read_clustal(src: Source, lines: list[str]) -> _Alignment:
    head = next((ln for ln in lines if ln.strip()), "")
    order: dict[str, list[str]] = {}
    for line in lines[lines.index(head) + 1:]:
        if not line.strip() or line[:1].isspace():
            continue  # blank lines and the conservation lines under each block
        parts = line.split()
        if len(parts) >= 2:
            order.setdefault(parts[0], []).append(parts[1])
    names = tuple(order)
    rows = tuple("".join(v) for v in order.values())
    program = head.split()[0]
    if not rows or len({len(r) for r in rows}) != 1:
        return _Alignment("Clustal", problem="has sequences of different lengths in its blocks, so it is no "
                          "whole alignment", fix="check that the file is whole, or give the sequences as aligned "
                          "FASTA")
    if not head.startswith("CLUSTAL"):
        return _Alignment(f"Clustal (with {program}'s head line)", names, rows,
                          f"starts with {program}'s head line, not 'CLUSTAL', which IQ-TREE requires (FastTree reads "
                          "no Clustal)", f"write 'CLUSTAL' on its first line (sed '1s/.*/CLUSTAL/' {src.shown} > "
                          "alignment.aln), or " + _TO_FASTA.format(src=src.shown, fmt="clustal"))
    return _Alignment("Clustal", names, rows)


def _tree_expected(expected: Sequence[Mapping[str, str]]) -> str | None:
    """Why the request reads an alignment as the one its tree is inferred from (as for an aligned FASTA)."""
    from bioplan.request.sniffers.sequences import _sequence_set_expected
    return _sequence_set_expected(expected, "multiple_sequence_alignment")


def _alignment_facts(aln: _Alignment, complete: bool) -> tuple[Fact, ...]:
    letters = [c for r in aln.rows for c in r if c not in _GAPS]
    nuc = sum(c in _NUCLEOTIDE_LETTERS for c in letters) / max(1, len(letters))
    alphabet = "nucleotide" if nuc >= 0.9 else "protein"
    scope = "whole file read" if complete else f"stopped after {_BUDGET >> 20} MB"
    return (Fact(name="n_sequences", value=len(aln.rows), evidence=f"{count_noun(len(aln.rows), 'sequence')} named "
                 f"in the {aln.form.split(' (')[0]} blocks"),
            Fact(name="total_length", value=len(letters), evidence=f"{len(letters)} letters besides the gaps"),
            Fact(name="scanned_whole_file", value=complete, evidence=scope),
            Fact(name="sequence_alphabet", value=alphabet, evidence=f"{nuc:.0%} of the letters are A/C/G/T/U/N"))


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    kind = _kind(src) or ""
    if kind.endswith("tree"):
        raise unreadable(src.shown, f"is {kind}, which bioplan does not read (no step of bioplan takes a tree)",
                         ["give the sequences the tree was built from as FASTA"], expected="a recognised input")
    phylip, clustal = "PHYLIP" in kind, "Clustal" in kind
    why = _tree_expected(ctx.expected) if phylip or clustal else None
    if why is None:
        _refuse(src, kind, "for a tree" if phylip or clustal else "")
    if src.compression:
        raise unreadable(src.shown, f"is a gzip-compressed {kind.removeprefix('a ')}, which IQ-TREE and FastTree "
                         "read uncompressed only", [f"decompress it (gunzip -k {src.shown}) and give the "
                                                    "uncompressed file"], expected="an uncompressed alignment")
    lines, complete = _read_whole(src)
    aln = _read_phylip(src, lines) if phylip else _read_clustal(src, lines)
    if aln.problem:
        raise unreadable(src.shown, f"is {kind} in {aln.form}: it {aln.problem}", [aln.fix],
                         expected="a multiple sequence alignment the tree tools read")
    fmt = "phylip" if phylip else "clustal"
    facts = _alignment_facts(aln, complete)
    evidence = (f"{aln.form}: {count_noun(len(aln.rows), 'sequence')} of {len(aln.rows[0])} columns, "
                f"{facts[3].value} alphabet ({facts[3].evidence})", f"read as multiple_sequence_alignment: {why}")
    return SniffedFile(path=src.shown, datatype="multiple_sequence_alignment", format=fmt, evidence=evidence,
                       facts=facts), Notes()


def _refuse(src: Source, kind: str, tree: str) -> None:
    hints = ["give the unaligned sequences as FASTA for the analysis to run on them"]
    if tree:
        hints.append("or ask for its tree (e.g. 'build a maximum likelihood tree with IQ-TREE'): bioplan reads this "
                     "alignment for tree inference")
    else:
        hints.append("or, to build a tree from this alignment, convert it to aligned FASTA (EMBOSS seqret "
                     "-osformat fasta, or Biopython's AlignIO.convert)")
    reads = tree or "as aligned FASTA"
    raise unreadable(src.shown, f"is {kind}, which bioplan does not read here (it reads an alignment {reads} only)",
                     hints, expected="a recognised input")


MSA = FileSniffer("multiple sequence alignments (Clustal and PHYLIP read for a tree; Stockholm, UCSC MAF) and Newick "
                  "trees (refused)", ("phylip", "clustal"), ("multiple_sequence_alignment",),
                  lambda src, ctx: _kind(src) is not None, _read)
