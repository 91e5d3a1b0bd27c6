"""The on-disk cache: pickles of what bioplan builds from the knowledge, one file per key.

A key covers everything the cached object is built from: the knowledge files (and templates) and
the source of the code that turns them into the object. Editing `knowledge/models.py` or a
semantic check therefore misses the cache exactly like editing a YAML file, and never serves a
pickle built by older code. Writes are atomic (a temporary file, then a rename), and a cache that
cannot be read or written only costs time: a read-only home must not stop a compile.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, cast

from bioplan import __version__

try:  # the C unpickler alone: `pickle`, the module around it, is ~0.8 ms of importing that a read does not need
    from _pickle import load as _unpickle
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    from pickle import load as _unpickle


def _builtin_sha256() -> Callable[..., Any]:
    """The interpreter's own SHA-256 (`_sha256`; `_sha2` from Python 3.12): hashlib's digests without
    loading OpenSSL, whose import is ~4 ms of every CLI call; hashlib's where neither is built in."""
    for name in ("_sha256", "_sha2"):
        try:
            return cast(Callable[..., Any], importlib.import_module(name).sha256)
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256 as openssl_sha256  # pragma: no cover

    return openssl_sha256  # pragma: no cover


sha256 = _builtin_sha256()

CACHE_DIR_ENV = "BIOPLAN_CACHE_DIR"

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


def cache_dir() -> Path:
    """`$BIOPLAN_CACHE_DIR/bioplan`, else the XDG cache folder's (`~/.cache/bioplan`)."""
    base = os.environ.get(CACHE_DIR_ENV) or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bioplan"


@cache
def source_fingerprint(modules: tuple[str, ...]) -> str:
    """sha256 over bioplan's version and the source files of `modules` (located, not imported)."""
    h = sha256(__version__.encode())
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ImportError(f"no source for module {name!r}")  # a misspelt name in a cache key
        h.update(name.encode() + b"\0" + Path(spec.origin).read_bytes())
    return h.hexdigest()


def content_key(parts: Iterable[bytes]) -> str:
    """sha256 over `parts`, each length-prefixed so that no two sequences of parts share a key."""
    h = sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def cache_file(kind: str, key: str) -> Path:
    return cache_dir() / f"{kind}-{key[:32]}.pickle"


def _only_ours(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else. Unpickling runs code: a pickle someone else
    could have written (a cache folder shared through BIOPLAN_CACHE_DIR or XDG_CACHE_HOME, a group- or
    world-writable one) would run their code as this user, so it is rebuilt instead."""
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def read(kind: str, key: str, expected: type[T]) -> T | None:
    """The object cached under (kind, key), or None when absent, unreadable, of another type, or in a
    file or folder another user could have written."""
    path = cache_file(kind, key)
    try:
        if not _only_ours(os.stat(path.parent)):
            return None
        with path.open("rb") as fh:
            if not _only_ours(os.fstat(fh.fileno())):
                return None
            value = _unpickle(fh)
    except Exception:  # absent, truncated, or pickled by code that no longer exists: rebuilt
        return None
    return value if isinstance(value, expected) else None


def write(kind: str, key: str, value: object) -> None:
    """Store `value` under (kind, key) atomically; an unwritable cache directory is not an error."""
    import pickle  # only a cache miss writes

    path = cache_file(kind, key)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{kind}-")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass


class Memo(dict[K, V]):
    """A per-process memo of at most `maximum` answers: emptied when full (`oldest_first`: its oldest answer
    dropped instead), so a long process (the eval, the tests' many knowledge bases) never grows without end.
    A dict, so reads are the dict's own (`get`, `in`, `[]`: no call in the hot paths); `keep` stores."""

    __slots__ = ("maximum", "oldest_first")

    def __init__(self, maximum: int, *, oldest_first: bool = False) -> None:
        super().__init__()
        self.maximum, self.oldest_first = maximum, oldest_first

    def keep(self, key: K, value: V) -> V:
        """`value` stored under `key` (room made first when the memo is full), and returned."""
        if len(self) >= self.maximum:
            if self.oldest_first:
                while len(self) >= self.maximum:
                    self.pop(next(iter(self)))
            else:
                self.clear()
        self[key] = value
        return value
