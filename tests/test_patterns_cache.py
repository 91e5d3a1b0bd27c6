"""bioplan.patterns: the CLI builds the regular expressions of bioplan's code from programs recorded by an
earlier run instead of compiling them again; the pattern is the same as `re`'s, a pattern built from data
or compiled by another package is never recorded, and a program sre refuses falls back to `re`."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bioplan import cache, patterns
from conftest import example_inputs, example_request


@pytest.fixture
def served(monkeypatch, tmp_path):
    """`re`'s compiler wrapped as `serve` wraps it (for this test only), with an empty record."""
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    compiler = sys.modules["re._compiler"]
    wrapper = patterns._Served(compiler.compile, {})
    monkeypatch.setattr(compiler, "compile", wrapper)
    re.purge()
    yield wrapper
    re.purge()


def _run_as(module: str, code: str) -> dict:
    scope = {"__name__": module}
    exec(compile(code, f"<{module}>", "exec"), scope)
    return scope


def test_only_the_patterns_of_bioplans_code_are_recorded(served):
    _run_as("bioplan.example", "import re\nBODY = re.compile(r'(?P<a>x+)y?z', re.IGNORECASE)\n"
                               "def literal(s):\n    return re.search(r'lit[0-9]+eral', s)\n"
                               "def built(w, s):\n    return re.search('(?<!q)' + w + '!', s)\n"
                               "literal('x'); built('wordy', 'x')")
    _run_as("another_package", "import re\nTHEIRS = re.compile(r'theirs[a-c]')")
    recorded = {key[1] for key in served.new}
    assert recorded == {"(?P<a>x+)y?z", "lit[0-9]+eral"}  # not the pattern built from a word, nor theirs


def test_a_recorded_program_builds_the_pattern_re_compiles(served, tmp_path):
    sources = {"(?P<a>x+)y?z": re.IGNORECASE, r"^(?:chr)?(?:\d{1,2}[A-Za-z]?|[XYZW]|MT?)$": re.IGNORECASE,
               r"[\u3400-\u9fff]+|[a-zß-öø-ÿ]+": 0, r"(?s:.*\.yaml)\Z": 0, r"a(?=b)|(?<!c)d\b": re.MULTILINE}
    body = "import re\n" + "".join(f"P{i} = re.compile({p!r}, {int(f)})\n" for i, (p, f) in enumerate(sources.items()))
    _run_as("bioplan.example", body)
    served.record()
    programs = cache.read("patterns", patterns._key(), dict)
    assert set(programs) == {(str, p, int(f)) for p, f in sources.items()}
    re.purge()
    again = patterns._Served(served.compile, programs)
    for p, f in sources.items():
        built = again(p, int(f))
        assert built == served.compile(p, int(f)) and built.groupindex == re.compile(p, f).groupindex
        for text in ("xxz XXY chr1 chrMT 基因 straße a.yaml\nab d", "ab\ncd chrUn Xz"):
            assert [(m.span(), m.groups()) for m in built.finditer(text)] == \
                [(m.span(), m.groups()) for m in re.compile(p, f).finditer(text)]
    assert again.new == {}  # nothing compiled from scratch


def test_a_program_sre_refuses_is_compiled_by_re(served):
    bad = (0, b"\x00\x00\x00\x00", 0, {}, ())
    wrapper = patterns._Served(served.compile, {(str, "ab+c", 0): bad})
    assert wrapper("ab+c", 0) == served.compile("ab+c", 0)


@pytest.mark.e2e  # two `bioplan plan` processes, ~1 s
def test_a_second_plan_compiles_none_of_bioplans_own_patterns_again(workspace):
    probe = ("import atexit, re._compiler, runpy, sys\n"
             "scratch, compile_ = [], re._compiler.compile\n"
             "def counting(p, flags=0):\n"
             "    f = sys._getframe(1)\n"
             "    while f.f_globals.get('__name__', '').partition('.')[0] == 're' or "
             "f.f_globals.get('__name__') == 'bioplan.patterns':\n"
             "        f = f.f_back\n"
             "    own = f.f_code.co_name == '<module>' or p in f.f_code.co_consts\n"
             "    scratch.append((f.f_globals.get('__name__', ''), own))\n"
             "    return compile_(p, flags)\n"
             "re._compiler.compile = counting\n"
             "atexit.register(lambda: print(sorted(set(m for m, own in scratch if own and m.startswith('bioplan.'))),"
             " file=sys.stderr))\n"
             "sys.argv = ['bioplan', 'plan', *sys.argv[1:]]\n"
             "runpy.run_module('bioplan.cli', run_name='__main__')\n")
    args = [example_request("bulk_de"), *sum((["-i", f] for f in example_inputs(workspace, "bulk_de")), [])]
    runs = [subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300)
            for _ in range(2)]  # the first may record (the run's cache folder, shared with other tests)
    assert runs[1].returncode == 0, runs[1].stderr
    assert eval(runs[1].stderr.strip().splitlines()[-1]) == []  # every one built from its program
