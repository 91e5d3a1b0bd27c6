"""Quantifier outputs: Salmon/Sailfish, kallisto and RSEM tables, kallisto HDF5, their per-sample
folders and folders of them; tximport transcript-to-gene tables."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bioplan.errors import UnreadableInputError
from bioplan.models import Fact, SniffedFile
from bioplan.request.sniffers.base import (
    TX_ID_RE,
    Context,
    Folder,
    FolderSniffer,
    Notes,
    Source,
    attr_str,
    compressed_fact,
    count_noun,
    h5_strings,
    id_namespace,
    open_regular,
    organism_fact,
    quote_list,
    unreadable,
)
from bioplan.request.sniffers.columns import CONDITION_COLUMNS, GENE_HEADERS, SAMPLE_COLUMNS, Column, norm_header


def sniff_kallisto_h5(src: Source, f: Any, np: Any, prefixes: Mapping[str, str]) -> SniffedFile:
    """kallisto's abundance.h5: est_counts and aux/ids (transcript ids), lengths, bootstraps."""
    ids = h5_strings(f["aux"]["ids"], 2000) if "ids" in f["aux"] else []
    n = int(f["est_counts"].shape[0])
    # a scalar (or one value) only: reading a dataset whole could inflate gigabytes of compressed chunks
    stored = f["aux"].get("kallisto_version")
    version = attr_str(stored[()] if stored.shape == () else stored[0]) if stored is not None and stored.size else ""
    boots = int(f["aux"]["num_bootstrap"][0]) if "num_bootstrap" in f["aux"] else 0
    layout = next(q for q in QUANT_LAYOUTS if q.quantifier == "kallisto")
    sample, why = _quant_sample(src.path)
    evidence = [f"kallisto HDF5 output: est_counts for {n} transcripts, aux/ids"
                + (f" (kallisto {version})" if version else "") + (f", {boots} bootstraps" if boots else ""), why]
    return SniffedFile(path=src.shown, datatype="transcript_quantification", format=layout.format,
                       evidence=tuple(evidence), facts=tuple(_quant_facts(layout, n, ids, prefixes, version)),
                       sample=sample)


# The file a quantifier's output folder is read through, by tool (first present wins). Gzipped tables are
# how folders are shipped and archived (Bioconductor's tximportData and IsoformSwitchAnalyzeR keep
# salmon/<sample>/quant.sf.gz, kallisto/<sample>/abundance.tsv.gz); tximport reads them as they are.
_QUANT_DIR_FILES = (("quant.sf", "salmon"), ("quant.sf.gz", "salmon"), ("abundance.tsv", "kallisto"),
                    ("abundance.tsv.gz", "kallisto"), ("abundance.h5", "kallisto"))
_RSEM_RESULTS_RE = re.compile(r"\.(?:genes|isoforms)\.results(?:\.gz)?$")


_RUN_RECORD_MAX = 1 << 20  # bytes of a quantifier's run record (cmd_info.json, meta_info.json) read


def _json_of(path: Path) -> dict:
    import json

    # a run record is a few hundred bytes: a larger one, a FIFO or JSON nested past Python's recursion
    # limit is no record of Salmon's (evidence only, so ignored rather than refused)
    try:
        with open_regular(path, str(path)) as fh:
            text = fh.read(_RUN_RECORD_MAX + 1)
        value = json.loads(text) if len(text) <= _RUN_RECORD_MAX else {}
    except (OSError, ValueError, RecursionError, UnreadableInputError):
        return {}
    return value if isinstance(value, dict) else {}


def _run_info_evidence(path: Path) -> list[str]:
    """What the quantifier's own run records say (version, library type, mapping rate)."""
    out = []
    cmd = _json_of(path / "cmd_info.json")
    for key in ("salmon_version", "sailfish_version"):
        if key in cmd:
            out.append(f"cmd_info.json: {key.split('_')[0]} {cmd[key]}"
                       + (f", libType {cmd['libType']}" if "libType" in cmd else ""))
    lib = _json_of(path / "lib_format_counts.json")
    if "expected_format" in lib:
        out.append(f"lib_format_counts.json: library format {lib['expected_format']}")
    meta = _json_of(path / "aux_info" / "meta_info.json")
    if "percent_mapped" in meta:
        out.append(f"aux_info/meta_info.json: {meta.get('num_processed', '?')} fragments, "
                   f"{float(meta['percent_mapped']):.1f}% mapped")
    run = _json_of(path / "run_info.json")
    if "kallisto_version" in run:
        out.append(f"run_info.json: kallisto {run['kallisto_version']}, {run.get('n_processed', '?')} reads, "
                   f"{run.get('p_pseudoaligned', '?')}% pseudoaligned")
    return out


def _quant_dir(shown: str, path: Path, entries: Sequence[str], ctx: Context) -> SniffedFile | None:
    """A Salmon/Sailfish, kallisto or RSEM output folder of one sample, read through its main file."""
    present = set(entries)
    main = next((name for name, _ in _QUANT_DIR_FILES if name in present), None)
    if main is None:
        rsem = sorted(e for e in entries if _RSEM_RESULTS_RE.search(e))
        prefixes_rsem = {_RSEM_RESULTS_RE.sub("", e) for e in rsem}
        if len(prefixes_rsem) != 1:
            return None
        main = next((e for e in rsem if ".genes.results" in e), rsem[0])
    inner, _ = ctx.sniff(os.path.join(shown, main))
    if inner.datatype != "transcript_quantification":
        return None
    sample = path.resolve().name if path.name in ("", ".", "..") else path.name
    why = f"sample '{sample}' from the folder name"
    if sample.lower() in _GENERIC_QUANT_DIRS:
        sample, why = _quant_sample(path / "quant.sf")
    evidence = [f"{inner.fact('quantifier')} output folder: read through {main}"]
    evidence += [e for e in inner.evidence if not e.startswith("sample '")]
    evidence += _run_info_evidence(path) + [why]
    facts = tuple(inner.facts) + (Fact(name="files", value=[e for e in entries if not e.startswith(".")][:20],
                                       evidence="files in the folder"),)
    return SniffedFile(path=shown, datatype=inner.datatype, format=inner.format, evidence=tuple(evidence),
                       facts=facts, sample=sample)


def _quant_parent(shown: str, path: Path, entries: Sequence[str], ctx: Context) -> tuple[SniffedFile, ...]:
    """A folder of per-sample quantifier folders (salmon/ctrl_1/quant.sf, salmon/ctrl_2/quant.sf, ...)."""
    found = []
    for name in entries:
        sub = path / name
        if name.startswith(".") or not sub.is_dir():
            continue
        try:
            inner = sorted(e.name for e in os.scandir(sub))
        except OSError:
            continue
        sniffed = _quant_dir(os.path.join(shown, name), sub, inner, ctx)
        if sniffed is not None:
            found.append(sniffed.model_copy(update={"evidence": sniffed.evidence + (
                f"one of {shown}'s per-sample quantification folders",)}))
    return tuple(found)



@dataclass(frozen=True)
class _QuantLayout:
    """Column layout of one quantifier's per-sample output table."""

    columns: tuple[str, ...]  # normalised header, leading columns
    quantifier: str  # the `quantifier` fact: salmon, sailfish, kallisto, rsem
    format: str  # format id of ontology/formats.yaml
    level: str  # "transcript" or "gene"


QUANT_LAYOUTS = (
    _QuantLayout(("name", "length", "effectivelength", "tpm", "numreads"), "salmon", "salmon_quant", "transcript"),
    # Sailfish <= 0.6 (its later versions write Salmon's layout)
    _QuantLayout(("transcript", "length", "tpm", "rpkm", "kpkm", "estimatednumkmers", "estimatednumreads"),
                 "sailfish", "salmon_quant", "transcript"),
    _QuantLayout(("target_id", "length", "eff_length", "est_counts", "tpm"), "kallisto", "kallisto_quant",
                 "transcript"),
    _QuantLayout(("transcript_id", "gene_id", "length", "effective_length", "expected_count", "tpm", "fpkm"),
                 "rsem", "rsem_quant", "transcript"),
    _QuantLayout(("gene_id", "transcript_id(s)", "length", "effective_length", "expected_count", "tpm", "fpkm"),
                 "rsem", "rsem_quant", "gene"),
)
# Output file names that say nothing about the sample: the folder names it.
_GENERIC_QUANT_FILES = frozenset({"quant.sf", "quant.genes.sf", "abundance.tsv", "abundance.h5"})
# Folder names that say nothing about the sample either (salmon/ctrl_1/quant/quant.sf).
_GENERIC_QUANT_DIRS = frozenset({"quant", "quants", "salmon", "sailfish", "kallisto", "rsem", "out", "output",
                                 "outputs", "results", "quantification", "quantifications"})
_QUANT_SUFFIX_RE = re.compile(
    r"(?:[._-](?:quant|abundance|salmon|kallisto|rsem))*"
    r"\.(?:genes\.results|isoforms\.results|quant\.genes\.sf|quant\.sf|sf|abundance\.tsv|tsv|txt|h5)$",
    re.IGNORECASE)


def _quant_sample(path: Path) -> tuple[str, str]:
    """(sample name, why) of a quantifier's output file: its folder for a generic name (ctrl_1/quant.sf),
    else its name without the quantifier's suffixes (ctrl_1.genes.results)."""
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    if name.lower() in _GENERIC_QUANT_FILES:
        folder = Path(os.path.abspath(path)).parent
        skipped = []
        while folder.name.lower() in _GENERIC_QUANT_DIRS and folder.parent != folder:
            skipped.append(folder.name)
            folder = folder.parent
        why = f"sample '{folder.name}' from the folder holding {name}"
        if skipped:
            why += f" (generic folder name(s) {quote_list(skipped)} skipped)"
        return folder.name, why
    stem = _QUANT_SUFFIX_RE.sub("", name) or name
    return stem, f"sample '{stem}' from the file name '{name}'"


def _quant_facts(layout: _QuantLayout, n_rows: int, ids: Sequence[str], prefixes: Mapping[str, str],
                 version: str = "") -> list[Fact]:
    what = "genes" if layout.level == "gene" else "transcripts"
    facts = [Fact(name="quantifier", value=layout.quantifier,
                  evidence=f"{layout.quantifier} column layout" + (f" ({version})" if version else "")),
             Fact(name="quant_level", value=layout.level, evidence=f"one row per {what[:-1]}"),
             Fact(name=f"n_{what}", value=n_rows, evidence=count_noun(n_rows, "row"))]
    if layout.level == "transcript":
        org = organism_fact(ids[:2000], prefixes, "transcript ids", transcripts=True)
    else:
        org = organism_fact(ids[:2000], prefixes, "gene ids")
    if org:
        facts.append(org)
    versioned = sum(bool(re.search(r"\.\d+$", i.split("|", 1)[0])) for i in ids[:2000])
    if versioned >= 0.9 * max(1, min(len(ids), 2000)):
        facts.append(Fact(name="versioned_ids", value=True, evidence=f"ids carry a version suffix (e.g. {ids[0]!r})"))
    return facts


def quant_table(src: Source, layout: _QuantLayout, names: list[str], cols: list[Column], evidence: list[str],
                comments: Sequence[str], prefixes: Mapping[str, str]) -> SniffedFile:
    """A quantifier's per-sample table (quant.sf, abundance.tsv, *.results): one sample's estimates."""
    version = next((c.lstrip("# ").strip() for c in comments if re.search(r"sailfish|salmon", c, re.I)), "")
    if layout.quantifier == "salmon" and re.search("sailfish", " ".join(comments), re.I):
        layout = dataclasses.replace(layout, quantifier="sailfish")
    bad = [c.name for c in cols[1:len(layout.columns)] if not c.numeric and c.name.lower() not in ("gene_id",
                                                                                                 "transcript_id(s)")]
    if bad:
        raise unreadable(src.shown, f"{layout.quantifier} output whose column(s) {quote_list(bad)} are not numeric",
                         ["give the quantifier's output file unchanged"], expected=f"{layout.quantifier} output")
    sample, why = _quant_sample(src.path)
    level = "gene-level" if layout.level == "gene" else "transcript-level"
    evidence = evidence + [f"{layout.quantifier} {level} output: columns {quote_list(names[:len(layout.columns)], 7)}",
                           why]
    facts = _quant_facts(layout, len(cols[0].values), cols[0].values, prefixes, version=version)
    return SniffedFile(path=src.shown, datatype="transcript_quantification", format=layout.format,
                       evidence=tuple(evidence), facts=tuple(facts + compressed_fact(src)), sample=sample)


_TX_HEADERS = frozenset({"txname", "tx_name", "tx_id", "txid", "transcript_id", "transcriptid", "transcript",
                         "transcript_name", "ensembl_transcript_id", "transcript_stable_id", "target_id", "tx",
                         "transcripts", "name"})
_TX2GENE_GENE_HEADERS = GENE_HEADERS | {"geneid", "gene_stable_id", "gene", "genes"}


# what a transcript id adds to its gene's id (AT1G01010.1, FBgn-RA style CG1234-RA, g1.t1)
_TX_SUFFIX_RE = re.compile(r"^(?:\.\d+|-R[A-Z]{1,2}|\.t\d+|-T\d+)$")


def _transcript_of(tx: str, gene: str) -> bool:
    """`tx` reads as a transcript id: a known transcript id form, or the gene id plus a suffix (AT1G01010.1)."""
    base = tx.split("|", 1)[0]
    return bool(TX_ID_RE.match(base)) or (gene != "" and base.startswith(gene)
                                          and bool(_TX_SUFFIX_RE.match(base[len(gene):])))


def tx2gene_table(src: Source, rows: list[list[str]], fmt: str, prefixes: Mapping[str, str],
                  evidence: list[str]) -> SniffedFile | None:
    """A tximport tx2gene table: transcript ids, then the gene of each (with or without a header row)."""
    if not 2 <= len(rows[0]) <= 4:
        return None
    first = [norm_header(c) for c in rows[0]]
    if any(n in SAMPLE_COLUMNS[:-2] or n in CONDITION_COLUMNS for n in first):
        return None
    named = first[0] in _TX_HEADERS and first[1] in _TX2GENE_GENE_HEADERS
    data = rows[1:] if named or not _transcript_of(rows[0][0], rows[0][1]) else rows
    if len(data) < 1:
        return None
    txs = [r[0] for r in data]
    genes = [r[1] for r in data]
    fits = sum(_transcript_of(t, g) for t, g in zip(txs, genes)) / len(data)
    gene_ns, share = id_namespace(genes[:2000], prefixes)
    if fits < 0.9 or gene_ns == "unknown" and not named:
        return None
    distinct_tx, distinct_genes = len(set(txs)), len(set(genes))
    if distinct_tx < 0.95 * len(txs) or distinct_genes > distinct_tx:
        return None  # not one row per transcript, or not many transcripts to one gene
    header_note = f"header {quote_list(rows[0][:2])}" if data is not rows else "no header row"
    versioned = sum(bool(re.search(r"\.\d+$", t)) for t in txs[:2000]) >= 0.9 * min(len(txs), 2000)
    facts = [Fact(name="n_transcripts", value=distinct_tx, evidence=count_noun(distinct_tx, "distinct transcript id")),
             Fact(name="n_genes", value=distinct_genes, evidence=count_noun(distinct_genes, "distinct gene id")),
             Fact(name="id_namespace", value=gene_ns, evidence=f"gene column like {quote_list(genes, 3)}"),
             Fact(name="versioned_ids", value=versioned,
                  evidence=f"transcript ids like {quote_list(txs, 2)}" + (" carry a version" if versioned else ""))]
    org = organism_fact(genes[:2000], prefixes, "gene ids") or organism_fact(txs[:2000], prefixes,
                                                                               "transcript ids", transcripts=True)
    if org:
        facts.append(org)
    evidence = evidence + [f"transcript-to-gene map (tximport tx2gene): {header_note}, "
                           f"{count_noun(distinct_tx, 'transcript')} "
                           f"of {count_noun(distinct_genes, 'gene')}, e.g. {txs[0]} -> {genes[0]}"]
    return SniffedFile(path=src.shown, datatype="transcript_gene_map", format="tx2gene", evidence=tuple(evidence),
                       facts=tuple(facts + compressed_fact(src)))


# --------------------------------------------------------------------------- registry entries

_QUANT_FORMATS = ("salmon_quant", "kallisto_quant", "rsem_quant")


def _read_quant_folder(folder: Folder, ctx: Context) -> tuple[SniffedFile, Notes] | None:
    found = _quant_dir(folder.shown, folder.path, folder.entries, ctx)
    return None if found is None else (found, Notes())


def _read_quant_parent(folder: Folder, ctx: Context) -> tuple[SniffedFile, Notes] | None:
    per_sample = _quant_parent(folder.shown, folder.path, folder.entries, ctx)
    return (per_sample[0], Notes(expanded=per_sample)) if per_sample else None


# Quantifier tables and kallisto's HDF5 are read by the table and HDF5 readers (tables.py,
# single_cell.py), which hand them to this module once their columns or groups say so.
QUANT_FOLDER = FolderSniffer("quantifier output folder", _QUANT_FORMATS, ("transcript_quantification",),
                             _read_quant_folder)
QUANT_PARENT = FolderSniffer("folder of per-sample quantifier folders", _QUANT_FORMATS,
                             ("transcript_quantification",), _read_quant_parent)
