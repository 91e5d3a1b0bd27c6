"""Single-cell matrices: AnnData .h5ad (the state of X, .raw and layers; clusters, labels,
embeddings), Cell Ranger HDF5 and 10x MatrixMarket folders or triples."""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bioplan.errors import BioplanError
from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.abundance import refuse_biom_hdf5
from bioplan.request.sniffers.base import (
    Context,
    FileSniffer,
    Folder,
    FolderSniffer,
    Notes,
    Source,
    attr_str,
    corrupt,
    decode,
    h5_strings,
    id_namespace,
    open_member,
    organism_fact,
    quote_list,
    unreadable,
)
from bioplan.request.sniffers.quantification import sniff_kallisto_h5

_H5_SAMPLE = 10_000
_MTX_HEADER_BUDGET = 1 << 20  # bytes read of a MatrixMarket header (banner, comments, size) or a features file

_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"

# --------------------------------------------------------------------------- h5ad


def _sniff_hdf5(src: Source, prefixes: Mapping[str, str]) -> SniffedFile:
    try:
        import h5py
        import numpy as np
    except ImportError:
        raise unreadable(src.shown, "is an HDF5 file (AnnData .h5ad?) but reading it needs the Python package h5py",
                         ["install h5py (pip install h5py) in bioplan's environment"]) from None
    try:
        with h5py.File(src.path, "r") as f:
            return _sniff_h5ad(src, f, h5py, np, prefixes)
    except BioplanError:
        raise
    except Exception as exc:  # h5py/HDF5 raise OSError, KeyError, RuntimeError ... on damaged files
        raise unreadable(src.shown, f"HDF5 file that could not be read as AnnData ({exc})",
                         ["write it with anndata (adata.write_h5ad(path))"], expected="h5ad") from None


_STATE_WORDS = {"raw_counts": "raw counts", "log_normalized": "log-normalised", "scaled": "scaled (z-scores)",
                "normalized": "normalised (non-integer)"}


def _h5_matrix_sample(src: Source, node: Any, h5py: Any, np: Any, where: str) -> tuple[tuple[int, ...], Any, str]:
    """(shape, first stored values, layout) of a dense or sparse matrix of an AnnData file."""
    if isinstance(node, h5py.Dataset):
        shape = tuple(int(s) for s in node.shape)
        if len(shape) != 2:
            raise unreadable(src.shown, f"AnnData {where} has {len(shape)} dimensions, expected 2", expected="h5ad")
        rows = min(shape[0], max(1, _H5_SAMPLE // max(1, shape[1])))
        # columns bounded too: one row of a billion compressed zeros would be gigabytes once read
        return shape, np.asarray(node[:rows, :_H5_SAMPLE]).ravel(), "dense"
    enc = attr_str(node.attrs.get("encoding-type", "sparse"))
    raw_shape = node.attrs.get("shape", node.attrs.get("h5sparse_shape"))
    if raw_shape is None or "data" not in node:
        raise unreadable(src.shown, f"AnnData {where} is a group without a sparse matrix shape/data", expected="h5ad")
    return tuple(int(s) for s in raw_shape), np.asarray(node["data"][:_H5_SAMPLE]), enc.replace("_matrix", "").upper()


def _value_state(sample: Any, np: Any, log1p: bool) -> tuple[str, str]:
    """What a matrix's values are: raw_counts, log_normalized, scaled or normalized, and why."""
    n = int(sample.size)
    if n == 0:
        return "raw_counts", "no stored values (all zero)"
    if np.issubdtype(sample.dtype, np.integer) and bool((sample >= 0).all()):
        return "raw_counts", f"integer values in all {n} values checked"
    finite = np.isfinite(sample)
    if not finite.all():
        return "normalized", f"non-finite values among the first {n}"
    if (sample < 0).any():
        neg = float(sample[sample < 0][0])
        return "scaled", f"negative values (e.g. {neg:g}) in the first {n}: centred and scaled, not counts"
    frac = np.mod(sample, 1) != 0
    if not frac.any():
        return "raw_counts", f"integer values in all {n} values checked"
    example = float(sample[frac][0])
    top = float(sample.max())
    if log1p or top < 30:
        why = "uns['log1p'] is set" if log1p else f"non-integer values up to {top:g}"
        return "log_normalized", f"{why} (e.g. {example:g})"
    return "normalized", f"non-integer values (e.g. {example:g}) up to {top:g}"




def _sniff_10x_h5(src: Source, m: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """Cell Ranger's filtered_feature_bc_matrix.h5: matrix/{data,indices,indptr,shape,barcodes,features}."""
    if "shape" not in m or "data" not in m:
        raise unreadable(src.shown, "HDF5 file with a 'matrix' group that is not a 10x Genomics matrix (no "
                         "shape/data)", ["give Cell Ranger's filtered_feature_bc_matrix.h5 unchanged"],
                         expected="10x HDF5 matrix")
    n_genes, n_cells = (int(x) for x in m["shape"][:2])
    sample = np.asarray(m["data"][:_H5_SAMPLE])
    integer = bool(np.issubdtype(sample.dtype, np.integer) or np.all(np.mod(sample, 1) == 0))
    ids = []
    if "features" in m and "id" in m["features"]:
        ids = h5_strings(m["features"]["id"], 2000)
    elif "genes" in m:  # Cell Ranger 2
        ids = h5_strings(m["genes"], 2000)
    evidence = [f"10x Genomics HDF5 matrix (Cell Ranger): {n_genes} features x {n_cells} barcodes, "
                f"{'integer UMI counts' if integer else 'non-integer values'}"]
    facts = [Fact(name="n_cells", value=n_cells, evidence=f"matrix/shape: {n_cells} barcodes"),
             Fact(name="n_genes", value=n_genes, evidence=f"matrix/shape: {n_genes} features"),
             Fact(name="integer_counts", value=integer, evidence=f"matrix/data is {sample.dtype}"),
             Fact(name="x_state", value="raw_counts" if integer else "normalized",
                  evidence=f"matrix/data is {sample.dtype}")]
    org = organism_fact(ids, prefixes, "feature ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    return SniffedFile(path=src.shown, datatype="single_cell_matrix" if integer else "normalized_single_cell_matrix",
                       format="10x_h5", evidence=tuple(evidence), facts=tuple(facts))


# obs columns holding a clustering (scanpy's leiden/louvain keys, Seurat's clusters) and cell labels
_CLUSTERING_COLUMN_RE = re.compile(r"^(?:leiden|louvain)|^(?:seurat_)?clusters?$|^RNA_snn_res", re.IGNORECASE)
_CELL_LABEL_COLUMN_RE = re.compile(r"^(?:cell_?types?|cell_?type_\w+|celltypes?|\w*_labels?|labels?|annotations?|"
                                   r"cell_ontology_class|predicted_(?:cell_?type|labels?)\w*)$", re.IGNORECASE)


def _refuse_other_hdf5(src: Source, keys: set[str]) -> None:
    """HDF5 files of other kinds users hand over, by their top-level groups: named, with what to give instead."""
    if "UniqueGlobalKey" in keys or "Raw" in keys or (keys and all(k.startswith("read_") for k in keys)):
        # single-read FAST5 (UniqueGlobalKey, Raw, Analyses) or multi-read FAST5 (read_<uuid> groups)
        raise unreadable(src.shown, f"is an Oxford Nanopore FAST5 file (raw signal; groups {sorted(keys)[:4]}), "
                         "which bioplan does not read", ["basecall it (Dorado or Guppy) and give the FASTQ; a FAST5 "
                                                         "already basecalled holds its reads in Analyses/.../Fastq"])
    if {"barcode_idx", "feature_idx", "count"} <= keys:
        raise unreadable(src.shown, "is Cell Ranger's molecule_info.h5 (one row per molecule), which bioplan does not "
                         "read", ["give the count matrix Cell Ranger wrote beside it (filtered_feature_bc_matrix.h5 or "
                                  "the filtered_feature_bc_matrix/ folder)"])


def _sniff_h5ad(src: Source, f: Any, h5py: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """An HDF5 file: kallisto's abundance.h5, a Cell Ranger matrix, or AnnData."""
    keys = set(f.keys())
    if {"aux", "est_counts"} <= keys:
        return sniff_kallisto_h5(src, f, np, prefixes)
    if "matrix" in keys and isinstance(f["matrix"], h5py.Group):
        return _sniff_10x_h5(src, f["matrix"], np, prefixes)
    if {"matrix", "row_attrs", "col_attrs"} <= keys:  # loompy / velocyto / SummarizedExperiment's LoomExperiment
        raise unreadable(src.shown, "is a loom file (HDF5 with matrix, row_attrs and col_attrs), which bioplan "
                         "does not read", ["convert it to AnnData: scanpy.read_loom(path).write_h5ad('cells.h5ad'), "
                                           "and give the .h5ad"], expected="h5ad")
    refuse_biom_hdf5(src.shown, sorted(keys))  # a BIOM 2 table (observation, sample groups): named
    _refuse_other_hdf5(src, keys)
    if not {"obs", "var"} <= keys or "X" not in keys:
        raise unreadable(src.shown, f"HDF5 file without the AnnData groups obs, var and X (has {sorted(keys)[:6]})",
                         ["give an AnnData file written with adata.write_h5ad(path)"], expected="h5ad")
    return _sniff_anndata(src, f, keys, h5py, np, prefixes)


def _sniff_anndata(src: Source, f: Any, keys: set[str], h5py: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """What X holds (and .raw, layers), embeddings, gene ids, and the clusterings and labels of obs."""
    shape, sample, layout = _h5_matrix_sample(src, f["X"], h5py, np, "X")
    n_cells, n_genes = shape
    if n_cells == 0 or n_genes == 0:
        raise unreadable(src.shown, f"AnnData with {n_cells} cells x {n_genes} genes: nothing to analyse",
                         expected="h5ad")
    log1p = "uns" in keys and isinstance(f["uns"], h5py.Group) and "log1p" in f["uns"]
    x_state, x_why = _value_state(sample, np, log1p)
    integer = x_state == "raw_counts"
    evidence = [f"AnnData: {n_cells} cells x {n_genes} genes, X {layout} {sample.dtype}",
                f"X is {_STATE_WORDS[x_state]}: {x_why}"]
    facts = [
        Fact(name="n_cells", value=n_cells, evidence=f"X has {n_cells} rows (cells)"),
        Fact(name="n_genes", value=n_genes, evidence=f"X has {n_genes} columns (genes)"),
        Fact(name="integer_counts", value=integer, evidence=f"X: {x_why}"),
        Fact(name="x_state", value=x_state, evidence=f"X: {x_why}"),
    ]
    for more_facts, more_evidence in (_raw_and_layers(src, f, keys, h5py, np, "X" if integer else None),
                                      _embeddings(f, keys, h5py), _var_gene_ids(f["var"], h5py, prefixes),
                                      _obs_groups(_obs_columns(f["obs"], h5py))):
        facts += more_facts
        evidence += more_evidence
    if integer:
        datatype = "single_cell_matrix"
        evidence.append("raw counts in X: the analysis starts with QC")
    else:
        datatype = "normalized_single_cell_matrix"
        evidence.append(f"X is already {_STATE_WORDS[x_state]}: the analysis starts after normalisation")
    return SniffedFile(path=src.shown, datatype=datatype, format="h5ad", evidence=tuple(evidence), facts=tuple(facts))


def _raw_and_layers(src: Source, f: Any, keys: set[str], h5py: Any, np: Any,
                    counts_at: str | None) -> tuple[list[Fact], list[str]]:
    """The state of .raw and of each layer, and where the raw counts are (`counts_at`: "X" when X has them)."""
    facts: list[Fact] = []
    evidence: list[str] = []
    # .raw: the group raw/ (anndata >= 0.7) or the dataset raw.X (older files, e.g. scanpy's pbmc68k_reduced)
    raw_x = f["raw"]["X"] if "raw" in keys and isinstance(f["raw"], h5py.Group) and "X" in f["raw"] else \
        f["raw.X"] if "raw.X" in keys else None
    if raw_x is not None:
        _, raw_sample, _ = _h5_matrix_sample(src, raw_x, h5py, np, "raw/X")
        raw_state, raw_why = _value_state(raw_sample, np, False)
        facts.append(Fact(name="raw_state", value=raw_state, evidence=f".raw present; raw/X: {raw_why}"))
        evidence.append(f".raw present, holding {_STATE_WORDS[raw_state]} ({raw_why})")
        if raw_state == "raw_counts" and counts_at is None:
            counts_at = "raw"
    layers: dict[str, str] = {}
    if "layers" in keys and isinstance(f["layers"], h5py.Group):
        for name in sorted(f["layers"].keys()):
            _, lsample, _ = _h5_matrix_sample(src, f["layers"][name], h5py, np, f"layers/{name}")
            layers[name] = _value_state(lsample, np, False)[0]
    if layers:
        shown = ", ".join(f"{k} ({_STATE_WORDS[v]})" for k, v in layers.items())
        facts.append(Fact(name="layers", value=layers, evidence=f"layers: {shown}"))
        evidence.append(f"layers: {shown}")
        if counts_at is None:
            counts_at = next((f"layers/{k}" for k, v in layers.items() if v == "raw_counts"), None)
    facts.append(Fact(name="raw_counts_at", value=counts_at,
                      evidence=f"raw counts in {counts_at}" if counts_at else
                      "no raw counts in X, .raw or a layer: steps that need counts (QC, normalisation) cannot run"))
    return facts, evidence


def _embeddings(f: Any, keys: set[str], h5py: Any) -> tuple[list[Fact], list[str]]:
    if "obsm" not in keys:
        return [], []
    node = f["obsm"]  # a group, or a compound dataset in files of anndata < 0.7
    obsm = list(node.keys()) if isinstance(node, h5py.Group) else list(node.dtype.names or ())
    if not obsm:
        return [], []
    return ([Fact(name="embeddings", value=obsm, evidence=f"obsm holds {quote_list(obsm, 4)}")],
            [f"obsm holds {quote_list(obsm, 4)}"])


def _var_gene_ids(var: Any, h5py: Any, prefixes: Mapping[str, str]) -> tuple[list[Fact], list[str]]:
    """The id namespace and organism of the genes (var's index, or its gene_ids column when that is Ensembl)."""
    if not isinstance(var, h5py.Group):
        return [], []
    index_name = attr_str(var.attrs.get("_index", "_index"))
    gene_ids: list[str] = []
    for name in (index_name, "gene_ids", "gene_id", "ensembl_id"):
        if name in var and isinstance(var[name], h5py.Dataset) and var[name].dtype.kind in "SOU":
            gene_ids = h5_strings(var[name], 2000)
            if id_namespace(gene_ids, prefixes)[0] == "ensembl":
                break
    if not gene_ids:
        return [], []
    ns, _ = id_namespace(gene_ids, prefixes)
    facts = [Fact(name="id_namespace", value=ns, evidence=f"var names like {quote_list(gene_ids, 3)}")]
    org = organism_fact(gene_ids, prefixes, "var gene ids")
    return (facts + [org], [org.evidence]) if org else (facts, [])


def _obs_columns(obs: Any, h5py: Any) -> list[str]:
    if not isinstance(obs, h5py.Group):  # anndata < 0.7: obs as a compound dataset
        return list(obs.dtype.names or ())
    columns = [k for k in obs if not k.startswith("_")]
    if "__categories" in obs:  # anndata 0.7 stored categoricals' levels apart
        columns += [k for k in obs["__categories"] if k not in columns]
    return columns


def _obs_groups(columns: list[str]) -> tuple[list[Fact], list[str]]:
    """Earlier clusterings and published cell labels among the obs columns."""
    clusters = [c for c in columns if _CLUSTERING_COLUMN_RE.match(c)]
    labels = [c for c in columns if c not in clusters and _CELL_LABEL_COLUMN_RE.match(c)]
    facts: list[Fact] = []
    evidence: list[str] = []
    if clusters:
        # existing clusters are a fact about the file; what the data is comes from its values
        evidence.append(f"obs has earlier clustering column(s) {quote_list(clusters)} (kept; a new clustering "
                        "is added beside them)")
        facts.append(Fact(name="cluster_columns", value=clusters, evidence=f"obs columns {quote_list(clusters)}"))
    if labels:
        # published cell labels (cell types, bulk labels): groups markers can be found for too
        evidence.append(f"obs has cell label column(s) {quote_list(labels)}")
        facts.append(Fact(name="label_columns", value=labels, evidence=f"obs columns {quote_list(labels)}"))
    return facts, evidence


# --------------------------------------------------------------------------- 10x Genomics matrices

_MTX_RE = re.compile(r"^(?P<prefix>.*?)matrix\.mtx(?:\.gz)?$")
MTX_PARTS = ("barcodes.tsv", "features.tsv", "genes.tsv")


def _mtx_siblings(folder: Path, prefix: str, present: set[str]) -> dict[str, str]:
    """Barcodes and features/genes files next to a matrix.mtx, with the same name prefix."""
    found = {}
    for part in MTX_PARTS:
        for name in (f"{prefix}{part}", f"{prefix}{part}.gz"):
            if name in present:
                found["features" if part != "barcodes.tsv" else "barcodes"] = name
                break
    return found


def _mtx_header(path: Path, shown: str) -> tuple[str, int, int, int]:
    """(field type, rows, columns, entries) of a MatrixMarket coordinate file."""
    try:
        with open_member(path, shown) as fh:
            # the banner, comment lines and the size line within a budget: gigabytes of '%' (a small .gz)
            # are no matrix header
            banner = decode(fh.readline(_MTX_HEADER_BUDGET))
            line = decode(fh.readline(_MTX_HEADER_BUDGET))
            read = len(banner) + len(line)
            while line.startswith("%") and read < _MTX_HEADER_BUDGET:
                line = decode(fh.readline(_MTX_HEADER_BUDGET - read))
                read += len(line) or _MTX_HEADER_BUDGET
    except (OSError, EOFError, zlib.error) as exc:
        raise corrupt(shown, exc) from None
    fields = banner.lower().split()
    size = line.split()
    if len(fields) < 4 or fields[0] != "%%matrixmarket" or fields[2] != "coordinate" or len(size) != 3 \
            or not all(x.isdigit() for x in size):
        raise unreadable(shown, "not a MatrixMarket coordinate matrix (first line '%%MatrixMarket matrix "
                         "coordinate integer general', then 'rows columns entries')", expected="10x matrix.mtx")
    return fields[3], int(size[0]), int(size[1]), int(size[2])


def _mtx_result(shown: str, folder: Path, matrix: str, parts: dict[str, str],
                prefixes: Mapping[str, str], what: str) -> SniffedFile:
    field, n_rows, n_cols, nnz = _mtx_header(folder / matrix, os.path.join(shown, matrix) if what == "folder"
                                             else shown)
    missing = [p for p in ("barcodes", "features") if p not in parts]
    if missing:
        raise unreadable(shown, f"10x matrix without its {' and '.join(missing)} file (next to {matrix})",
                         ["keep matrix.mtx.gz, barcodes.tsv.gz and features.tsv.gz (genes.tsv for Cell Ranger 2) "
                           "together in one folder"], expected="10x MTX folder")
    gene_ids: list[str] = []
    try:
        with open_member(folder / parts["features"], os.path.join(shown, parts["features"])) as fh:
            # the first 2,000 feature ids, within a budget of bytes (one line of gigabytes is no feature list)
            read = 0
            while len(gene_ids) < 2000 and read < _MTX_HEADER_BUDGET:
                raw = fh.readline(_MTX_HEADER_BUDGET - read)
                if not raw:
                    break
                read += len(raw)
                gene_ids.append(decode(raw).split("\t", 1)[0].strip())
    except (OSError, EOFError, zlib.error) as exc:
        raise corrupt(os.path.join(shown, parts["features"]), exc) from None
    integer = field == "integer"
    evidence = [f"10x Genomics MTX {what}: {matrix} ({n_rows} genes x {n_cols} barcodes, {nnz} non-zero "
                f"{field} entries) with {parts['barcodes']} and {parts['features']}"]
    facts = [Fact(name="n_cells", value=n_cols, evidence=f"{matrix} has {n_cols} columns (barcodes)"),
             Fact(name="n_genes", value=n_rows, evidence=f"{matrix} has {n_rows} rows (features)"),
             Fact(name="integer_counts", value=integer,
                  evidence=f"MatrixMarket field type '{field}'" + ("" if integer else ": not raw UMI counts")),
             Fact(name="x_state", value="raw_counts" if integer else "normalized",
                  evidence=f"MatrixMarket field type '{field}'")]
    org = organism_fact(gene_ids, prefixes, "feature ids")
    if org:
        facts.append(org)
        evidence.append(org.evidence)
    return SniffedFile(path=shown, datatype="single_cell_matrix" if integer else "normalized_single_cell_matrix",
                       format="mtx", evidence=tuple(evidence), facts=tuple(facts))


def _kb_stems(present: set[str]) -> list[str]:
    """kallisto | bustools (kb count) matrices: STEM.mtx beside STEM.barcodes.txt and STEM.genes.txt (cells_x_genes,
    older kb's genes, the velocity workflows' spliced/unspliced or mature/nascent/ambiguous)."""
    return sorted(n[:-4] for n in present
                  if n.endswith(".mtx") and {f"{n[:-4]}.barcodes.txt", f"{n[:-4]}.genes.txt"} <= present)


def _refuse_kb(shown: str, stems: list[str]) -> None:
    first = "spliced" if "spliced" in stems else "mature" if "mature" in stems else stems[0]
    several = (f"; of its {len(stems)} matrices ({', '.join(f'{s}.mtx' for s in stems)}) bioplan's single-cell "
               f"steps read one: {first}.mtx holds the counts of mature mRNA") if len(stems) > 1 else ""
    each = "each with its" if len(stems) > 1 else "with its"
    raise unreadable(shown, f"is kallisto | bustools (kb count) output ({', '.join(f'{s}.mtx' for s in stems)} {each} "
                     ".barcodes.txt and .genes.txt: cells as rows, genes as columns, not 10x's matrix.mtx with "
                     "barcodes.tsv and features.tsv)" + several,
                     ["rerun kb count with --h5ad (it writes the counts as an .h5ad), or write one in Python: "
                      f"a = scanpy.read_mtx('{first}.mtx'); a.obs_names = open('{first}.barcodes.txt').read().split(); "
                      f"a.var_names = open('{first}.genes.txt').read().split(); a.write_h5ad('cells.h5ad'); and give "
                      "the .h5ad"], expected="10x MTX folder")


def _mtx_dir(shown: str, path: Path, entries: Sequence[str], prefixes: Mapping[str, str]) -> SniffedFile | None:
    """A Cell Ranger matrix folder (filtered_feature_bc_matrix/): matrix.mtx.gz, barcodes.tsv.gz, features.tsv.gz.
    A kb count folder (cells_x_genes.mtx, .barcodes.txt, .genes.txt) is refused by name."""
    present = set(entries)
    kb = _kb_stems(present)
    if kb and not any(_MTX_RE.match(e) for e in entries):
        _refuse_kb(shown, kb)
    matrices = [(e, m.group("prefix")) for e in entries for m in [_MTX_RE.match(e)] if m]
    if len(matrices) != 1:
        return None
    matrix, prefix = matrices[0]
    return _mtx_result(shown, path, matrix, _mtx_siblings(path, prefix, present), prefixes, "folder")


def _sniff_mtx_file(src: Source, prefixes: Mapping[str, str]) -> SniffedFile:
    """matrix.mtx(.gz) given as a file: one matrix with the barcodes/features files beside it."""
    folder = src.path.parent
    m = _MTX_RE.match(src.name)
    prefix = m.group("prefix") if m else ""
    try:
        present = {e.name for e in os.scandir(folder)}
    except OSError:
        present = set()
    if not m and src.name.endswith(".mtx") and src.name[:-4] in _kb_stems(present):
        _refuse_kb(src.shown, _kb_stems(present))
    return _mtx_result(src.shown, folder, src.name, _mtx_siblings(folder, prefix, present), prefixes, "triple")


def mtx_part_of(path: str, matrices: Sequence[SniffedFile]) -> SniffedFile | None:
    """The 10x matrix a barcodes/features file given on its own belongs to."""
    p = Path(path)
    for m in matrices:
        mp = Path(m.path)
        base = mp if mp.is_dir() else mp.parent
        named = None if mp.is_dir() else _MTX_RE.match(mp.name)
        prefix = named.group("prefix") if named else ""
        if os.path.abspath(p.parent) == os.path.abspath(base) and any(
                p.name in (f"{prefix}{part}", f"{prefix}{part}.gz") for part in MTX_PARTS):
            return m
    return None


# --------------------------------------------------------------------------- registry entries

_MATRIX_DATATYPES = ("single_cell_matrix", "normalized_single_cell_matrix")
# kallisto's abundance.h5 is HDF5 too: this reader hands it to quantification.py
HDF5 = FileSniffer("HDF5 (AnnData, Cell Ranger, kallisto)", ("h5ad", "10x_h5", "kallisto_quant"),
                   (*_MATRIX_DATATYPES, "transcript_quantification"),
                   lambda src, ctx: src.magic.startswith(_HDF5_MAGIC),
                   lambda src, ctx: (_sniff_hdf5(src, ctx.prefixes), Notes()))
MTX = FileSniffer("10x MatrixMarket file", ("mtx",), _MATRIX_DATATYPES,
                  lambda src, ctx: src.first_line.lower().startswith("%%matrixmarket"),
                  lambda src, ctx: (_sniff_mtx_file(src, ctx.prefixes), Notes()))


def _read_mtx_folder(folder: Folder, ctx: Context) -> tuple[SniffedFile, Notes] | None:
    found = _mtx_dir(folder.shown, folder.path, folder.entries, ctx.prefixes)
    return None if found is None else (found, Notes())


MTX_FOLDER = FolderSniffer("10x MTX folder", ("mtx",), _MATRIX_DATATYPES, _read_mtx_folder)
