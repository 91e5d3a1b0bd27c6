"""The suite's own machinery in tests/conftest.py: the pytest-xdist groups (what must share a worker
does: the SLURM cluster's tests, a module's, a named-tool case's) and the guard of the shared
compiled workflows (a test writing into them fails the session), the tmpfs temporary folders and the
caches kept between runs."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

import test_named_tools
from conftest import (
    E2E_DIR,
    ROOT,
    SLURM_GROUP,
    CompiledClasses,
    _integration_groups_first,
    pytest_ignore_collect,
    xdist_group,
)


def _item(nodeid: str, markers: tuple[str, ...] = (), fixtures: tuple[str, ...] = (), module=None,
          params: dict | None = None) -> SimpleNamespace:
    """What xdist_group reads of a collected test."""
    marks = {name: getattr(pytest.mark, name).mark for name in markers}
    return SimpleNamespace(nodeid=nodeid, fixturenames=fixtures, module=module, get_closest_marker=marks.get,
                           callspec=SimpleNamespace(params=params) if params is not None else None)


def test_every_test_of_the_slurm_cluster_shares_one_group():
    marked = _item("tests/test_slurm.py::test_run", markers=("slurm",))
    by_fixture = _item("tests/test_cluster_fit.py::test_pending", fixtures=("slurm_node", "tmp_path"))
    assert xdist_group(marked) == xdist_group(by_fixture) == SLURM_GROUP
    assert xdist_group(_item("tests/test_cluster_fit.py::test_caps", fixtures=("compiled",))) != SLURM_GROUP


def test_a_module_is_one_group_unless_it_splits_itself():
    assert xdist_group(_item("tests/e2e/test_examples_run.py::test_bulk[a]")) == "tests/e2e/test_examples_run.py"
    case = next(iter(test_named_tools.CASES))
    nodeid = "tests/test_named_tools.py::test_x"
    bound = _item(nodeid, module=test_named_tools, params={"case": case})
    checked = _item(nodeid, module=test_named_tools, params={"case": case, "layout": "single"})
    assert xdist_group(bound) == xdist_group(checked) == f"tests/test_named_tools.py:{case}"
    tool, files = next(iter(test_named_tools.GOLDEN_FILES.items()))
    golden = _item(nodeid, module=test_named_tools, params={"tool": tool, "layout": "paired"})
    assert xdist_group(golden) == f"tests/test_named_tools.py:{files.case}"  # with the case it reads
    assert xdist_group(_item(nodeid, module=test_named_tools)) == "tests/test_named_tools.py"


def test_groups_with_an_integration_run_are_handed_out_first_each_in_its_own_order():
    """The SLURM cluster's group first (mostly waiting for jobs), then the other integration groups."""
    items = [_item("tests/test_a.py::fast_1"), _item("tests/test_b.py::fast"), _item("tests/test_a.py::fast_2"),
             _item("tests/test_a.py::run", markers=("e2e",)), _item("tests/test_c.py::cluster", markers=("slurm",))]
    assert [i.nodeid for i in _integration_groups_first(items)] == [
        "tests/test_c.py::cluster", "tests/test_a.py::fast_1", "tests/test_a.py::fast_2", "tests/test_a.py::run",
        "tests/test_b.py::fast"]


def test_a_write_into_a_shared_compiled_workflow_is_found(tmp_path: Path):
    tree = tmp_path / "wf"
    (tree / "config").mkdir(parents=True)
    (tree / "config" / "config.yaml").write_text("a: 1\n")
    classes = CompiledClasses(tmp_path, knowledge=None)
    key = ("bulk_de", "snakemake")
    classes.results[key] = SimpleNamespace(output_dir=tree)  # as __getitem__ records a compile
    classes.fingerprints[key] = {str(p): p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    assert classes.changed() == []
    (tree / "config" / "config.yaml").write_text("a: 2\n")
    (tree / ".snakemake").mkdir()
    (tree / ".snakemake" / "lock").write_text("")
    assert classes.changed() == [str(tree / ".snakemake" / "lock"), str(tree / "config" / "config.yaml")]


@pytest.mark.parametrize(("markexpr", "skipped"), [("not e2e and not slurm", True), ("not e2e", True),
                                                     ("e2e", False), ("", False), ("slow or not slurm", False)])
def test_the_fast_tier_does_not_import_modules_of_integration_runs_only(markexpr, skipped):
    """tests/e2e/ and the modules all of whose tests are integration runs (test_nextflow_run) are left
    uncollected when -m can select no e2e test; mixed modules (test_compile) always collected."""
    config = SimpleNamespace(getoption=lambda name, default=None: markexpr)
    for path in (E2E_DIR, ROOT / "tests" / "test_nextflow_run.py", ROOT / "tests" / "test_wheel.py"):
        assert pytest_ignore_collect(path, config) is (True if skipped else None), (path, markexpr)
    assert pytest_ignore_collect(ROOT / "tests" / "test_compile.py", config) is None


def test_sniff_once_reads_a_file_again_when_the_request_expects_other_data(tmp_path):
    """SniffOnce's memo holds a finding per file AND per context: a FASTA a tree is built from is a
    sequence set, the same FASTA beside a kallisto request a transcriptome; a memo keyed on the file
    alone gave the second compile of one test process the first one's reading (CI: the phylogenetics
    cases' transcripts.fa made the kallisto and RSEM cases fetch a catalog transcriptome)."""
    from bioplan.request.sniffers.base import Context
    from conftest import SniffOnce

    fasta = tmp_path / "transcripts.fa"
    fasta.write_text(">t1\nACGT\n")
    calls: list[tuple] = []

    def guarded(path, ctx):
        calls.append((path, ctx.expected, ctx.inputs))
        return len(calls)

    memo = SniffOnce()
    tree = Context(prefixes={}, expected=({"sequence_set": "tree inference reads it"},), inputs=(str(fasta),))
    quant = Context(prefixes={}, expected=({"transcriptome": "kallisto reads it"},), inputs=(str(fasta),))
    assert memo.sniff(guarded, str(fasta), tree) == 1
    assert memo.sniff(guarded, str(fasta), tree) == 1  # the same context: read once
    assert memo.sniff(guarded, str(fasta), quant) == 2  # another expectation: read again
    beside = Context(prefixes={}, expected=quant.expected, inputs=(str(fasta), str(tmp_path / "genes.gtf")))
    assert memo.sniff(guarded, str(fasta), beside) == 3  # other inputs beside it: read again
    # a reader that consults no field of the context (a FASTQ's) reads the file once, whatever the context
    reads = tmp_path / "a.fastq"
    reads.write_text("@r1\nACGT\n+\nFFFF\n")
    assert memo.sniff(lambda path, ctx: ("reads", path), str(reads), tree) == ("reads", str(reads))
    assert memo.sniff(guarded, str(reads), quant) == ("reads", str(reads)) and len(calls) == 3
    # one that reads a file inside a folder through the context may consult every field: read again when any differs
    inner = Context(prefixes={}, dispatch=lambda path, ctx: "inner", inputs=(str(tmp_path),))
    assert memo.sniff(lambda path, ctx: ctx.sniff(path + "/quant.sf"), str(tmp_path), inner) == "inner"
    assert memo.sniff(guarded, str(tmp_path), inner) == "inner" and len(calls) == 3
    assert memo.sniff(guarded, str(tmp_path), Context(prefixes={"mouse": "ENSMUSG"}, inputs=inner.inputs)) == 4


def test_the_kept_caches_carry_only_snakefmt_and_template_entries_and_never_overwrite(tmp_path: Path):
    """Between runs only the formatter's and Jinja's entries are kept (keyed by all their output depends
    on); the knowledge and its indexes stay each run's own; an entry already present is left as it is."""
    from conftest import _copy_entries, _kept_cache_dir

    run = tmp_path / "pytest-of-someone" / "pytest-7"
    cache = run / "cache" / "bioplan"
    (cache / "templates-abc").mkdir(parents=True)
    (cache / "templates-abc" / "key.jinja").write_bytes(b"code")
    (cache / "snakefmt-1.pickle").write_bytes(b"formatted")
    (cache / "knowledge-1.pickle").write_bytes(b"knowledge")
    kept = _kept_cache_dir(run)
    assert kept == tmp_path / "pytest-of-someone" / "bioplan-kept-cache"
    assert _kept_cache_dir(tmp_path / "given" / "basetemp") is None  # a --basetemp elsewhere keeps nothing
    kept.mkdir()
    (kept / "snakefmt-1.pickle").write_bytes(b"already kept")
    _copy_entries(cache, kept)
    assert sorted(p.name for p in kept.iterdir()) == ["snakefmt-1.pickle", "templates-abc"]
    assert (kept / "snakefmt-1.pickle").read_bytes() == b"already kept"
    assert (kept / "templates-abc" / "key.jinja").read_bytes() == b"code"
    fresh = tmp_path / "next-run" / "bioplan"
    _copy_entries(kept, fresh)  # the next run starts with them
    assert sorted(p.name for p in fresh.iterdir()) == ["snakefmt-1.pickle", "templates-abc"]


def test_the_temporary_folders_go_to_tmpfs_only_when_nothing_else_is_chosen(tmp_path: Path, monkeypatch):
    """pytest's base folder moves to a tmpfs with room unless --basetemp (as xdist gives its workers)
    or PYTEST_DEBUG_TEMPROOT already chose one."""
    from conftest import _temp_in_memory

    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", "restored after the test")
    monkeypatch.delenv("PYTEST_DEBUG_TEMPROOT")
    _temp_in_memory(SimpleNamespace(option=SimpleNamespace(basetemp="/somewhere")), root=tmp_path)
    assert "PYTEST_DEBUG_TEMPROOT" not in os.environ
    _temp_in_memory(SimpleNamespace(option=SimpleNamespace(basetemp=None)), root=tmp_path / "absent")
    assert "PYTEST_DEBUG_TEMPROOT" not in os.environ
    monkeypatch.setattr("conftest.MEMORY_TEMP_ROOM", 0)
    _temp_in_memory(SimpleNamespace(option=SimpleNamespace(basetemp=None)), root=tmp_path)
    assert os.environ["PYTEST_DEBUG_TEMPROOT"] == str(tmp_path)
    monkeypatch.setenv("PYTEST_DEBUG_TEMPROOT", "/chosen")
    _temp_in_memory(SimpleNamespace(option=SimpleNamespace(basetemp=None)), root=tmp_path)
    assert os.environ["PYTEST_DEBUG_TEMPROOT"] == "/chosen"
