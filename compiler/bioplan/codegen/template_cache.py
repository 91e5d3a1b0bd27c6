"""Jinja's compiled templates kept on disk between runs, beside bioplan's other caches.

Compiling a template (parsing it and generating Python code) is done by Jinja once per process;
a compile of the bulk example compiled 17 templates, ~70 ms of CPU each time. Jinja can keep the
compiled code instead (a "bytecode cache"): each entry is checked against the template's source
(a checksum) and Jinja's and Python's bytecode format, and recompiled when any differ, so an edited
template is never served stale. What Jinja does not check is the environment the code was
compiled for (filters, `finalize`, options): the cache's folder is therefore keyed by the source of
`bioplan.codegen.escape`, which builds that environment, and by Jinja's version. As with the
knowledge cache, a cache that cannot be read or written only costs time.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import jinja2

from bioplan.cache import cache_dir, content_key, source_fingerprint


def template_cache_dir() -> Path:
    """The folder of compiled templates for this environment's code and this Jinja."""
    key = content_key([source_fingerprint(("bioplan.codegen.escape",)).encode(), jinja2.__version__.encode()])
    return cache_dir() / f"templates-{key[:16]}"


class TemplateBytecodeCache(jinja2.BytecodeCache):
    """One file per template (Jinja's key: the template's name and path), written atomically."""

    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.directory / f"{bucket.key}.jinja"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with self._path(bucket).open("rb") as fh:
                bucket.load_bytecode(fh)  # resets the bucket itself on a stale checksum or format
        except Exception:  # absent, truncated or unreadable: Jinja compiles the template afresh
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    bucket.write_bytecode(fh)
                os.replace(tmp, self._path(bucket))
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:  # a read-only cache folder must not stop a compile
            pass
