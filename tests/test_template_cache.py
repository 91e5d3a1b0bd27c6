"""Compiled templates kept on disk (bioplan.codegen.template_cache): what a later process renders
from the cache is what it would have compiled itself; an edited template is compiled afresh; a
damaged or unwritable cache only costs time."""

from __future__ import annotations

import jinja2
import pytest

from bioplan.codegen import escape
from bioplan.codegen.template_cache import TemplateBytecodeCache, template_cache_dir


def _environment(templates, cache) -> jinja2.Environment:
    env = escape.environment(jinja2.FileSystemLoader(str(templates)))
    env.bytecode_cache = TemplateBytecodeCache(cache)
    return env


@pytest.fixture
def templates(tmp_path):
    root = tmp_path / "templates"
    root.mkdir()
    (root / "rule.j2").write_text("rule {{ name }}:\n    shell: {{ cmd | shell }}\n", encoding="utf-8")
    return root


def test_a_second_environment_renders_from_the_cache_what_it_would_compile(tmp_path, templates):
    cache = tmp_path / "cache"
    first = _environment(templates, cache).get_template("rule.j2").render(name="a", cmd="echo 'x y'")
    assert len(list(cache.glob("*.jinja"))) == 1
    reread = _environment(templates, cache)
    compiled = []
    reread.compile = lambda *a, **k: compiled.append(a) or jinja2.Environment.compile(reread, *a, **k)
    assert reread.get_template("rule.j2").render(name="a", cmd="echo 'x y'") == first
    assert compiled == []  # read back, not compiled
    uncached = escape.environment(jinja2.FileSystemLoader(str(templates)))
    assert uncached.get_template("rule.j2").render(name="a", cmd="echo 'x y'") == first


def test_an_edited_template_is_compiled_afresh(tmp_path, templates):
    cache = tmp_path / "cache"
    assert _environment(templates, cache).get_template("rule.j2").render(name="a", cmd="x").startswith("rule a:")
    (templates / "rule.j2").write_text("checkpoint {{ name }}:\n", encoding="utf-8")
    assert _environment(templates, cache).get_template("rule.j2").render(name="a") == "checkpoint a:\n"


def test_a_damaged_cache_file_is_ignored(tmp_path, templates):
    cache = tmp_path / "cache"
    _environment(templates, cache).get_template("rule.j2")
    (entry,) = cache.glob("*.jinja")
    entry.write_bytes(entry.read_bytes()[:40])  # truncated inside the marshalled code
    assert _environment(templates, cache).get_template("rule.j2").render(name="b", cmd="x") == "rule b:\n    shell: x\n"


def test_an_unwritable_cache_folder_is_not_an_error(tmp_path, templates, monkeypatch):
    from bioplan.codegen import template_cache

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")  # as a read-only folder answers (root is never refused)

    monkeypatch.setattr(template_cache.tempfile, "mkstemp", refuse)
    cache = tmp_path / "cache"
    assert _environment(templates, cache).get_template("rule.j2").render(name="c", cmd="x").startswith("rule c:")
    assert list(cache.iterdir()) == []


def test_a_cache_folder_that_cannot_be_made_is_not_an_error(tmp_path, templates):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = _environment(templates, blocker / "cache")  # mkdir fails: a file is in the way
    assert env.get_template("rule.j2").render(name="d", cmd="x").startswith("rule d:")


def test_the_cache_folder_follows_the_environments_code(monkeypatch, tmp_path):
    """Jinja checks a template's source, not the environment it was compiled for: the folder's key
    covers the module that builds that environment (its filters, finalize, options)."""
    from bioplan import cache

    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path))
    here = template_cache_dir()
    assert here.parent == tmp_path / "bioplan" and here.name.startswith("templates-")
    cache.source_fingerprint.cache_clear()
    monkeypatch.setattr(cache, "__version__", "0+other")  # a different source fingerprint
    try:
        assert template_cache_dir() != here
    finally:
        cache.source_fingerprint.cache_clear()
