"""Inputs refused before the text readers try them: other compressions and unknown binary data."""

from __future__ import annotations

from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import (
    INPUT_TYPE_HINT,
    RECOGNISED_HINT,
    Context,
    FileSniffer,
    Notes,
    Source,
    looks_binary,
    unreadable,
)

_OTHER_COMPRESSION = (
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip (or an Excel workbook)"),
)


def _compression_of(src: Source) -> str | None:
    return next((what for sig, what in _OTHER_COMPRESSION if src.head.startswith(sig)), None)


def _refuse_compression(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    raise unreadable(src.shown, f"is {_compression_of(src)}-compressed; bioplan reads plain or gzip-compressed files",
                     ["decompress it (or recompress with gzip/bgzip) and give the result"])


def _refuse_binary(src: Source, ctx: Context) -> tuple[SniffedFile, Notes]:
    what = "gzip-compressed binary data" if src.compression else "binary data"
    raise unreadable(src.shown, f"is {what} of a type bioplan does not know", [RECOGNISED_HINT, INPUT_TYPE_HINT])


OTHER_COMPRESSION = FileSniffer("bzip2, xz, zstd or zip data (refused)", (), (),
                                lambda src, ctx: _compression_of(src) is not None, _refuse_compression)
# after the binary formats' readers: what is binary and still unclaimed is refused, the rest is text
BINARY = FileSniffer("binary data of an unknown type (refused)", (), (),
                     lambda src, ctx: looks_binary(src.head), _refuse_binary)
