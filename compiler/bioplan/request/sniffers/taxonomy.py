"""Taxonomy and classifier databases: NCBI taxonomy dumps (files or folders) and Kraken2 databases."""

from __future__ import annotations

import re
from pathlib import Path

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    MAX_LINE,
    Context,
    FileSniffer,
    Folder,
    FolderSniffer,
    Notes,
    Source,
    decode,
    quote_list,
    unreadable,
)

# Format ids (of ontology/formats.yaml) that are not simply the file's extension.
FMT_TAXONOMY_DUMP = "taxdump"
FMT_KRAKEN2_DB = "kraken2_db"

_DMP_SEP = "\t|\t"
_K2D_FILES = ("hash.k2d", "opts.k2d", "taxo.k2d")
_DMP_FILES = ("nodes.dmp", "names.dmp")


def _dmp_kind(shown: str, first_line: str, name: str) -> str:
    f = first_line.rstrip("\t|").split(_DMP_SEP)
    if name in _DMP_FILES:
        kind = name
    elif len(f) >= 3 and f[1].isdigit():
        kind = "nodes.dmp"
    elif len(f) >= 4 and "name" in f[-1]:
        kind = "names.dmp"
    else:
        kind = ""
    if not f[0].isdigit() or not kind or (kind == "nodes.dmp" and not (len(f) >= 3 and f[1].isdigit())):
        raise unreadable(shown, "'\\t|\\t'-separated file that is neither an NCBI nodes.dmp (taxid | parent | rank) "
                         "nor names.dmp (taxid | name | unique name | class)",
                         ["give the directory holding nodes.dmp and names.dmp from NCBI taxdump.tar.gz"],
                         expected="taxonomy dump")
    return kind


def _first_line(path: Path, shown: str) -> str:
    try:
        with open(path, "rb") as fh:
            return decode(fh.readline(MAX_LINE)).rstrip("\r\n")
    except OSError as exc:
        raise unreadable(shown, f"cannot be read ({exc.strerror or exc})") from None


def _sniff_dmp_file(src: Source, first: str) -> tuple[SniffedFile, Notes]:
    kind = _dmp_kind(src.shown, first, src.name)
    other = "names.dmp" if kind == "nodes.dmp" else "nodes.dmp"
    sniffed = SniffedFile(
        path=src.shown, datatype="taxonomy_dump", format=FMT_TAXONOMY_DUMP,
        evidence=(f"NCBI taxonomy {kind}: '\\t|\\t'-separated rows starting with a taxid",
                  f"a complete dump also needs {other}"),
        facts=(Fact(name="files", value=[kind], evidence=f"{kind} only"),))
    return sniffed, Notes(dmp_files=(kind,))


def _kraken2_db(folder: Folder, ctx: Context) -> tuple[SniffedFile, Notes] | None:
    """A Kraken2 database folder (hash.k2d, opts.k2d, taxo.k2d; Bracken's kmer_distrib files)."""
    shown, path, entries = folder.shown, folder.path, folder.entries
    present = set(entries)
    k2d = [n for n in _K2D_FILES if n in present]
    if not k2d:
        return None
    missing = [n for n in _K2D_FILES if n not in present]
    if missing:
        raise unreadable(shown, f"incomplete Kraken2 database: has {quote_list(k2d)} but lacks {quote_list(missing)}",
                         ["finish the build (kraken2-build --build --db DIR) or download a prebuilt index"],
                         expected="Kraken2 database")
    empty = [n for n in _K2D_FILES if (path / n).stat().st_size == 0]
    if empty:
        raise unreadable(shown, f"Kraken2 database with empty {quote_list(empty)}", expected="Kraken2 database")
    bracken = sorted(int(m.group(1)) for n in entries
                     for m in [re.match(r"database(\d+)mers\.kmer_distrib$", n)] if m)
    facts = [Fact(name="files", value=list(_K2D_FILES), evidence="hash.k2d, opts.k2d and taxo.k2d present")]
    evidence = ["Kraken2 database directory: hash.k2d, opts.k2d, taxo.k2d"]
    if bracken:
        facts.append(Fact(name="bracken_read_lengths", value=bracken,
                          evidence=f"Bracken kmer_distrib files for read lengths {bracken}"))
        evidence.append(f"Bracken distributions for read lengths {bracken}")
    return SniffedFile(path=shown, datatype="taxonomic_database", format=FMT_KRAKEN2_DB,
                       evidence=tuple(evidence), facts=tuple(facts)), Notes()


def _taxdump_folder(folder: Folder, ctx: Context) -> tuple[SniffedFile, Notes] | None:
    """An NCBI taxonomy dump folder: nodes.dmp and names.dmp (merged.dmp, delnodes.dmp)."""
    shown, path, present = folder.shown, folder.path, set(folder.entries)
    dmp = [n for n in _DMP_FILES if n in present]
    if not dmp:
        return None
    if len(dmp) < 2:
        other = "names.dmp" if dmp[0] == "nodes.dmp" else "nodes.dmp"
        raise unreadable(shown, f"taxonomy directory has {dmp[0]} but no {other}",
                         ["unpack both from NCBI taxdump.tar.gz (https://ftp.ncbi.nlm.nih.gov/pub/taxonomy/)"],
                         expected="taxonomy dump")
    for name in dmp:
        line = _first_line(path / name, f"{shown}/{name}")
        if line:
            _dmp_kind(f"{shown}/{name}", line, name)
    extra = [n for n in ("merged.dmp", "delnodes.dmp") if n in present]
    return SniffedFile(
        path=shown, datatype="taxonomy_dump", format=FMT_TAXONOMY_DUMP,
        evidence=("NCBI taxonomy dump directory: nodes.dmp and names.dmp"
                  + (f" (+ {', '.join(extra)})" if extra else ""),),
        facts=(Fact(name="files", value=dmp + extra, evidence="files present in the directory"),)), Notes()


def _refuse_k2d_file(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, "is one file of a Kraken2 database",
                     ["give the database directory (holding hash.k2d, opts.k2d and taxo.k2d) instead"])


# --------------------------------------------------------------------------- registry entries

DMP_FILE = FileSniffer("NCBI taxonomy .dmp file", (FMT_TAXONOMY_DUMP,), ("taxonomy_dump",),
                       lambda src, ctx: _DMP_SEP in src.first_line,
                       lambda src, ctx: _sniff_dmp_file(src, src.first_line))
KRAKEN2_FILE = FileSniffer("one file of a Kraken2 database (refused)", (), (),
                           lambda src, ctx: src.name.lower().endswith(".k2d"), _refuse_k2d_file)
KRAKEN2_FOLDER = FolderSniffer("Kraken2 database folder", (FMT_KRAKEN2_DB,), ("taxonomic_database",), _kraken2_db)
TAXDUMP_FOLDER = FolderSniffer("NCBI taxonomy dump folder", (FMT_TAXONOMY_DUMP,), ("taxonomy_dump",),
                               _taxdump_folder)
