"""The case files (evaluate/cases.py) and the emitted config read back for config/README.md
(codegen/config_doc.py) are parsed by PyYAML's C loader (libyaml) where PyYAML has it: a third of the
CPU of the pure-Python loader, paid by `bioplan eval`, every compile and the tests. The C loader must
give the values the pure-Python one gives on what bioplan ships and emits."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import yaml

from bioplan.codegen import config_doc
from bioplan.evaluate import cases

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))


@pytest.mark.parametrize("module, loader, function", [(cases, "CASE_LOADER", "load_cases"),
                                                      (config_doc, "CONFIG_LOADER", "config_keys")])
def test_the_c_loader_is_used_where_pyyaml_has_it(module, loader, function):
    assert getattr(module, loader) is (yaml.CSafeLoader if LIBYAML else yaml.SafeLoader)
    source = inspect.getsource(getattr(module, function))
    assert f"Loader={loader}" in source
    assert "safe_load(" not in source, f"{function} parses with the pure-Python loader again"


def _spread(path: Path, every: int) -> str:
    """The file's head (fixtures, input sets) and every `every`-th case: the pure-Python loader takes
    a third of a second per 60 kB, so the comparison reads a spread of the cases, not all of them."""
    text = path.read_text(encoding="utf-8")
    head, sep, body = text.partition("\ncases:\n")
    items = re.split(r"(?m)^(?=- id: |  - id: )", body)
    return head + sep + "".join(items[i] for i in range(1, len(items), every))


@pytest.mark.skipif(not LIBYAML, reason="PyYAML built without libyaml: both loaders are the pure-Python one")
@pytest.mark.parametrize("path, every", [(cases.DEV_SET, 40), (cases.FROM_OTHERS, 40)], ids=["dev_set", "from_others"])
def test_case_files_read_the_same_with_either_loader(path, every):
    text = _spread(path, every)
    c_value = yaml.load(text, Loader=yaml.CSafeLoader)
    assert len(c_value["cases"]) >= 8
    assert c_value == yaml.load(text, Loader=yaml.SafeLoader)


@pytest.mark.skipif(not LIBYAML, reason="PyYAML built without libyaml: both loaders are the pure-Python one")
def test_emitted_configs_read_the_same_with_either_loader():
    configs = sorted(GOLDEN.glob("*/config/config.yaml"))
    assert configs, "no golden config/config.yaml"
    for path in configs:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=yaml.CSafeLoader) == yaml.load(text, Loader=yaml.SafeLoader), path
