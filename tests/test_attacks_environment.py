"""Attacks through bioplan's environment: the on-disk cache is pickles, and unpickling runs code, so
a cache folder another user can write (BIOPLAN_CACHE_DIR or XDG_CACHE_HOME pointing at a shared or
world-writable folder) must never be read. Each test failed before the fix (the planted pickle ran)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from bioplan import cache


class Planted:
    """A pickle that, loaded, creates the canary file (what an attacker's pickle would do)."""

    def __init__(self, canary: Path):
        self.canary = canary

    def __reduce__(self):
        return (Path.touch, (self.canary,))


def _plant(folder: Path, canary: Path, monkeypatch) -> Path:
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(folder))
    path = cache.cache_file("knowledge", "0" * 64)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(Planted(canary)))
    return path


@pytest.mark.parametrize("writable_by", ["folder_world", "folder_group", "file_world"])
def test_a_pickle_others_could_write_is_never_loaded(tmp_path, monkeypatch, writable_by):
    canary = tmp_path / "CANARY"
    path = _plant(tmp_path / "shared", canary, monkeypatch)
    path.chmod(0o600)
    path.parent.chmod(0o700)
    if writable_by == "folder_world":
        path.parent.chmod(0o1777)  # /tmp-like: anyone may add files
    elif writable_by == "folder_group":
        path.parent.chmod(0o770)
    else:
        path.chmod(0o666)
    assert cache.read("knowledge", "0" * 64, object) is None
    assert not canary.exists(), "a pickle another user could have written ran"


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_pickle_owned_by_another_user_is_never_loaded(tmp_path, monkeypatch):
    canary = tmp_path / "CANARY"
    path = _plant(tmp_path / "cache", canary, monkeypatch)
    path.chmod(0o600)
    os.chown(path, 65534, 65534)  # nobody
    assert cache.read("knowledge", "0" * 64, object) is None
    assert not canary.exists()


def test_the_users_own_private_cache_is_still_read(tmp_path, monkeypatch):
    """The control: the same file in a private folder is loaded (so the tests above test the check)."""
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "mine"))
    cache.write("knowledge", "1" * 64, {"a": 1})
    folder = cache.cache_file("knowledge", "1" * 64).parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert cache.read("knowledge", "1" * 64, dict) == {"a": 1}
