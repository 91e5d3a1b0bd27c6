"""Formats the knowledge declares recognisable without code (formats.yaml `sniff`): a file whose
name ends with one of the format's extensions and whose content starts with the declared magic
bytes, or whose first line matches the declared header pattern, is a file of that format holding
the declared datatype. A new input format with a fixed signature needs YAML only."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bioplan.knowledge.models import Format
from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import (
    Context,
    FileSniffer,
    FormatSignature,
    Notes,
    Source,
    compressed_fact,
    compression_evidence,
    unreadable,
)


def signatures_of(formats: Mapping[str, Format]) -> tuple[FormatSignature, ...]:
    """The declared signatures, in the knowledge's order (the first that fits a file wins)."""
    return tuple(
        FormatSignature(format=f.id, label=f.label, datatype=f.sniff.datatype,
                        extensions=tuple(dict.fromkeys(e.lower() for e in f.extensions)),  # .bigWig = .bigwig
                        magic=None if f.sniff.magic is None else f.sniff.magic.encode("latin-1"),
                        header=None if f.sniff.header is None else re.compile(f.sniff.header))
        for f in formats.values() if f.sniff is not None)


def _extension(sig: FormatSignature, src: Source) -> str | None:
    """The extension of `sig` the file's name ends with (before a '.gz' of a gzipped file)."""
    name = src.name.lower()
    if src.compression == "gzip" and name.endswith(".gz") and not any(name.endswith(e) for e in sig.extensions):
        name = name[:-3]
    return next((e for e in sig.extensions if name.endswith(e)), None)


def _sample(sig: FormatSignature, src: Source) -> str | None:
    """The sample a per-sample file's name gives: the name before the format's extension (and '.gz')
    ('ctrl_1.bismark.cov.gz' -> 'ctrl_1' for the extension '.bismark.cov'), as the FASTQ and alignment
    readers name samples; None when nothing is left."""
    ext = _extension(sig, src)
    name = src.name
    if ext is None:
        return None
    if not name.lower().endswith(ext):  # the extension was found before a '.gz'
        name = name[:-3]
    return name[:len(name) - len(ext)] or None


def _fits(sig: FormatSignature, src: Source) -> bool:
    if _extension(sig, src) is None:
        return False
    if sig.magic is not None and not src.head.startswith(sig.magic):
        return False
    return sig.header is None or bool(sig.header.search(src.first_line))


def _matching(src: Source, ctx: Context) -> FormatSignature | None:
    return next((sig for sig in ctx.signatures if _fits(sig, src)), None)


def _read(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    sig = _matching(src, ctx)
    assert sig is not None  # claimed by _matching
    if sig.magic is not None and src.compression:
        # a binary format known by its magic bytes is read in place by its tools (a DIAMOND database, a bigWig)
        raise unreadable(src.shown, f"is a gzip-compressed {sig.label}, which its tools read uncompressed only",
                         [f"decompress it (gunzip -k {src.shown}) and give the uncompressed file"])
    said = []
    if sig.magic is not None:
        said.append(f"starts with {sig.magic!r}")
    if sig.header is not None:
        said.append(f"first line matches {sig.header.pattern!r}")
    evidence = (f"{sig.label}: name ends {_extension(sig, src)} and the content {' and '.join(said)} "
                "(the format's signature in formats.yaml)", *compression_evidence(src))
    return SniffedFile(path=src.shown, datatype=sig.datatype, format=sig.format, evidence=evidence,
                       facts=tuple(compressed_fact(src)), sample=_sample(sig, src)), Notes()


# The formats and datatypes it reports come from the knowledge at run time (Context.signatures).
SIGNATURES = FileSniffer("formats.yaml signatures", (), (), lambda src, ctx: _matching(src, ctx) is not None, _read)
