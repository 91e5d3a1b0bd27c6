"""The sniffers in one ordered list: the first reader that takes an input reads it.

Files: the knowledge's declared signatures first (formats.yaml `sniff`), then binary formats by
their magic bytes, refusals (a Kraken2 part file, other compressions, unknown binary data), then
text by its first line, and delimited tables last (they take any text). Folders: quantifier
output folders, 10x MTX folders, folders of per-sample quantifier folders, Kraken2 databases,
taxonomy dumps; anything else is refused with what a folder can be.
"""

from __future__ import annotations

import csv
import os
import struct
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from bioplan.errors import AmbiguousInputError, BioplanError, UnreadableInputError
from bioplan.models import SniffedFile
from bioplan.request.sniffers import (
    abundance,
    alignments,
    annotation,
    cell_tables,
    intervals,
    quantification,
    read_tables,
    refusals,
    reports,
    sequences,
    signatures,
    single_cell,
    tables,
    taxonomy,
    variants,
)
from bioplan.request.sniffers.base import (
    FASTQ_PATH_RE,
    INPUT_TYPE_HINT,
    RECOGNISED_HINT,
    Context,
    FileSniffer,
    Folder,
    FolderSniffer,
    FormatSignature,
    Notes,
    open_source,
    quote_list,
    unreadable,
)

FILE_SNIFFERS: tuple[FileSniffer, ...] = (
    signatures.SIGNATURES,
    refusals.INDEX,
    alignments.CRAM,
    single_cell.HDF5,
    alignments.BAM,
    variants.BCF,
    taxonomy.KRAKEN2_FILE,
    reports.READ_QC_REPORTS,
    refusals.OTHER_COMPRESSION,
    refusals.BINARY,
    reports.REPORTS_AND_LOGS,
    alignments.SAM_HEADER,
    sequences.FASTQ,
    sequences.FASTA,
    variants.VCF,
    annotation.GFF,
    single_cell.MTX,
    taxonomy.DMP_FILE,
    taxonomy.KRAKEN2_RESULTS,
    variants.VCF_RECORDS,
    read_tables.READ_TABLES,
    abundance.ABUNDANCE,
    cell_tables.CELL_TABLES,
    intervals.INTERVALS,
    alignments.SAM_RECORDS,
    tables.TABLE,
)

FOLDER_SNIFFERS: tuple[FolderSniffer, ...] = (
    quantification.QUANT_FOLDER,
    single_cell.MTX_FOLDER,
    quantification.QUANT_PARENT,
    taxonomy.KRAKEN2_FOLDER,
    taxonomy.TAXDUMP_FOLDER,
)


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
        also = "; ".join(f"{s.label} ({', '.join(s.extensions)})" for s in declared)
        exc.hints[exc.hints.index(RECOGNISED_HINT)] = f"{RECOGNISED_HINT}; {also}"


def sniff_path(shown: str, ctx: Context) -> tuple[SniffedFile, Notes]:
    src = open_source(shown)
    if isinstance(src, Path):
        return _sniff_folder(shown, src, ctx)
    for sniffer in FILE_SNIFFERS:
        if sniffer.claims(src, ctx):
            return sniffer.read(src, ctx)
    raise AssertionError("the table reader takes any text")  # refusals.BINARY took the rest


def _sniff_folder(shown: str, path: Path, ctx: Context) -> tuple[SniffedFile, Notes]:
    try:
        entries = tuple(sorted(e.name for e in os.scandir(path)))
    except OSError as exc:
        raise unreadable(shown, f"directory cannot be listed ({exc.strerror or exc})") from None
    folder = Folder(shown, path, entries)
    for sniffer in FOLDER_SNIFFERS:
        found = sniffer.read(folder, ctx)
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


# folders of a known kind bioplan does not read: named, with what to give instead
_REFUSED_FOLDERS = (
    (frozenset({"t_data.ctab", "e_data.ctab"}), "a StringTie -B (Ballgown) table folder",
     "for gene-level differential expression give the count matrix StringTie's prepDE.py writes from the samples' "
     "GTFs (gene_count_matrix.csv) with a sample sheet"),
)


def declared_ids() -> tuple[set[str], set[str]]:
    """(format ids, datatype ids) the built-in sniffers may report: each must exist in the knowledge."""
    sniffers: tuple[FileSniffer | FolderSniffer, ...] = (*FILE_SNIFFERS, *FOLDER_SNIFFERS)
    return ({f for s in sniffers for f in s.formats}, {d for s in sniffers for d in s.datatypes})
