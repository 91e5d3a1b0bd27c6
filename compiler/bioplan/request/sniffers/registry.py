"""The sniffers in one ordered list: the first reader that takes an input reads it.

Files: the knowledge's declared signatures first (formats.yaml `sniff`), then binary formats by
their magic bytes, refusals (a Kraken2 part file, other compressions, unknown binary data), then
text by its first line, and delimited tables last (they take any text). Folders: quantifier
output folders, 10x MTX folders, folders of per-sample quantifier folders, Kraken2 databases,
taxonomy dumps; anything else is refused with what a folder can be.

A reader's module is imported when a file first reaches it (issue 10: `bioplan plan` of a count matrix
need not import the FASTQ, single-cell or VCF readers). The registry keeps each reader's declaration as
data -- where it lives, the formats and datatypes it may report, and for some a cheap test of the file's
first bytes or first line that is true of every file its own `claims` takes -- so the order, and which
reader takes a file, are the same as with every module imported.
"""

from __future__ import annotations

import csv
import importlib
import os
import re
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bioplan.errors import AmbiguousInputError, BioplanError, UnreadableInputError
from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import (
    CHROM_ACC_RE,
    CHROM_ID_RE,
    FASTQ_PATH_RE,
    INPUT_TYPE_HINT,
    RECOGNISED_HINT,
    Context,
    FileSniffer,
    Folder,
    FolderSniffer,
    FormatSignature,
    Notes,
    Source,
    open_source,
    quote_list,
    unreadable,
)


@dataclass(frozen=True)
class Declared:
    """A reader of the registry named without importing it: `module.attr` in this package, and `could_claim`,
    a test of the file alone that is true of every file the reader's own `claims` takes (None: ask the
    reader). tests/test_sniffer_registry.py checks each test against its reader."""

    module: str
    attr: str
    could_claim: Callable[[Source], bool] | None = None

    def reader(self) -> Any:
        return getattr(importlib.import_module(f"{__package__}.{self.module}"), self.attr)


def _vcf_record_like(src: Source) -> bool:
    """A headerless VCF's first record: 8 tab-separated fields or more, the position a number."""
    fields = src.first_line.split("\t")
    return len(fields) >= 8 and fields[1].isdigit()


_BASES_RE = re.compile("[ACGTN]{8}")  # in every cell barcode (base.BARCODE_RE)


_ASV_RUN_RE = re.compile("[ACGTN]{50}")  # in a DADA2 sequence table's header or first row (seqtabs.ASV_RUN_RE)


def _asv_named(src: Source) -> bool:
    """A DADA2 sequence table names its ASVs by their sequences: in the header or in the first data row."""
    return any(_ASV_RUN_RE.search(line) for line in src.text_lines[:2])


# a per-cell column of Seurat's meta.data or scanpy's obs in the header (cell_tables.CELL_METADATA_RE)
_CELL_METADATA_RE = re.compile(r"orig\.ident|ncount_|nfeature_|percent\.mt|seurat_clusters|n_genes|total_counts|"
                               r"pct_counts|n_counts|leiden|louvain", re.IGNORECASE)


def _barcode_like(src: Source) -> bool:
    """A dense cell table names its cells by barcodes (8 bases in a row somewhere in its head), or is a wide
    rectangle (genes over numbered cells: the rows as wide as the header, give or take R's row-name column;
    a GMT's gene sets differ in length)."""
    if any(_BASES_RE.search(line) for line in src.text_lines):
        return True
    sep = max(",", "\t", key=src.first_line.count)
    width = src.first_line.count(sep)
    return width >= 20 and all(abs(line.count(sep) - width) <= 1 for line in src.text_lines[1:3])


_LOCUS_START_RE = re.compile(
    r'^"?(?:#?chr(?:om(?:osome)?)?(?:_name)?|contig|seqnames?|seqid|id|sample(?:_?id)?|name|tumor_sample_barcode'
    r'|chromosome_name|ref|snp|id_1)"?$', re.IGNORECASE)


def _locus_like(src: Source) -> bool:
    """A table of genomic positions starts with a chromosome column (its name, or a chromosome in a headerless row),
    or an id column before it (SEG); a Bismark cytosine report (7 columns), a PLINK .bim (6) or a pileup (a position
    second) may start with any sequence name; a PLINK .fam is told by its name."""
    line = next((ln for ln in src.text_lines if ln.strip() and not ln.startswith(("#", "track "))), "")
    fields = line.split("\t") if "\t" in line else line.split()
    first = fields[0].strip() if fields else ""
    return bool(_LOCUS_START_RE.match(first) or CHROM_ID_RE.match(first) or CHROM_ACC_RE.match(first)) \
        or len(fields) in (6, 7) or len(fields) > 3 and fields[1].isdigit() or src.ext == ".fam"


# the file readers in their order: the first that takes a file reads it
FILE_READERS: tuple[Declared, ...] = (
    Declared("signatures", "SIGNATURES"),
    Declared("refusals", "INDEX"),
    Declared("alignments", "CRAM", lambda src: src.magic.startswith(b"CRAM")),
    Declared("single_cell", "HDF5", lambda src: src.magic.startswith(b"\x89HDF\r\n\x1a\n")),
    Declared("alignments", "BAM", lambda src: src.head.startswith(b"BAM\x01")),
    Declared("variants", "BCF", lambda src: src.head.startswith(b"BCF\x02")),
    Declared("taxonomy", "KRAKEN2_FILE"),
    Declared("reports", "READ_QC_REPORTS"),
    Declared("genotypes", "PLINK_GENOTYPES",
             lambda src: src.head[:2] == b"\x6c\x1b" and src.head[2:3] in (b"\x01", b"\x10", b"\x11", b"\x12")),
    Declared("genotypes", "PHENOTYPE_TABLE",
             lambda src: src.first_line.startswith(("FID", "#FID", "IID", "#IID"))),
    Declared("refusals", "OTHER_COMPRESSION"),
    Declared("refusals", "BINARY"),
    Declared("reports", "REPORTS_AND_LOGS"),
    Declared("cell_tables", "DGE", lambda src: src.first_line.startswith(("@DGE\t", "#DGE\t"))),
    Declared("alignments", "SAM_HEADER", lambda src: src.first_line.startswith("@")),
    Declared("sequences", "FASTQ", lambda src: src.first_line.startswith("@")),
    Declared("sequences", "FASTA", lambda src: src.first_line.startswith(">")),
    Declared("variants", "VCF", lambda src: src.first_line.startswith(("##fileformat=VCF", "#CHROM\tPOS"))),
    Declared("annotation", "GFF"),
    Declared("single_cell", "MTX", lambda src: src.first_line.lower().startswith("%%matrixmarket")),
    Declared("taxonomy", "DMP_FILE"),
    Declared("taxonomy", "KRAKEN2_RESULTS"),
    Declared("variants", "VCF_RECORDS", _vcf_record_like),
    Declared("seqtabs", "SEQTABS", _asv_named),
    Declared("hits", "UC_CLUSTERS", lambda src: src.first_line[:2] in ("H\t", "S\t", "C\t", "N\t", "L\t")),
    Declared("diversity", "ORDINATION", lambda src: src.first_line.startswith("Eigvals\t")),
    Declared("read_tables", "READ_TABLES"),
    Declared("reports", "HTSEQ_COUNTS", lambda src: src.first_line.count("\t") <= 1),
    Declared("flatfiles", "FLAT_FILES", lambda src: src.first_line.startswith(("LOCUS", "ID   ", "^"))
             or src.first_line.lstrip().startswith("<?xml") or not src.first_line.strip()),
    Declared("hits", "SEARCH_REPORTS", lambda src: src.first_line.startswith(("psLayout", "#", "Command line: [")) or
             src.first_line.count("\t") in (20, 22)),
    Declared("hits", "BLAST_TABULAR", lambda src: src.first_line.startswith("#") or src.first_line.count("\t") >= 11
             or not src.first_line.strip()),
    Declared("refusals", "ARRAY_TEXT", lambda src: src.first_line.startswith("[CEL]")),
    Declared("msa", "MSA", lambda src: "alignment" in src.first_line or "CLUSTAL" in src.first_line
             or src.first_line.startswith(("!!", "PileUp")) or "MSF:" in src.first_line
             or src.first_line.lstrip()[:1] in ("#", "(") or src.first_line[:1] in " 0123456789"
             or src.first_line.startswith(("a score=", "track ")) or src.first_line.strip() == "a"),
    Declared("abundance", "ABUNDANCE"),
    Declared("cell_tables", "CELL_TABLES", _barcode_like),
    Declared("cell_tables", "CELL_METADATA", lambda src: bool(_CELL_METADATA_RE.search(src.first_line))),
    Declared("intervals", "INTERVALS"),
    Declared("reports", "MULTIQC_TABLES",
             lambda src: src.first_line.startswith("Sample\t") or src.name.lower().startswith("multiqc_")),
    Declared("cufflinks", "CUFFLINKS", lambda src: src.first_line.startswith(("test_id\t", "tracking_id\t"))),
    Declared("loci", "LOCUS_TABLES", _locus_like),
    Declared("alignments", "SAM_RECORDS", lambda src: src.first_line.count("\t") >= 10),
    Declared("tables", "TABLE"),
)

FOLDER_READERS: tuple[Declared, ...] = (
    Declared("quantification", "QUANT_FOLDER"),
    Declared("single_cell", "MTX_FOLDER"),
    Declared("quantification", "QUANT_PARENT"),
    Declared("taxonomy", "KRAKEN2_FOLDER"),
    Declared("taxonomy", "TAXDUMP_FOLDER"),
)


def __getattr__(name: str) -> Any:
    """FILE_SNIFFERS and FOLDER_SNIFFERS: the readers themselves, every module imported (for tests and tools)."""
    if name in ("FILE_SNIFFERS", "FOLDER_SNIFFERS"):
        return tuple(d.reader() for d in (FILE_READERS if name == "FILE_SNIFFERS" else FOLDER_READERS))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def context(prefixes: Mapping[str, str], signatures: Sequence[FormatSignature] = (),
            expected: Sequence[Mapping[str, str]] = ()) -> Context:
    """What the readers consult, with this registry as the dispatch for files inside folders."""
    return Context(prefixes=prefixes, signatures=tuple(signatures), dispatch=guarded,
                   expected=tuple(dict(level) for level in expected))


def settled_by_request(exc: AmbiguousInputError, ctx: Context,
                       given: Mapping[str, str] | None = None) -> SniffedFile | None:
    """An ambiguous file whose readings differ only in the datatype (the reader said what it found), read as
    the one reading the request expects: the first level of `Context.expected` holding any reading decides,
    and only when it holds exactly one. `given`: datatypes the other inputs already are (datatype -> path),
    left out, so a plain BED beside a narrowPeak file is the blacklist of "filter the peaks against the
    blacklist" (`cohort.profile_inputs`). None when the error stands."""
    found: SniffedFile | None = getattr(exc, "found", None)
    readings = exc.details.get("readings", [])
    level = next((lv for lv in ctx.expected if any(r in lv for r in readings)), {})
    chosen = [r for r in readings if r in level and r not in (given or {})]
    if found is None or len(chosen) != 1:
        return None
    others = " or ".join(r for r in readings if r != chosen[0])
    why = level[chosen[0]]
    taken = [f"{r} is {(given or {})[r]}" for r in readings if r in level and r in (given or {})]
    if taken:
        why += f", and of the other inputs {', '.join(taken)}"
    return found.model_copy(update={
        "datatype": chosen[0], "evidence": (*found.evidence, f"read as {chosen[0]} (not {others}): {why}")})


def guarded(path: str, ctx: Context) -> tuple[SniffedFile, Notes]:
    """`sniff_path`, with a reader's unforeseen failure turned into a user-facing error."""
    try:
        return sniff_path(path, ctx)
    except AmbiguousInputError as exc:
        settled = settled_by_request(exc, ctx)
        if settled is None:
            raise
        return settled, Notes()
    except UnreadableInputError as exc:
        _name_declared_formats(exc, ctx.signatures)
        raise
    except BioplanError:
        raise
    except (OSError, EOFError, zlib.error, UnicodeError, csv.Error, struct.error) as exc:
        # a reader failed in a way the sniffers did not foresee: still a user-facing error, not a traceback
        raise unreadable(path, f"could not be read ({type(exc).__name__}: {exc})",
                         [RECOGNISED_HINT, INPUT_TYPE_HINT]) from None


def _name_declared_formats(exc: UnreadableInputError, declared: Sequence[FormatSignature]) -> None:
    """The "bioplan recognises: ..." hint also names the formats the knowledge declares (formats.yaml `sniff`)."""
    if declared and RECOGNISED_HINT in exc.hints:
        # each extension once, case-folded (.bigWig and .bigwig are one), whoever built the signature
        also = "; ".join(f"{s.label} ({', '.join(dict.fromkeys(e.lower() for e in s.extensions))})" for s in declared)
        exc.hints[exc.hints.index(RECOGNISED_HINT)] = f"{RECOGNISED_HINT}; {also}"


def sniff_path(shown: str, ctx: Context) -> tuple[SniffedFile, Notes]:
    src = open_source(shown)
    if isinstance(src, Path):
        return _sniff_folder(shown, src, ctx)
    for declared in FILE_READERS:
        if declared.could_claim is not None and not declared.could_claim(src):
            continue  # its module stays unimported
        sniffer: FileSniffer = declared.reader()
        if sniffer.claims(src, ctx):
            return sniffer.read(src, ctx)
    raise AssertionError("the table reader takes any text")  # refusals.BINARY took the rest


def _sniff_folder(shown: str, path: Path, ctx: Context) -> tuple[SniffedFile, Notes]:
    try:
        entries = tuple(sorted(e.name for e in os.scandir(path)))
    except OSError as exc:
        raise unreadable(shown, f"directory cannot be listed ({exc.strerror or exc})") from None
    folder = Folder(shown, path, entries)
    for declared in FOLDER_READERS:
        reader: FolderSniffer = declared.reader()
        found = reader.read(folder, ctx)
        if found is not None:
            return found
    listing = quote_list(entries, 5) if entries else "nothing"
    known = next(((what, hint) for parts, what, hint in _REFUSED_FOLDERS if parts <= set(entries)), None)
    if known is not None:
        raise unreadable(shown, f"is {known[0]} (it holds {listing}), which bioplan does not read", [known[1]])
    hints = ["a directory is recognised as a Salmon, kallisto or RSEM output folder (or a folder of them), a 10x "
             "matrix folder (matrix.mtx, barcodes, features), a Kraken2 database (hash.k2d, opts.k2d, taxo.k2d) or "
             "an NCBI taxonomy dump (nodes.dmp, names.dmp)"]
    if any(FASTQ_PATH_RE.search(e) for e in entries):
        hints.append("to use the FASTQ files in it, give each file (e.g. DIR/*.fastq.gz) instead of the directory")
    raise unreadable(shown, f"is a directory bioplan does not recognise (it holds {listing})",
                     hints + [RECOGNISED_HINT])


_ALEVIN_FIX = ("convert it to AnnData and give the .h5ad (alevin-fry: pyroe's load_fry(DIR) in Python or fishpond's "
               "loadFry(DIR) in R, for the folder with meta_info.json; Salmon alevin: tximport(type = 'alevin') or "
               "its --dumpMtx output), or give the reads to quantify")
# folders of a known kind bioplan does not read: named, with what to give instead
_REFUSED_FOLDERS = (
    (frozenset({"t_data.ctab", "e_data.ctab"}), "a StringTie -B (Ballgown) table folder",
     "for gene-level differential expression give the count matrix StringTie's prepDE.py writes from the samples' "
     "GTFs (gene_count_matrix.csv) with a sample sheet"),
    # nf-core/scrnaseq's default quantifier: cells x genes (10x matrices are genes x cells), gene names in columns
    (frozenset({"quants_mat.mtx", "quants_mat_rows.txt", "quants_mat_cols.txt"}), "an alevin-fry count matrix folder "
     "(quants_mat.mtx: cells x genes, with the cells in quants_mat_rows.txt and the genes in quants_mat_cols.txt)",
     _ALEVIN_FIX),
    (frozenset({"quants_mat.gz", "quants_mat_rows.txt", "quants_mat_cols.txt"}), "a Salmon alevin count matrix "
     "folder (quants_mat.gz, alevin's binary matrix, with its cell and gene names)", _ALEVIN_FIX),
    (frozenset({"multiqc_data.json", "multiqc_sources.txt"}), "MultiQC's data folder (multiqc_data: the metrics it "
     "parsed from the tools' reports)", "MultiQC's tables summarise the samples' QC; give the data they describe "
     "(reads, alignments, counts) for an analysis, or the tools' own reports to aggregate them again"),
    (frozenset({"alevin", "meta_info.json"}), "an alevin-fry quantification folder (alevin/quants_mat*, "
     "meta_info.json)", _ALEVIN_FIX),
)


def declared_ids() -> tuple[set[str], set[str]]:
    """(format ids, datatype ids) the built-in sniffers may report: each must exist in the knowledge."""
    sniffers: tuple[FileSniffer | FolderSniffer, ...] = tuple(d.reader() for d in (*FILE_READERS, *FOLDER_READERS))
    return ({f for s in sniffers for f in s.formats}, {d for s in sniffers for d in s.datatypes})
