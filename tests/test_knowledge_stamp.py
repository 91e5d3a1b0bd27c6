"""The knowledge key remembered under the files' stat data (knowledge/load.py `_stamp`): an unchanged
knowledge base is not read again, any write to a knowledge file gives the key a fresh hash, and a file
written in the last seconds is never remembered (its stat data may not change on the next write)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bioplan import cache
from bioplan.knowledge import load
from conftest import ROOT


@pytest.fixture
def copy(tmp_path, monkeypatch):
    """A copy of the ontology and motifs, its own cache folder; (files, templates)."""
    shutil.copytree(ROOT / "ontology", tmp_path / "data" / "ontology")
    shutil.copytree(ROOT / "motifs", tmp_path / "data" / "motifs")
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    return load.knowledge_files([tmp_path / "data"]), ROOT / "templates"


def _stamps(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "bioplan").glob("stamp-*.pickle"))


def test_an_unchanged_knowledge_base_is_not_read_again(copy, tmp_path, monkeypatch):
    files, templates = copy
    monkeypatch.setattr(load, "_SETTLED_NS", 0)
    digest = load.content_hash(files, templates)
    assert len(_stamps(tmp_path)) == 1

    def unread(self):
        raise AssertionError(f"{self} read again")

    monkeypatch.setattr(Path, "read_bytes", unread)
    assert load.content_hash(files, templates) == digest


def test_a_write_gives_a_fresh_hash_even_with_size_and_mtime_unchanged(copy, tmp_path, monkeypatch):
    files, templates = copy
    monkeypatch.setattr(load, "_SETTLED_NS", 0)
    before = load.content_hash(files, templates)
    path = next(p for kind, p in files if kind == "tool")
    st = os.stat(path)
    text = path.read_bytes()
    path.write_bytes(text.replace(b"a", b"b", 1) if b"a" in text else text + b"#")  # one byte changed
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime set back; the change time cannot be
    after = load.content_hash(files, templates)
    assert after != before
    monkeypatch.setattr(load, "_stamp", lambda *a: None)  # the same key read from the bytes
    assert load.content_hash(files, templates) == after


def test_a_file_written_in_the_last_seconds_is_not_remembered(copy, tmp_path):
    files, templates = copy  # copied just now
    digest = load.content_hash(files, templates)
    assert _stamps(tmp_path) == []
    assert load.content_hash(files, templates) == digest
