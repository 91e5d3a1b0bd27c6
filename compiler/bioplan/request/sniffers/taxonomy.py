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
    open_regular,
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
        with open_regular(path, shown) as fh:  # a FIFO named nodes.dmp would block for ever
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


# --------------------------------------------------------------------------- Kraken2 and Bracken outputs
# Kraken2's report (--report; kraken-style, as Bracken, KrakenTools, Pavian and taxpasta read it): percent,
# clade reads, taxon reads, rank code, taxid, indented name (two more minimizer columns with
# --report-minimizer-data); its per-read output (--output): C/U, read id, taxid, length(s), LCA k-mers.
_RANK_RE = re.compile(r"^(?:[URDKPCOFGS]\d*|-|)$")  # empty: a rank outside the codes
_KRAKEN_READ_RE = re.compile(r"^[CU]$")
_BRACKEN_HEADER = ["name", "taxonomy_id", "taxonomy_lvl", "kraken_assigned_reads", "added_reads", "new_est_reads",
                   "fraction_total_reads"]
_SAMPLE_SUFFIX_RE = re.compile(r"(?:[._](?:kraken2?|k2|bracken))?(?:[._](?:report|kreport2?|k2report|output|"
                               r"classifiedreads))?(?:\.txt|\.tsv)?(?:\.gz)?$", re.IGNORECASE)


def _rows(src: Source, n: int = 50) -> list[list[str]]:
    return [ln.split("\t") for ln in src.text_lines[:n] if ln.strip()]


def _is_kreport(src: Source) -> bool:
    rows = _rows(src)
    return bool(rows) and all(
        len(r) in (6, 8) and re.fullmatch(r"\d+(?:\.\d+)?", r[0].strip()) is not None
        and all(v.strip().isdigit() for v in r[1:-3]) and _RANK_RE.match(r[-3].strip()) is not None
        and r[-2].strip().isdigit() for r in rows)


def _is_kraken_output(src: Source) -> bool:
    rows = _rows(src)
    return bool(rows) and all(
        len(r) == 5 and _KRAKEN_READ_RE.match(r[0]) is not None and (r[2].isdigit() or r[2].endswith(")"))
        and re.fullmatch(r"\d+(?:\|\d+)?", r[3]) is not None for r in rows)


def _is_bracken(src: Source) -> bool:
    return src.first_line.split("\t") == _BRACKEN_HEADER


def _sample_of(name: str) -> str:
    stem = _SAMPLE_SUFFIX_RE.sub("", name)
    return stem or name


def _sniff_classification(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    sample = _sample_of(src.name)
    if _is_bracken(src):
        return SniffedFile(path=src.shown, datatype="taxonomic_profile", format="bracken_report", sample=sample,
                           evidence=("Bracken abundance table: its header " + ", ".join(_BRACKEN_HEADER[:3]) + ", ...",
                                     f"sample '{sample}' from the file name")), Notes()
    if _is_kreport(src):
        rows = _rows(src, 400)
        unclassified = next((r for r in rows if r[-3].strip() == "U"), None)
        facts = [Fact(name="unclassified_percent", value=float(unclassified[0]), evidence="the 'U' line")] \
            if unclassified else []
        return SniffedFile(path=src.shown, datatype="taxonomic_classification", format="kraken2_report",
                           sample=sample, facts=tuple(facts),
                           evidence=("Kraken2 report: percent, clade reads, taxon reads, rank code, taxid and "
                                     f"indented name per taxon (first taxon {rows[0][-1].strip()!r})",
                                     f"sample '{sample}' from the file name")), Notes()
    return SniffedFile(path=src.shown, datatype="taxonomic_classification", format="kraken2_output", sample=sample,
                       evidence=("Kraken2 per-read output: C/U, read id, taxid, length, LCA k-mer mapping",
                                 f"sample '{sample}' from the file name")), Notes()


KRAKEN2_RESULTS = FileSniffer("Kraken2 report and per-read output, Bracken abundance table",
                              ("kraken2_report", "kraken2_output", "bracken_report"),
                              ("taxonomic_classification", "taxonomic_profile"),
                              lambda src, ctx: _is_bracken(src) or _is_kreport(src) or _is_kraken_output(src),
                              _sniff_classification)
