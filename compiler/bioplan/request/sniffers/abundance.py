"""Microbiome tables: taxa (OTUs, ASVs, features, clades) x samples abundance tables, as `biom convert
--to-tsv`, QIIME, taxpasta, MetaPhlAn's merge and R packages (phyloseq, metagenomeSeq) write them, and the
per-OTU taxonomy tables beside them. Their counts made the table reader take them for a gene count
matrix; the first column's header (`#OTU ID`, `OTU`, `ASV`, `Feature ID`, `taxonomy_id`, `clade_name`)
says what the rows are. BIOM files themselves (JSON or HDF5) and mothur's shared files are refused by
name, saying how to write the TSV bioplan reads."""

from __future__ import annotations

import csv
import re
import shlex
from collections.abc import Sequence

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    Context,
    FileSniffer,
    Notes,
    Source,
    compression_evidence,
    count_noun,
    quote_list,
    unreadable,
)
from bioplan.request.sniffers.columns import num

# `biom convert --to-tsv` writes this line above its '#OTU ID' header
_BIOM_TSV_COMMENT = "# constructed from biom file"
_TAXON_ID_HEADERS = frozenset({"otu id", "otu_id", "otuid", "otu", "otus", "asv", "asv_id", "asv id", "asvs",
                               "feature id", "feature_id", "featureid", "taxonomy_id", "clade_name", "#clade_name"})
# columns of a taxa table that annotate the taxon rather than count a sample
_ANNOTATION = frozenset({"taxonomy", "consensus lineage", "consensuslineage", "lineage", "taxon", "name", "rank",
                         "taxonomy_lvl", "description", "ncbi_tax_id", "clade_taxid", "sequence", "confidence"})
_RANKS = frozenset({"domain", "kingdom", "superkingdom", "phylum", "class", "order", "family", "genus", "species",
                    "strain"})
_BIOM_JSON_RE = re.compile(r'"format"\s*:\s*"Biological Observation Matrix')
_DNA_RE = re.compile(r"^[ACGTN]{20,}$")
_NOCHIM_RE = re.compile(r"no_?chim|non_?chim|chimera_?free")
_TO_TSV = ("convert it to a taxa x samples TSV with `biom convert -i TABLE.biom -o TABLE.tsv --to-tsv` "
           "(biom-format) and give that")


# a lineage in one column (QIIME 2's 'd__Bacteria; p__Firmicutes; ...', mothur's 'Bacteria(100);"Firmicutes"(100);')
# split into bioplan's one column per rank: rank prefixes, confidences in parentheses and quotes dropped
_SPLIT_LINEAGE = (
    'import sys, pandas as pd; t = pd.read_csv(sys.argv[1], sep="\\t", dtype=str); '
    'r = t[sys.argv[3]].str.rstrip(";").str.split(";", expand=True).apply(lambda c: c.str.strip().str.replace('
    'r"^[a-z]__|\\(\\d+(\\.\\d+)?\\)$|\\x22", "", regex=True)); r.columns = ["Kingdom", "Phylum", "Class", "Order", '
    '"Family", "Genus", "Species", "Strain"][: r.shape[1]]; r.insert(0, "asv_id", t.iloc[:, 0]); '
    'r.to_csv(sys.argv[2], sep="\\t", index=False)')
# the taxonomy tables that hold a lineage in one column: (header, lowered; what wrote it; the lineage column)
_LINEAGE_TABLES = ((("feature id", "taxon"), "a QIIME 2 taxonomy", 1),
                   (("otu", "size", "taxonomy"), "a mothur consensus taxonomy (classify.otu's cons.taxonomy)", 2))


def _refuse_lineage_column(src: Source, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """QIIME 2's exported taxonomy.tsv (Feature ID, Taxon, Confidence) or mothur's cons.taxonomy (OTU, Size,
    Taxonomy): each taxon's whole lineage in one column. Returns for any other table."""
    lowered = tuple(h.strip().lower() for h in header)
    found = next(((what, j) for names, what, j in _LINEAGE_TABLES if lowered[:len(names)] == names), None)
    if found is None:
        return
    what, j = found
    out = re.sub(r"(\.(tsv|txt|taxonomy))?(\.gz)?$", "", src.shown, count=1, flags=re.IGNORECASE) + ".ranks.tsv"
    example = next((r[j] for r in rows if len(r) > j and r[j].strip()), "")
    raise unreadable(
        src.shown, f"is {what} ({quote_list(header, 3)}: each taxon's whole lineage in one column, such as "
        f"{example!r}), while bioplan's ASV taxonomy has one column per rank (asv_id, Kingdom ... Genus)",
        [f"split the lineage into ranks and give that: python -c {shlex.quote(_SPLIT_LINEAGE)} "
         f"{shlex.quote(src.shown)} {shlex.quote(out)} {shlex.quote(header[j])}"],
        expected="ASV taxonomy (one column per rank)")


def _header_and_rows(src: Source) -> tuple[list[str], list[list[str]], str]:
    """(header cells, data rows, delimiter) of the head; the biom-convert comment line and '#' lines
    before the header skipped, the header's own '#' (QIIME's '#OTU ID') kept as text."""
    lines = [ln for ln in src.text_lines if ln.strip()]
    while len(lines) > 1 and lines[0].startswith("#") and lines[1].startswith("#"):
        lines = lines[1:]
    if not lines:
        return [], [], "\t"
    delim = "\t" if "\t" in lines[0] else ","
    rows = [[c.strip() for c in r] for r in csv.reader(lines[:200], delimiter=delim)]
    return rows[0], [r for r in rows[1:] if len(r) == len(rows[0])], delim


def _first_header(src: Source) -> str:
    header, _, _ = _header_and_rows(src)
    return header[0].lstrip("#").strip().lower() if header else ""


def _sample_columns(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    return [j for j in range(1, len(header)) if header[j].lower() not in _ANNOTATION
            and rows and all(num(r[j]) is not None for r in rows)]


def _rank_columns(header: Sequence[str]) -> list[str]:
    return [h for h in header if h.strip().lower() in _RANKS]


def _claims(src: Source, ctx: Context) -> bool:
    first = src.first_line.strip().lower()
    if first.startswith(_BIOM_TSV_COMMENT) or _BIOM_JSON_RE.search(" ".join(src.text_lines[:12])):
        return True
    if first.split("\t")[:3] == ["label", "group", "numotus"]:
        return True  # mothur shared
    return _first_header(src) in _TAXON_ID_HEADERS


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    if _BIOM_JSON_RE.search(" ".join(src.text_lines[:12])):
        raise unreadable(src.shown, "is a BIOM table (JSON, BIOM 1.0), which bioplan does not read", [_TO_TSV])
    if src.first_line.strip().lower().split("\t")[:3] == ["label", "group", "numotus"]:
        raise unreadable(src.shown, "is a mothur shared file (samples in rows, one block per OTU cutoff), which "
                         "bioplan does not read",
                         ["write a taxa x samples table at one cutoff (mothur make.biom label=0.03, then "
                          "`biom convert --to-tsv`) and give that"])
    header, rows, delim = _header_and_rows(src)
    fmt = "csv" if delim == "," else "tsv"
    _refuse_lineage_column(src, header, rows)
    samples = _sample_columns(header, rows)
    ranks = _rank_columns(header)
    evidence = [f"first column '{header[0]}': one taxon (OTU/ASV/feature) per row"] + compression_evidence(src)
    if not samples and len(ranks) >= 3:
        evidence.append(f"rank columns {quote_list(ranks)}: the lineage of each taxon, no sample counts")
        return SniffedFile(path=src.shown, datatype="asv_taxonomy", format="tsv" if fmt == "tsv" else fmt,
                           evidence=tuple(evidence),
                           facts=(Fact(name="ranks", value=ranks, evidence="rank columns"),)), Notes()
    if not samples:
        raise unreadable(src.shown, f"has a taxon column ('{header[0]}') but no numeric sample column",
                         ["give a taxa x samples table: the taxon id, then one column of counts per sample"],
                         expected="taxa x samples abundance table")
    names = [header[j] for j in samples]
    if src.first_line.strip().lower().startswith(_BIOM_TSV_COMMENT):
        evidence.append("written by `biom convert --to-tsv`")
    evidence.append(f"{count_noun(len(names), 'sample column')}: {quote_list(names)}")
    annotation = [h for h in header[1:] if h.lower() in _ANNOTATION]
    if annotation:
        evidence.append(f"annotation column(s) {quote_list(annotation)}")
    facts = (Fact(name="sample_names", value=names, evidence="numeric columns"),
             Fact(name="n_taxa", value=len(rows), evidence=count_noun(len(rows), "row") + " read"))
    datatype = _asv_datatype(src, header, rows, evidence) if fmt == "tsv" else "abundance_table"
    return SniffedFile(path=src.shown, datatype=datatype, format=fmt, evidence=tuple(evidence),
                       facts=facts), Notes()


def _asv_datatype(src: Source, header: Sequence[str], rows: Sequence[Sequence[str]], evidence: list[str]) -> str:
    """An ASV table as bioplan's DADA2 steps write and read it (asv_id, sequence, one count column per sample),
    chimera-free when its name says so (DADA2's seqtab.nochim), else the generic abundance table."""
    lowered = [h.lower() for h in header]
    if lowered[0] not in ("asv_id", "asv", "asv id") or "sequence" not in lowered:
        return "abundance_table"
    at = lowered.index("sequence")
    if not rows or not all(_DNA_RE.match(r[at]) for r in rows):
        return "abundance_table"
    evidence.append("a 'sequence' column holding each ASV's exact sequence: an ASV table (DADA2's steps' layout)")
    if said := _NOCHIM_RE.search(src.name.lower()):
        evidence.append(f"the file name says '{said.group(0)}' (DADA2's seqtab.nochim): chimeras removed")
        return "nonchimeric_asv_table"
    return "asv_table"


ABUNDANCE = FileSniffer("taxa x samples abundance tables (biom convert, QIIME, taxpasta, MetaPhlAn; BIOM JSON and "
                        "mothur shared refused)", ("tsv", "csv"),
                        ("abundance_table", "asv_taxonomy", "asv_table", "nonchimeric_asv_table"), _claims, _read)


def refuse_biom_hdf5(shown: str, groups: Sequence[str]) -> None:
    """An HDF5 file with BIOM 2's observation and sample groups: refused by name (the HDF5 reader calls this)."""
    if {"observation", "sample"} <= set(groups):
        raise unreadable(shown, "is a BIOM table (HDF5, BIOM 2), which bioplan does not read", [_TO_TSV])
