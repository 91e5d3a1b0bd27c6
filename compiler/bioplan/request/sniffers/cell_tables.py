"""Dense single-cell count tables: genes x cells (or cells x genes) as delimited text, the way GEO series and
Seurat's examples ship them (Seurat's pbmc_raw.txt: genes x 80 PBMC barcodes). Their counts made the table
reader take them for a bulk count matrix of 80 samples; names that are cell barcodes (AAACCTGAGAAACCAT-1,
ATGCCAGAACGACT) say the columns (or rows) are cells."""

from __future__ import annotations

import csv
import re
import shlex
from collections.abc import Sequence

from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    BARCODE_RE,
    Context,
    FileSniffer,
    Notes,
    Source,
    compression_evidence,
    count_noun,
    id_namespace,
    quote_list,
    unreadable,
)
from bioplan.request.sniffers.columns import num

_MIN_CELLS = 20  # fewer named columns: a bulk matrix whose sample names happen to be sequences is likelier
# cells named by a number (Excel/pandas exports, 'singleCellTab.csv': cell1, cell2, ...) under a header of genes: a
# cells x genes table when most counts are zeros, as in droplet data (a bulk matrix has few zeros)
_SERIAL_RE = re.compile(r"^([A-Za-z_.-]*?)(\d+)$")
_MIN_ZEROS = 0.5
# numbered columns over gene rows are cells only when nearly all counts are zeros: a bulk genes x samples matrix
# numbers its samples (S1, S2, ...) far more often, and its first rows may be half zeros (genes not expressed)
_MIN_ZEROS_NUMBERED_COLUMNS = 0.8
# Drop-seq's DigitalExpression (DGE) writes '@DGE', '@LIBRARY', '@COMMAND' header lines (SAM-like; '#' in newer
# versions), then 'GENE' over the cell barcodes: its cells are cells however few
DGE_HEADER_RE = re.compile(r"^[@#](?:DGE|LIBRARY|COMMAND)\t")
_DGE_CORNER = "GENE"


def _rows(src: Source) -> tuple[list[list[str]], str]:
    lines = [ln for ln in src.text_lines if ln.strip() and not ln.startswith("#") and not DGE_HEADER_RE.match(ln)][:60]
    delim = "," if lines and lines[0].count(",") > lines[0].count("\t") else "\t"
    return [[c.strip().strip('"') for c in r] for r in csv.reader(lines, delimiter=delim)], delim


def _barcodes(names: Sequence[str], least: int = _MIN_CELLS) -> bool:
    return len(names) >= least and sum(bool(BARCODE_RE.match(n)) for n in names) >= 0.9 * len(names)


def _integer_counts(rows: Sequence[Sequence[str]]) -> bool:
    values = [v for r in rows for v in r[1:]]
    return bool(values) and all((x := num(v)) is not None and x >= 0 and x == int(x) for v in values)


def _cell_names(header: Sequence[str], data: Sequence[Sequence[str]]) -> tuple[str, list[str]] | None:
    """('genes x cells' | 'cells x genes', the cell names seen) of a dense table whose columns or rows name cells
    (barcodes; numbered rows under gene columns, mostly zeros), whatever its values."""
    columns = list(header[1:] if len(header) == len(data[0]) else header)  # R's write.table: no corner cell
    if _barcodes(columns, 1 if header[0] == _DGE_CORNER else _MIN_CELLS):
        return "genes x cells", columns
    firsts = [r[0] for r in data]
    if len(columns) >= _MIN_CELLS and _serial(columns) and _genes(firsts) \
            and _zero_share(data) >= _MIN_ZEROS_NUMBERED_COLUMNS:
        return "genes x cells", columns
    if len(data) >= _MIN_CELLS and (_barcodes(firsts) or _serial(firsts) and _genes(columns)
                                    and _zero_share(data) >= _MIN_ZEROS):
        return "cells x genes", firsts
    return None


def _orientation(src: Source) -> tuple[str, list[str], list[list[str]], str] | None:
    """('genes x cells' | 'cells x genes', cell names seen, data rows, delimiter) of a dense cell count table."""
    rows, delim = _rows(src)
    if len(rows) < 3:
        return None
    found = _cell_names(rows[0], rows[1:])
    if found is None or not _integer_counts(rows[1:]):
        return None
    return found[0], found[1], rows[1:], delim


def _normalised(src: Source) -> tuple[str, list[str]] | None:
    """A dense cell table of numbers not all whole (log-normalised, scaled): (orientation, cell names)."""
    rows, _ = _rows(src)
    values = [v for r in rows[1:] for v in r[1:]]
    if len(rows) < 3 or not values or _integer_counts(rows[1:]) or not all(num(v) is not None for v in values):
        return None  # a one-column list (barcodes.tsv) holds no values
    return _cell_names(rows[0], rows[1:])


def _to_h5ad(src: Source, orientation: str) -> str:
    """The command that writes a dense cell table as an AnnData (cells x genes), whose reader tells its state."""
    sep = "," if src.ext == ".csv" else "\\t"
    code = (f"import sys, anndata, pandas as pd; t = pd.read_csv(sys.argv[1], sep=\"{sep}\", index_col=0); "
            f"anndata.AnnData(t{'.T' if orientation == 'genes x cells' else ''}).write_h5ad(sys.argv[2])")
    out = re.sub(r"(\.(csv|tsv|txt))?(\.gz)?$", "", src.shown, count=1, flags=re.IGNORECASE) + ".h5ad"
    return f"python -c {shlex.quote(code)} {shlex.quote(src.shown)} {shlex.quote(out)}"


def _refuse_normalised(src: Source) -> None:
    found = _normalised(src)
    if found is None:
        return
    orientation, cells = found
    raise unreadable(
        src.shown, f"is a dense single-cell table ({orientation}, cells {quote_list(cells, 3)}) of normalised values "
        "(not whole counts: log-normalised or scaled expression), which bioplan's single-cell steps do not start from",
        ["give the cells' raw counts (a 10x matrix folder or .h5, or this table's counts), or the AnnData the values "
         f"came from (.h5ad; from this table: {_to_h5ad(src, orientation)})"],
        expected="single-cell count matrix")


def _serial(names: Sequence[str]) -> bool:
    """Names that number one stem ('cell1', 'cell2', ...; '1', '2', ...): rows of cells, not of genes."""
    found = [_SERIAL_RE.match(n) for n in names]
    return all(found) and len({m.group(1).lower() for m in found if m}) == 1 and len(set(names)) == len(names)


def _genes(names: Sequence[str]) -> bool:
    """Gene names or ids heading the columns: many, of one namespace, not one stem numbered."""
    return len(names) >= _MIN_CELLS and id_namespace(names, {})[0] != "unknown" and not _serial(names)


def _zero_share(rows: Sequence[Sequence[str]]) -> float:
    values = [v for r in rows for v in r[1:]]
    return sum(num(v) == 0 for v in values) / max(1, len(values))


def _dge_evidence(src: Source) -> list[str]:
    """Drop-seq's DigitalExpression wrote it: its header lines, or 'GENE' in the corner over barcodes."""
    if any(DGE_HEADER_RE.match(ln) for ln in src.text_lines[:5]):
        return ["Drop-seq DigitalExpression (DGE) matrix: its '@DGE'/'@COMMAND' header lines"]
    rows, _ = _rows(src)
    return ["Drop-seq DigitalExpression (DGE) matrix: 'GENE' over the cell barcodes"] \
        if rows and rows[0][:1] == [_DGE_CORNER] else []


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    _refuse_normalised(src)
    found = _orientation(src)
    assert found is not None  # claimed by _orientation
    orientation, cells, data, delim = found
    fmt = "csv" if delim == "," else "tsv"
    per_cell = "columns" if orientation == "genes x cells" else "rows"
    named = "by cell barcodes" if _barcodes(cells, 1) else "as numbered cells, the " + \
        ("rows by genes" if per_cell == "columns" else "columns by genes")
    zeros = f"whole-number counts, {_zero_share(data):.0%} zeros"
    evidence = [f"dense single-cell count table ({orientation}): the {per_cell} are named {named} "
                f"({quote_list(cells, 3)})", zeros] + _dge_evidence(src) + compression_evidence(src)
    facts = (Fact(name="orientation", value=orientation, evidence=f"cell barcodes name the {per_cell}"),
             Fact(name="n_cells", value=len(cells) if per_cell == "columns" else None,
                  evidence=count_noun(len(cells), "barcode") + (" in the header" if per_cell == "columns"
                                                                else " in the first rows read")),
             Fact(name="integer_counts", value=True, evidence=f"{count_noun(len(data), 'row')} of whole numbers read"))
    return SniffedFile(path=src.shown, datatype="single_cell_matrix", format=fmt, evidence=tuple(evidence),
                       facts=facts), Notes()


DGE = FileSniffer("Drop-seq digital expression (DGE) matrices with their '@DGE' header lines", ("tsv",),
                  ("single_cell_matrix",),
                  lambda src, ctx: bool(DGE_HEADER_RE.match(src.first_line)) and _orientation(src) is not None, _read)
CELL_TABLES = FileSniffer("dense single-cell count tables (genes x cells, cell barcodes as names)", ("tsv", "csv"),
                          ("single_cell_matrix",),
                          lambda src, ctx: _orientation(src) is not None or _normalised(src) is not None, _read)


# per-cell columns Seurat (meta.data) and scanpy (obs, calculate_qc_metrics) write: a table of them describes cells
CELL_METADATA_COLUMNS = frozenset({
    "orig.ident", "ncount_rna", "nfeature_rna", "percent.mt", "percent.mito", "seurat_clusters", "n_genes_by_counts",
    "total_counts", "pct_counts_mt", "total_counts_mt", "n_genes", "n_counts", "leiden", "louvain", "doublet_score",
    "predicted_doublet", "s.score", "g2m.score", "phase"})
CELL_METADATA_RE = re.compile(r"orig\.ident|ncount_|nfeature_|percent\.mt|seurat_clusters|n_genes|total_counts|"
                              r"pct_counts|n_counts|leiden|louvain", re.IGNORECASE)  # the registry's cheap test


def _metadata_columns(src: Source) -> tuple[list[str], list[str]]:
    """(per-cell columns named, the row names read) of a per-cell metadata table, or ([], [])."""
    rows, _ = _rows(src)
    if len(rows) < 3:
        return [], []
    known = [h for h in rows[0] if h.lower() in CELL_METADATA_COLUMNS]
    names = [r[0] for r in rows[1:]]
    cells = _barcodes(names) or len(names) >= _MIN_CELLS and _serial(names)
    return (known, names) if len(known) >= 2 or known and cells else ([], [])


def _refuse_metadata(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    known, names = _metadata_columns(src)
    raise unreadable(
        src.shown, f"is a per-cell metadata table (Seurat's meta.data or AnnData's obs written out: "
        f"{quote_list(known, 4)}; cells {quote_list(names, 3)}), which describes the cells but holds no counts",
        ["give the cells' count matrix (a 10x matrix folder or .h5, an .h5ad, or a dense genes x cells table); from "
         "Seurat, SeuratDisk's SaveH5Seurat then Convert(dest = 'h5ad') keeps this table as the AnnData's obs"],
        expected="single-cell count matrix")


CELL_METADATA = FileSniffer("per-cell metadata tables (Seurat meta.data, AnnData obs; refused)", (), (),
                            lambda src, ctx: bool(_metadata_columns(src)[0]), _refuse_metadata)
