"""bioplan's module-level regular expressions compiled once per machine instead of once per process.

`re` compiles a pattern with sre's parser and code generator, written in Python, and keeps the result
for the process only: the ~90 patterns bioplan's modules and functions compile cost ~7 ms of every
`bioplan plan` (issue 10). Run as the whole process, the CLI serves them (`serve`): `re`'s compiler is
wrapped so that a pattern of bioplan's code compiled by an earlier run is built from its recorded
*program* -- the arguments `re` hands to sre's C constructor (`_sre.compile`: flags, code, groups) --
in ~10 us. A pattern not recorded yet is compiled by `re` as before and, at exit, its program is
recorded (kept only if the pattern built from it equals the one `re` compiled: same flags and code).

The programs are cached on disk (`bioplan.cache`) under the Python version and this module's code;
sre validates every program it is given, and anything unexpected falls back to `re`'s own compiler:
the same pattern either way. Only bioplan's own patterns are recorded, a set bounded by its code: those
its modules' bodies compile, and those a function writes as a literal; never one built while running
(some are built from the request's words), nor another package's.
"""

from __future__ import annotations

import atexit
import re
import sys
from array import array
from typing import Any

from bioplan import cache as disk_cache

_CODE = ("bioplan.patterns",)
_MAX_RECORDED = 2000  # more means patterns of code long gone: the record starts afresh

# (pattern type, pattern, flags) -> (flags, code as bytes, groups, group index, index group)
Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
Key = tuple[type, str, int]


def program_of(pattern: str, flags: int = 0) -> Program:
    """The arguments `re.compile(pattern, flags)` hands to `_sre.compile`, computed as `re._compiler` does."""
    parser: Any = sys.modules["re._parser"]
    compiler: Any = sys.modules["re._compiler"]
    parsed = parser.parse(pattern, flags)
    code = compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return (flags | parsed.state.flags, array("I", code).tobytes(), parsed.state.groups - 1, groupindex,
            tuple(indexgroup))


def from_program(pattern: str, program: Program) -> re.Pattern[str]:
    flags, code, groups, groupindex, indexgroup = program
    sre: Any = sys.modules["_sre"]
    return sre.compile(pattern, flags, array("I", code).tolist(), groups, groupindex, indexgroup)


def _key() -> str:
    return disk_cache.content_key([sys.version.encode(), disk_cache.source_fingerprint(_CODE).encode()])


class _Served:
    def __init__(self, compile_: Any, programs: dict[Key, Program]) -> None:
        self.compile = compile_  # re._compiler.compile
        self.programs = programs
        self.new: dict[Key, re.Pattern[str]] = {}

    def __call__(self, p: Any, flags: int = 0) -> Any:
        if type(p) is str and not flags & re.DEBUG:
            key: Key = (str, p, flags)
            program = self.programs.get(key)
            if program is not None:
                try:
                    return from_program(p, program)
                except Exception:  # a program sre refuses: compiled from the pattern
                    pass
            compiled = self.compile(p, flags)
            if _recordable(p, sys._getframe(1)):
                self.new[key] = compiled
            return compiled
        return self.compile(p, flags)

    def record(self) -> None:
        """At exit: the programs of the patterns compiled from scratch, added to the record."""
        found: dict[Key, Program] = {}
        for key, compiled in self.new.items():
            try:
                program = program_of(key[1], key[2])
                if from_program(key[1], program) == compiled:
                    found[key] = program
            except Exception:  # another Python's sre: not recorded
                continue
        if found:
            kept = self.programs if len(self.programs) + len(found) <= _MAX_RECORDED else {}
            disk_cache.write("patterns", _key(), {**kept, **found})


def _recordable(pattern: str, frame: Any) -> bool:
    """Compiled by bioplan's code, not built from data: in the body of one of bioplan's modules, or
    written as a literal in the bioplan function that compiles it (the first frame outside `re`)."""
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "re":
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__", "").startswith("bioplan.") and \
        (frame.f_code.co_name == "<module>" or pattern in frame.f_code.co_consts)


def serve() -> None:
    """Build the recorded patterns from their programs for the rest of this process, and record the
    new ones at its exit. For a process that is the CLI: `re`'s compiler is wrapped process-wide."""
    compiler: Any = sys.modules.get("re._compiler")
    if compiler is None or isinstance(compiler.compile, _Served) or "_sre" not in sys.modules:
        return
    programs = disk_cache.read("patterns", _key(), dict) or {}
    served = _Served(compiler.compile, programs)
    compiler.compile = served
    atexit.register(served.record)
