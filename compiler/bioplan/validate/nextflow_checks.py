"""Structural checks of an emitted Nextflow pipeline, run before it is written.

Nextflow's own strict parser (`nextflow lint`, or scripts/nf-lint.sh in the tests)
catches syntax; it cannot catch a wrong `emit` name or a channel of the wrong shape.
bioplan generated the code from a typed plan, so it checks those invariants itself:

- `includes`:  every `include ... from '<path>'` resolves to an emitted module
- `emits`:     every `X.out.<name>` names an `emit:` declared by the module aliased as X
- `arity`:     every call passes as many channels as the process declares inputs, and each
               channel's items have the arity the input tuple expects
- `stubs`:     every process has a `stub:` block
- `strict`:    no construct the strict syntax forbids (import, Channel., addParams, shell:, for/switch)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_INCLUDE = re.compile(r"include \{ (\w+)(?: as (\w+))? \} from '([^']+)'")
_OUT_REF = re.compile(r"\b([A-Z][A-Z0-9_]*)\.out\.(\w+)")
_EMIT = re.compile(r"^\s*(.*?),\s*emit:\s*(\w+)", re.M)
_STRICT_DENY = [
    (re.compile(r"^\s*import\s", re.M), "import statement"),
    (re.compile(r"\bChannel\."), "uppercase Channel (use channel)"),
    (re.compile(r"\baddParams\b"), "addParams"),
    (re.compile(r"^\s*shell:", re.M), "shell: section"),
    (re.compile(r"^\s*for\s*\(", re.M), "for loop"),
    (re.compile(r"^\s*switch\s*\(", re.M), "switch statement"),
]


@dataclass(frozen=True)
class Problem:
    check: str
    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: [{self.check}] {self.message}"


def _tuple_arity(decl: str) -> int:
    decl = decl.strip()
    if decl.startswith("tuple"):
        return len(re.findall(r"\b(?:val|path|eval|env|stdout)\(", decl))
    return 1


def module_interface(source: str) -> tuple[list[int], dict[str, int]]:
    """(arity of each input declaration, emit name -> arity) of a module's process."""
    inputs_block = re.search(r"\n\s*input:\n(.*?)\n\s*output:", source, re.S)
    outputs_block = re.search(r"\n\s*output:\n(.*?)\n\s*(?:when|script|exec):", source, re.S)
    inputs = [_tuple_arity(line) for line in (inputs_block.group(1).splitlines() if inputs_block else [])
              if line.strip() and not line.strip().startswith("//")]
    outputs = outputs_block.group(1) if outputs_block else ""
    emits = {m.group(2): _tuple_arity(m.group(1)) for m in _EMIT.finditer(outputs)}
    return inputs, emits


def check_pipeline(files: dict[str, str], uses: list[dict]) -> list[Problem]:
    """All structural problems of an emitted pipeline (empty list: fine).

    `uses` records, per process call, what the generator wired: alias, module file,
    the number of channels passed, and per channel its expected item arity and the
    producer emits it is built from.
    """
    wf_name = "workflows/bioplan.nf"
    wf = files.get(wf_name, "")
    problems, modules = _include_problems(files, wf_name, wf)
    interfaces = {alias: module_interface(files[path]) for alias, path in modules.items()}
    problems += _emit_problems(wf_name, wf, interfaces, modules)
    problems += _arity_problems(wf_name, uses, interfaces)
    problems += _per_file_problems(files)
    return problems


# A module's interface as module_interface returns it: (per input, its item arity; per emit name, its arity).
_Interface = tuple[list[int], dict[str, int]]


def _include_problems(files: dict[str, str], wf_name: str, wf: str) -> tuple[list[Problem], dict[str, str]]:
    """Includes that do not resolve (workflow and main.nf), and the workflow's alias -> module file."""
    problems: list[Problem] = []
    modules: dict[str, str] = {}
    for m in _INCLUDE.finditer(wf):
        name, alias, rel = m.group(1), m.group(2) or m.group(1), m.group(3)
        target = _resolve(wf_name, rel)
        if target not in files:
            problems.append(Problem("includes", wf_name, f"include of {name} from {rel!r}: no such module {target}"))
            continue
        if not re.search(rf"^process {name} \{{", files[target], re.M):
            problems.append(Problem("includes", target, f"declares no process {name}"))
        modules[alias] = target
    for m in _INCLUDE.finditer(files.get("main.nf", "")):
        if m.group(3).startswith("plugin/"):
            continue
        if _resolve("main.nf", m.group(3)) not in files:
            problems.append(Problem("includes", "main.nf", f"include from {m.group(3)!r} does not resolve"))
    return problems, modules


def _emit_problems(wf_name: str, wf: str, interfaces: dict[str, _Interface],
                   modules: dict[str, str]) -> list[Problem]:
    """`X.out.y` references to a process that is not included or that has no emit y."""
    problems: list[Problem] = []
    for m in _OUT_REF.finditer(wf):
        alias, emit = m.group(1), m.group(2)
        if alias not in interfaces:
            problems.append(Problem("emits", wf_name, f"{alias}.out.{emit}: {alias} is not an included process"))
        elif emit not in interfaces[alias][1]:
            problems.append(Problem("emits", wf_name, f"{alias}.out.{emit}: {modules[alias]} declares no emit "
                                                      f"{emit!r} (it has {', '.join(sorted(interfaces[alias][1]))})"))
    return problems


def _arity_problems(wf_name: str, uses: list[dict], interfaces: dict[str, _Interface]) -> list[Problem]:
    """Calls whose channel count or item arity disagrees with the module's inputs or the producer's emits."""
    problems: list[Problem] = []
    for use in uses:
        alias = use["alias"]
        if alias not in interfaces:
            continue
        inputs, _ = interfaces[alias]
        if len(inputs) != len(use["channels"]):
            problems.append(Problem("arity", wf_name, f"{alias} is called with {len(use['channels'])} channels but "
                                                      f"declares {len(inputs)} inputs"))
            continue
        for i, (declared, channel) in enumerate(zip(inputs, use["channels"])):
            if declared != channel["arity"]:
                problems.append(Problem("arity", wf_name, f"{alias} input {i + 1} expects {declared}-element items, "
                                                          f"the channel gives {channel['arity']}"))
            for producer, emit, expected in channel["from"]:
                got = interfaces.get(producer, ([], {}))[1].get(emit)
                if got is not None and got != expected:
                    problems.append(Problem("arity", wf_name, f"{producer}.out.{emit} emits {got}-element items; "
                                                              f"{alias} input {i + 1} needs {expected}"))
    return problems


def _per_file_problems(files: dict[str, str]) -> list[Problem]:
    """In every .nf file: processes without a stub: block, and constructs the strict syntax rejects."""
    problems: list[Problem] = []
    for path, source in files.items():
        if not path.endswith(".nf"):
            continue
        for m in re.finditer(r"^process (\w+) \{", source, re.M):
            body = source[m.end():]
            nxt = re.search(r"^process \w+ \{", body, re.M)
            body = body[: nxt.start()] if nxt else body
            if "\n    stub:" not in body:
                problems.append(Problem("stubs", path, f"process {m.group(1)} has no stub: block"))
        for pattern, what in _STRICT_DENY:
            if pattern.search(source):
                problems.append(Problem("strict", path, f"{what} is not allowed by the strict syntax"))
    return problems


def _resolve(from_file: str, rel: str) -> str:
    parts = from_file.split("/")[:-1] + rel.split("/")
    out: list[str] = []
    for p in parts:
        if p == "..":
            if out:
                out.pop()
        elif p not in (".", ""):
            out.append(p)
    path = "/".join(out)
    return path if path.endswith(".nf") else path + ".nf"
