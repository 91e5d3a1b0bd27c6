"""The methods `dataclasses` writes for bioplan's dataclasses, compiled once per machine instead of once
per process.

For each dataclass, `dataclasses` writes the source of its methods (`__init__`, `__repr__`, `__eq__`,
`__hash__`, and for a frozen one `__setattr__` and `__delattr__`) and compiles it with `exec`: ~0.5 ms of
compiling per class, ~12 ms for the ~25 a `bioplan plan` defines (issue 10). Run as the whole process,
the CLI serves them (`serve`): for a class of one of bioplan's modules, the code object compiled from that
exact source text by an earlier run is used instead of compiling the text again -- what Python's
`__pycache__` does for the modules themselves. The code is cached on disk (`bioplan.cache`, `marshal`ed)
under the Python version and this module's code, keyed by the source text: the same text gives the same
functions. Only the Python this was written against (3.11, whose `dataclasses._create_fn` is replaced
by the same function with the cache) is served; any other runs `dataclasses` unchanged.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import sys
from types import CodeType
from typing import Any

from bioplan import cache as disk_cache

_CODE = ("bioplan.dataclass_code",)
_MAX_RECORDED = 2000  # more means classes of code long gone: the record starts afresh


def _key() -> str:
    return disk_cache.content_key([sys.version.encode(), disk_cache.source_fingerprint(_CODE).encode()])


class _Served:
    def __init__(self, recorded: dict[str, bytes]) -> None:
        self.recorded = recorded
        self.new: dict[str, CodeType] = {}

    def code(self, txt: str, globals: dict[str, Any] | None) -> CodeType:
        kept = self.recorded.get(txt)
        if kept is not None:
            try:
                code = marshal.loads(kept)
                if isinstance(code, CodeType):
                    return code
            except Exception:  # unreadable: compiled from the text
                pass
        # as `exec(txt, ...)` in dataclasses.py compiles it: no `from __future__` flag inherited from here
        code = compile(txt, "<string>", "exec", dont_inherit=True)
        if (globals or {}).get("__name__", "").startswith("bioplan."):
            self.new[txt] = code
        return code

    def create_fn(self, name: str, args: Any, body: Any, *, globals: dict[str, Any] | None = None,
                  locals: dict[str, Any] | None = None, return_type: Any = dataclasses.MISSING) -> Any:
        """Python 3.11's `dataclasses._create_fn`, the text compiled through `code`."""
        if locals is None:
            locals = {}
        return_annotation = ""
        if return_type is not dataclasses.MISSING:
            locals["_return_type"] = return_type
            return_annotation = "->_return_type"
        args = ",".join(args)
        body = "\n".join(f"  {b}" for b in body)
        txt = f" def {name}({args}){return_annotation}:\n{body}"
        local_vars = ", ".join(locals.keys())
        txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
        ns: dict[str, Any] = {}
        exec(self.code(txt, globals), globals, ns)
        return ns["__create_fn__"](**locals)

    def record(self) -> None:
        """At exit: the code compiled from new texts, added to the record."""
        if self.new:
            kept = self.recorded if len(self.recorded) + len(self.new) <= _MAX_RECORDED else {}
            disk_cache.write("dataclass-code", _key(), {**kept, **{t: marshal.dumps(c) for t, c in self.new.items()}})


def serve() -> None:
    """Compile the methods of bioplan's dataclasses from the record for the rest of this process, and
    record new ones at its exit. For a process that is the CLI: `dataclasses._create_fn` is replaced."""
    create_fn: Any = getattr(dataclasses, "_create_fn", None)
    if sys.version_info[:2] != (3, 11) or create_fn is None or isinstance(getattr(create_fn, "__self__", None),
                                                                        _Served):
        return
    served = _Served(disk_cache.read("dataclass-code", _key(), dict) or {})
    dataclasses._create_fn = served.create_fn  # type: ignore[attr-defined]
    atexit.register(served.record)
