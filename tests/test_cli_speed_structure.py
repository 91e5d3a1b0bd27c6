"""What keeps `bioplan plan` and `bioplan compile` fast (issue 10), checked by structure, not by
timing (speed itself is measured by benchmarks/run.py):

- `bioplan plan` with a warm knowledge cache imports none of what only compiling, validating the
  knowledge or the pre-check needs (Jinja, Snakemake, snakefmt, RO-Crate, PyYAML, jsonschema, ...);
- `plan` and `compile` run with the one-shot garbage-collector thresholds and restore the caller's,
  and the interpreter's collections at exit skip what is still alive; run as the whole process, the
  command's end collects nothing (what it allocated is frozen before the thresholds come back);
- the sniffer registry imports a reader's module when a file first reaches it: planning the bulk
  example (count matrix, sample sheet, gene sets, id map) imports no reads, single-cell or VCF reader.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from bioplan import cli
from bioplan.compile import plan_request
from conftest import example_inputs, example_request

# Only the compile, the knowledge's validation (cache miss) or the pre-check need these.
NOT_ON_THE_PLAN_PATH = ("jinja2", "snakemake", "snakefmt", "black", "rocrate", "requests", "yaml", "jsonschema",
                        "edam_ontology", "pandas", "numpy", "h5py")

_IMPORTED_BY_PLAN = """\
import atexit, gc, runpy, sys
import bioplan.compile
# registered first, so it runs last: after bioplan's own exit handlers
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count(), file=sys.stderr))
# the collections that start once the plan is made, until the command line returns
planned, after = [], []
plan_request = bioplan.compile.plan_request
def record(*args, **kwargs):
    result = plan_request(*args, **kwargs)
    planned.append(True)
    return result
bioplan.compile.plan_request = record
gc.callbacks.append(lambda phase, info: after.append(info["generation"]) if planned and phase == "start" else None)
sys.argv = ["bioplan", "plan", *sys.argv[1:]]
try:
    runpy.run_module("bioplan.cli", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
gc.callbacks.clear()
seen = sorted({m.split(".")[0] for m in sys.modules})  # before this probe imports json
import json
print(json.dumps({"planned": planned, "collections": after}), file=sys.stderr)
loader = sys.modules.get("pydantic.plugin._loader")
print("plugins scanned:", loader is not None and loader._plugins is not None, file=sys.stderr)
print(json.dumps(seen + sorted(m for m in sys.modules if m.startswith("bioplan.codegen."))), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def warm_cache(workspace, knowledge) -> None:
    """The run's cache (BIOPLAN_CACHE_DIR, which the probes' interpreters inherit) holds the knowledge, the
    planning and lexicon indexes: this process loaded the knowledge and plans the bulk example, as a first
    `bioplan plan` would (a fresh interpreter filling it cost ~0.9 CPU-s more)."""
    plan_request(example_request("bulk_de"), example_inputs(workspace, "bulk_de"), knowledge)


def test_plan_with_a_warm_cache_imports_nothing_only_compile_needs(workspace, warm_cache):
    data = workspace / "data" / "bulk_de"
    args = ["mouse raw counts: differential expression, then GO enrichment",
            "-i", str(data / "counts.csv"), "-i", str(data / "samples.tsv")]
    run = subprocess.run([sys.executable, "-c", _IMPORTED_BY_PLAN, *args], capture_output=True, text=True,
                         timeout=300)  # warm_cache filled the cache
    assert run.returncode == 0, run.stderr
    imported = set(json.loads(run.stderr.strip().splitlines()[-2]))
    # run as the whole process, the command's end restores the thresholds without collecting all it
    # allocated (~20-30 ms of a plan): that young generation is frozen first (cli._few_collections);
    # with the thresholds restored over it, one collection ([0]) starts here
    collected = json.loads(run.stderr.strip().splitlines()[-4])
    assert collected == {"planned": [True], "collections": []}, collected
    assert "bioplan" in imported and "click" in imported  # the probe saw the run's modules
    assert imported.isdisjoint(NOT_ON_THE_PLAN_PATH), sorted(imported & set(NOT_ON_THE_PLAN_PATH))
    # `-i` goes straight to the short options: no NoSuchOption, whose constructor imports difflib
    assert "difflib" not in imported
    # the cache keys hash with the interpreter's own SHA-256 (bioplan.cache.sha256) and an unchanged
    # knowledge base is not hashed again (knowledge.load._stamp): OpenSSL's hashlib is not loaded (~4 ms)
    assert "hashlib" not in imported and "_hashlib" not in imported
    # json is imported when a command prints JSON (cli._dumps), not for the text report (~1.5 ms)
    assert "json" not in imported
    # the caches are read by the C unpickler alone (bioplan.cache); only a compile locks its output
    assert "pickle" not in imported and "fcntl" not in imported
    # the targets' names come from bioplan.codegen; no generator code is loaded (codegen/generator.py)
    assert "bioplan.codegen.generator" not in imported
    # the interpreter's last collections skip what is alive at exit (cli._no_final_collections)
    frozen = int(run.stderr.strip().splitlines()[-1].removeprefix("frozen at exit: "))
    assert frozen > 0  # 0 without the freeze
    # bioplan's models take no pydantic plugins: no scan of every installed distribution's entry points
    assert run.stderr.strip().splitlines()[-3] == "plugins scanned: False"


def test_plan_and_compile_collect_rarely_and_restore_the_thresholds(monkeypatch, tmp_path):
    seen = []

    def record(*args, **kwargs):
        seen.append(gc.get_threshold())
        raise cli.BioplanError("stop here")  # the threshold is what this test reads

    import bioplan.compile

    monkeypatch.setattr(bioplan.compile, "plan_request", record)
    monkeypatch.setattr(bioplan.compile, "compile_request", record)
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    runner = CliRunner()
    runner.invoke(cli.main, ["plan", "x"])
    runner.invoke(cli.main, ["compile", "x", "-o", str(tmp_path / "wf" / "Snakefile"), "--no-validate"])
    assert seen == [cli._ONE_SHOT_GC_THRESHOLDS] * 2
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen  # in-process callers' objects stay collectable


def test_every_step_of_compile_and_plan_says_what_it_does_when_it_is_slow(workspace, tmp_path, monkeypatch):
    """Any step over SLOW_AFTER_SECONDS prints a line on stderr; here every step counts as slow. The
    pre-check's step is announced around the call; the call itself is recorded, not run (a `snakemake -n`
    child, ~1.8 CPU-s: the compile tests run it)."""
    from bioplan import progress
    from bioplan.compile import PLANNING
    from bioplan.validate import snakemake_precheck

    prechecked = []
    monkeypatch.setattr(progress, "SLOW_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(snakemake_precheck, "precheck",
                        lambda staged, *_: prechecked.append(any(staged.rglob("Snakefile"))))
    data = workspace / "data" / "bulk_de"
    args = ["mouse raw counts: differential expression with a volcano plot", "-i", str(data / "counts.csv"),
            "-i", str(data / "samples.tsv")]
    runner = CliRunner()
    planned = runner.invoke(cli.main, ["plan", *args])
    assert planned.exit_code == 0, planned.output
    assert f"bioplan: {PLANNING} ...\nbioplan: {PLANNING}: done in" in planned.stderr
    compiled = runner.invoke(cli.main, ["compile", *args, "-o", str(tmp_path / "wf" / "Snakefile")])
    assert compiled.exit_code == 0, compiled.output
    steps = [line.split(" ...")[0] for line in compiled.stderr.splitlines() if line.endswith(" ...")]
    assert steps == [f"bioplan: {PLANNING}", "bioplan: writing the workflow for plan 1 (rendering and formatting "
                     "its files)", "bioplan: checking the emitted workflow with snakemake -n"], compiled.stderr
    assert prechecked == [True]  # once, on the staged tree
    quiet = runner.invoke(cli.main, ["compile", *args, "-o", str(tmp_path / "wf2" / "Snakefile"), "--json",
                                     "--no-validate"])
    assert quiet.exit_code == 0 and "bioplan:" not in quiet.stderr  # --json: JSON only


# sniffer families a plan of count matrices and tables never reaches (request/sniffers/registry.py)
NOT_FOR_A_COUNT_MATRIX = ("sequences", "single_cell", "cell_tables", "variants")

_SNIFFERS_IMPORTED_BY_PLAN = """\
import json, sys
from click.testing import CliRunner
from bioplan.cli import main
result = CliRunner().invoke(main, ["plan", *sys.argv[1:]])
from bioplan.request import parse, text
from bioplan.knowledge import words
wide = [parse._cjk_runs, parse._zh_list_comma, text._surrogate, words.cjk_pattern]
print(json.dumps({"exit": result.exit_code, "output": result.output[-2000:],
                  "modules": sorted(m for m in sys.modules if m.startswith("bioplan.request.sniffers.")),
                  "catalog": "bioplan.knowledge.references" in sys.modules,
                  "wide_ranges_compiled": [f.__name__ for f in wide if f.cache_info().currsize]}))
"""


def test_planning_the_bulk_example_imports_no_reads_single_cell_or_variant_reader(workspace, warm_cache):
    inputs = sum((["-i", p] for p in example_inputs(workspace, "bulk_de")), [])
    # a fresh interpreter: this one has imported every reader already
    done = subprocess.run([sys.executable, "-c", _SNIFFERS_IMPORTED_BY_PLAN, example_request("bulk_de"), *inputs],
                          capture_output=True, text=True, timeout=300, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["exit"] == 0, found["output"]
    modules = {m.rsplit(".", 1)[-1] for m in found["modules"]}
    assert "tables" in modules  # the count matrix was read, by the table reader
    assert modules.isdisjoint(NOT_FOR_A_COUNT_MATRIX), sorted(modules & set(NOT_FOR_A_COUNT_MATRIX))
    # an English request compiles no CJK range (its lexicon patterns are built from cached programs),
    # nor the surrogates'
    assert found["wide_ranges_compiled"] == []
    # no genome build named or found in the inputs: the references catalog is not imported
    assert found["catalog"] is False


def test_short_options_parse_as_click_parses_them_without_a_failed_long_match(monkeypatch):
    import click.exceptions
    from click.parser import _OptionParser

    raised = []
    init = click.exceptions.NoSuchOption.__init__
    monkeypatch.setattr(click.exceptions.NoSuchOption, "__init__",
                        lambda self, name, *a, **k: raised.append(name) or init(self, name, *a, **k))
    argvs = [["q", "-i", "a.csv", "-ib.tsv", "--input", "c", "--input=d", "-i=e", "--json", "--top", "2"],
             ["--emit=pddl", "-i", "a", "q", "--", "-i"]]
    for argv in argvs:
        ctx = click.Context(cli.plan)
        ours = cli.plan.make_parser(ctx)
        theirs = _OptionParser(ctx)
        for param in cli.plan.get_params(ctx):
            param.add_to_parser(theirs, ctx)
        assert type(ours) is not _OptionParser
        raised.clear()
        got = ours.parse_args(list(argv))
        assert raised == []  # 4 raised (and caught) by click's own parser for the first: one per `-i`
        assert got == theirs.parse_args(list(argv))
    # what no option matches is refused as click refuses it, close matches and all
    for argv in (["-x"], ["--inptu", "a"], ["-jq"]):
        errors = []
        for parser in (cli.plan.make_parser(click.Context(cli.plan)), _OptionParser(click.Context(cli.plan))):
            if type(parser) is _OptionParser:
                for param in cli.plan.get_params(parser.ctx):
                    param.add_to_parser(parser, parser.ctx)
            try:
                parser.parse_args(list(argv))
            except click.exceptions.NoSuchOption as exc:
                errors.append(exc.format_message())
        assert len(errors) == 2 and errors[0] == errors[1], errors


def test_the_cached_lexicon_index_holds_its_aliases_as_plain_tuples():
    import pickle

    from bioplan.request import lexicon

    # a tuple of its fields: no attribute dict for each of the index's ~5,000 aliases to unpickle
    term = lexicon.Term("tool", "star", "star aligner", 12.0)
    assert isinstance(term, tuple) and not hasattr(term, "__dict__")
    assert (term.kind, term.id, term.alias, term.weight) == tuple(term)
    # pickled as the class and its field values: no field names, no state dict
    data = pickle.dumps(term, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(data) == term and b"alias" not in data and b"weight" not in data
    # and the index builds its aliases as these (the disk cache pickles what it built)
    assert lexicon._build_terms.__annotations__["return"] == "tuple[Term, ...]"
    assert lexicon.LexiconIndex.__annotations__["terms"] == "tuple[Term, ...]"


def test_an_id_column_is_read_once_per_namespace_until_one_fits(monkeypatch):
    import itertools
    import random

    from bioplan.request.sniffers import base

    def answer_reading_every_namespace(values, prefixes):  # the answer before the early return
        vals = [v for v in values if v]
        if not vals:
            return "unknown", 0.0
        find = base._prefix_finder(prefixes)
        shares = {"ensembl": sum(bool(base._ENSEMBL_GENE_RE.match(v)) or find(v) is not None for v in vals) / len(vals),
                  "entrez": sum(bool(base._ENTREZ_RE.match(v)) for v in vals) / len(vals),
                  "symbol": sum(bool(base._SYMBOL_RE.match(v)) and not v.isdigit() and len(v) <= 40
                                for v in vals) / len(vals)}
        fit = [name for name in shares if shares[name] >= 0.9]
        return (fit[0], shares[fit[0]]) if fit else ("unknown", max(shares.values()))

    prefixes = {"ENSMUSG": "mouse", "FBgn": "fly", "": "entrez"}
    pool = ["ENSMUSG00000001038", "ENSG00000141510.4", "FBgn0000008", "7157", "TP53", "Actb", "", "a b", "12345678901",
            "x" * 41, "ENSMUSG1"]
    rng = random.Random(10)
    columns = [list(c) for n in (1, 2, 3) for c in itertools.product(pool, repeat=n)]
    columns += [[rng.choice(pool[:k]) for _ in range(rng.randint(5, 40))] for k in range(1, 12) for _ in range(30)]
    columns += [[pool[0]] * 9 + [pool[4]], [pool[0]] * 8 + [pool[4]] * 2, [pool[3]] * 9 + ["TP53"]]  # 0.9 and below
    for values in columns:
        assert base.id_namespace(values, prefixes) == answer_reading_every_namespace(values, prefixes), values
    # Ensembl ids: the Entrez and symbol patterns are not run over the column
    ran = []

    class Counted:
        def __init__(self, pattern):
            self.pattern = pattern

        def match(self, value):
            ran.append(value)
            return self.pattern.match(value)

    monkeypatch.setattr(base, "_ENTREZ_RE", Counted(base._ENTREZ_RE))
    monkeypatch.setattr(base, "_SYMBOL_RE", Counted(base._SYMBOL_RE))
    assert base.id_namespace([f"ENSMUSG{i:011d}" for i in range(500)], {}) == ("ensembl", 1.0)
    assert ran == []


def test_is_cjk_answers_as_its_pattern_does():
    from bioplan.knowledge.words import cjk_pattern, is_cjk

    samples = ["", "abc", "\u33ff", "\u3400", "\u9fff", "\ua000", "x\u4e2dy", "，", "\U0001f600", "é", "ＲＮＡ", "数据"]
    for sample in samples:
        assert is_cjk(sample) == bool(cjk_pattern().search(sample)), sample
