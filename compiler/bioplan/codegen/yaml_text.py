"""YAML text of the mappings the generators build from the knowledge (a module's meta.yml, conda
environments, config and sample-sheet schemas), dumped once per process per distinct value.

PyYAML's pure-Python emitter was about a sixth of an emit, and its inputs recur: a tool's meta.yml
and environment are the same in every compile that runs the tool (the two read layouts, both
targets, `bioplan eval`'s cases, the test suite), and a request's config schema the same for both
layouts. `yaml.safe_dump` is a function of the value and the options; the key is the value's repr,
which holds every key in order (the dumps here keep insertion order) and tells str, int, float,
bool, None, list and tuple apart, so a remembered text is the text a new dump would give.
"""

from __future__ import annotations

from typing import Any

import yaml

from bioplan.cache import Memo

_MEMO_SIZE = 20_000
_MEMO: Memo[tuple[str, tuple[tuple[str, Any], ...]], str] = Memo(_MEMO_SIZE)


def safe_dump(value: Any, **options: Any) -> str:
    """`yaml.safe_dump(value, **options)`, remembered per repr of the value and the options."""
    key = (repr(value), tuple(sorted(options.items())))
    text = _MEMO.get(key)
    if text is None:
        text = yaml.safe_dump(value, **options)
        _MEMO.keep(key, text)
    return text
