"""bioplan.dataclass_code: the CLI runs the methods `dataclasses` writes for bioplan's dataclasses from code
compiled by an earlier run; the classes are the same as `dataclasses` makes them (methods, signatures,
annotations, frozen-ness), another package's dataclasses are not recorded, and unreadable code is compiled
from its text again."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys

import pytest

from bioplan import cache, dataclass_code
from conftest import example_inputs, example_request

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="served on Python 3.11 only")

BODY = """
from __future__ import annotations
import dataclasses
from typing import Optional

@dataclasses.dataclass(frozen=True)
class Frozen:
    name: str
    size: int = 3
    tags: tuple = ()
    note: Optional[str] = dataclasses.field(default=None, compare=False)

@dataclasses.dataclass
class Plain:
    items: list = dataclasses.field(default_factory=list)
    total: float = 0.0
"""


@pytest.fixture
def served(monkeypatch, tmp_path):
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    wrapper = dataclass_code._Served({})
    monkeypatch.setattr(dataclasses, "_create_fn", wrapper.create_fn)
    return wrapper


def _define(module: str) -> dict:
    scope = {"__name__": module}
    sys.modules[module] = type(sys)(module)  # dataclasses reads the module's globals from sys.modules
    sys.modules[module].__dict__.update(scope)
    try:
        exec(compile(BODY, f"<{module}>", "exec"), sys.modules[module].__dict__)
        return sys.modules[module].__dict__
    finally:
        del sys.modules[module]


def _behaviour(ns: dict) -> list:
    frozen, plain = ns["Frozen"], ns["Plain"]
    a, b = frozen("x", tags=(1,)), frozen("x", tags=(1,), note="n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.size = 4
    p = plain()
    p.items.append(1)
    return [repr(a), a == b, hash(a) == hash(b), repr(p), p == plain([1]), plain() == plain(),
            str(inspect.signature(frozen)), str(inspect.signature(plain)),
            {k: str(v) for k, v in frozen.__init__.__annotations__.items()}, frozen.__doc__, plain.__doc__]


def test_served_classes_are_the_classes_dataclasses_makes(served, monkeypatch):
    recorded = _behaviour(_define("bioplan.example_one"))
    assert served.new  # compiled, to record
    served.record()
    again = dataclass_code._Served(cache.read("dataclass-code", dataclass_code._key(), dict))
    monkeypatch.setattr(dataclasses, "_create_fn", again.create_fn)
    assert _behaviour(_define("bioplan.example_one")) == recorded
    assert again.new == {}  # every method from the recorded code
    monkeypatch.undo()
    assert _behaviour(_define("bioplan.example_one")) == recorded  # as `dataclasses` alone makes them


def test_another_packages_dataclasses_are_not_recorded(served):
    _define("somebody_else")
    assert served.new == {}


def test_unreadable_recorded_code_is_compiled_from_its_text(served, monkeypatch):
    recorded = _behaviour(_define("bioplan.example_two"))
    broken = dataclass_code._Served({text: b"not marshal data" for text in served.new})
    monkeypatch.setattr(dataclasses, "_create_fn", broken.create_fn)
    assert _behaviour(_define("bioplan.example_two")) == recorded


@pytest.mark.e2e  # two `bioplan plan` processes, ~1 s
def test_a_second_plan_compiles_none_of_bioplans_dataclass_methods_again(workspace):
    probe = ("import atexit, builtins, runpy, sys\n"
             "texts, compile_ = [], builtins.compile\n"
             "def counting(source, filename, mode, *a, **k):\n"
             "    if filename == '<string>' and isinstance(source, str) and source.startswith('def __create_fn__'):\n"
             "        texts.append(sys._getframe(1).f_locals.get('globals', {}).get('__name__', ''))\n"
             "    return compile_(source, filename, mode, *a, **k)\n"
             "builtins.compile = counting\n"
             "atexit.register(lambda: print(sorted(set(m for m in texts if m.startswith('bioplan.'))),"
             " file=sys.stderr))\n"
             "sys.argv = ['bioplan', 'plan', *sys.argv[1:]]\n"
             "runpy.run_module('bioplan.cli', run_name='__main__')\n")
    args = [example_request("bulk_de"), *sum((["-i", f] for f in example_inputs(workspace, "bulk_de")), [])]
    runs = [subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300)
            for _ in range(2)]  # the first may record (the run's cache folder, shared with other tests)
    assert runs[1].returncode == 0, runs[1].stderr
    assert eval(runs[1].stderr.strip().splitlines()[-1]) == []
