"""The on-disk cache (bioplan/cache.py): keys cover the knowledge files and the code that builds
from them, so an edit of the models, the loader, a check or the planning index is a cache miss."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys

import pytest

from bioplan import cache
from bioplan.knowledge.load import template_names
from conftest import ROOT

# prints the knowledge's key and the planning index's key, as a fresh process computes them; then, for each
# module named in argv, appends an edit to its source and prints the keys again (the fingerprints' memo
# cleared: what a process started after the edit computes)
KEYS_SCRIPT = """
import sys
from bioplan import cache
from bioplan.knowledge.load import content_hash, default_roots, knowledge_files
from bioplan.paths import templates_dir
from bioplan.planner.index import cache_key

def keys():
    cache.source_fingerprint.cache_clear()
    digest = content_hash(knowledge_files(default_roots()), templates_dir())
    print(digest, cache_key(digest))

keys()
for module in sys.argv[1:]:
    with open(module, "a") as fh:
        fh.write("\\n# an edit\\n")
    keys()
"""


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the bioplan package that a subprocess imports instead of the checkout's."""
    shutil.copytree(ROOT / "compiler" / "bioplan", tmp_path / "pkg" / "bioplan",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "pkg"


def _keys(package_dir, *edits: str) -> list[tuple[str, str]]:
    """The keys before and after each edit of `edits` (paths under the package), in one process."""
    env = {**os.environ, "PYTHONPATH": str(package_dir), "BIOPLAN_DATA_ROOT": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", KEYS_SCRIPT, *(f"bioplan/{e}" for e in edits)], env=env,
                         capture_output=True, text=True, check=True, cwd=package_dir).stdout.split()
    return [(out[i], out[i + 1]) for i in range(0, len(out), 2)]


def test_editing_the_code_that_builds_the_knowledge_or_its_index_changes_their_keys(package_copy):
    """One copy of the package, each edit on top of the ones before: the index edit first, then each
    module that builds the knowledge. Two processes: the keys are the same in each, and the second reads
    them again after each edit (the source fingerprints' memo cleared, as in a process started after it)."""
    modules = ("knowledge/models.py", "knowledge/checks.py", "knowledge/load.py", "knowledge/words.py")
    [(knowledge_key, index_key)] = _keys(package_copy)
    unedited, *after = _keys(package_copy, "planner/index.py", *modules)
    assert unedited == (knowledge_key, index_key)  # the same in every process
    # an index code edit alone changes only the index key
    edited_knowledge_key, edited_index_key = after[0]
    assert edited_knowledge_key == knowledge_key  # the knowledge pickle stays valid
    assert edited_index_key != index_key
    seen = {knowledge_key}
    for module, (edited, _) in zip(modules, after[1:], strict=True):
        assert edited not in seen, module  # a pickle built by the old code is never read back
        seen.add(edited)


def test_read_returns_what_write_stored_and_nothing_for_a_bad_file(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path))
    assert cache.read("thing", "a" * 64, dict) is None  # absent
    cache.write("thing", "a" * 64, {"x": 1})
    assert cache.read("thing", "a" * 64, dict) == {"x": 1}
    assert cache.read("thing", "a" * 64, list) is None  # another type than asked for
    cache.cache_file("thing", "b" * 64).write_bytes(pickle.dumps({"x": 1})[:5])  # truncated
    assert cache.read("thing", "b" * 64, dict) is None
    assert [p.name for p in (tmp_path / "bioplan").iterdir() if p.name.startswith(".")] == []  # no temporaries


def test_an_unwritable_cache_directory_is_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(blocker))  # bioplan/ cannot be made inside a file
    cache.write("thing", "a" * 64, {"x": 1})
    assert cache.read("thing", "a" * 64, dict) is None


def test_content_key_separates_its_parts():
    assert cache.content_key([b"ab", b"c"]) != cache.content_key([b"a", b"bc"])
    assert cache.content_key([b"ab", b"c"]) == cache.content_key([b"ab", b"c"])


def test_the_references_catalog_is_read_back_from_the_cache_until_its_file_changes(tmp_path, monkeypatch):
    from bioplan.knowledge import references

    shutil.copytree(ROOT / "ontology", tmp_path / "data" / "ontology")
    monkeypatch.setenv("BIOPLAN_DATA_ROOT", str(tmp_path / "data"))
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    references.load_catalog.cache_clear()
    first = references.load_catalog()
    assert len(list((tmp_path / "cache" / "bioplan").glob("references-*.pickle"))) == 1

    def no_parse(*args, **kwargs):
        raise AssertionError("references.yaml parsed although its cached catalog is valid")

    monkeypatch.setattr(references, "_parse_yaml", no_parse)
    references.load_catalog.cache_clear()
    assert references.load_catalog() == first
    monkeypatch.undo()  # parse again: the edited file has another key
    monkeypatch.setenv("BIOPLAN_DATA_ROOT", str(tmp_path / "data"))
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    path = tmp_path / "data" / "ontology" / "references.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("version: 1", "version: 2", 1), encoding="utf-8")
    references.load_catalog.cache_clear()
    assert references.load_catalog().version == 2
    assert len(list((tmp_path / "cache" / "bioplan").glob("references-*.pickle"))) == 2
    references.load_catalog.cache_clear()


def test_the_knowledge_key_follows_which_templates_exist_not_their_text(tmp_path):
    from bioplan.knowledge.load import content_hash, default_roots, knowledge_files

    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates, ignore=shutil.ignore_patterns("__pycache__"))
    files = knowledge_files(default_roots())
    key = content_hash(files, templates)
    script = templates / "scripts" / "check_replicates.py"
    script.write_text(script.read_text() + "\n# an edit the knowledge checks never read\n")
    assert content_hash(files, templates) == key
    (templates / "scripts" / "new_step.py").write_text("")
    assert content_hash(files, templates) != key  # a check may name this script now


def test_the_template_names_in_the_cache_key_are_those_pathlib_lists(tmp_path):
    root = tmp_path / "templates"
    for rel in ("snakemake/b.smk.j2", "snakemake/a.smk.j2", "scripts/x.py", "scripts/__pycache__/x.cpython-311.pyc",
                "nextflow/bin/run.py", "nextflow/main.nf.j2", "a-b/c", "a/b", "z.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    (root / "linked").symlink_to(root / "scripts", target_is_directory=True)  # rglob does not descend into it
    (root / "empty").mkdir()
    by_pathlib = [str(p.relative_to(root)) for p in sorted(root.rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts]
    assert template_names(root) == by_pathlib
    assert "scripts/__pycache__/x.cpython-311.pyc" not in template_names(root)
    assert template_names(tmp_path / "missing") == []
