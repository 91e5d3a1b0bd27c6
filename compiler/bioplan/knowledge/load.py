"""Load stage: YAML directories -> one frozen, validated `Knowledge`.

Order: read every file -> JSON Schema per file kind (all problems collected,
each with file and key path) -> pydantic models -> semantic checks
(`knowledge.checks`). Any problem raises one InvalidKnowledgeError listing all.

The validated Knowledge is cached on disk (`bioplan.cache`) keyed by the sha256 of
every knowledge file, the names of the templates (the checks test that the templates
tools name exist) and the code that builds it (`KNOWLEDGE_CODE`), so a CLI call does
not re-validate unchanged YAML, and an edit of the ontology, of the models or of a
check, or a template added or removed, invalidates the cache.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bioplan import cache as disk_cache
from bioplan.errors import InvalidKnowledgeError
from bioplan.knowledge.models import (
    Constraint,
    Datatype,
    Format,
    Knowledge,
    Lexicon,
    Motif,
    Operation,
    Tool,
)
from bioplan.paths import ontology_dir, templates_dir
from bioplan.progress import slow_step

KNOWLEDGE_DIRS_ENV = "BIOPLAN_KNOWLEDGE"  # extra directories, os.pathsep-separated
# The modules whose code decides what a Knowledge built from the files is: part of its cache key.
KNOWLEDGE_CODE = (
    "bioplan.knowledge.models",
    "bioplan.knowledge.load",
    "bioplan.knowledge.checks",
    "bioplan.knowledge.words",
)


def _schema_for_mapping(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema of a `{id: entry}` mapping, entries checked against `model` minus `id`."""
    entry = model.model_json_schema()
    entry.get("properties", {}).pop("id", None)
    if "required" in entry:
        entry["required"] = [r for r in entry["required"] if r != "id"]
    defs = entry.pop("$defs", {})
    return {"type": "object", "additionalProperties": {"$ref": "#/$defs/Entry"}, "$defs": {**defs, "Entry": entry}}


@cache
def file_schemas() -> dict[str, dict[str, Any]]:
    """One JSON Schema per file kind, derived from the pydantic models (one source of truth)."""

    def top(key: str, model: type[BaseModel]) -> dict[str, Any]:
        inner = _schema_for_mapping(model)
        defs = inner.pop("$defs")
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "required": [key],
            "additionalProperties": False,
            "properties": {key: inner},
            "$defs": defs,
        }

    lexicon = Lexicon.model_json_schema()
    return {
        "datatypes": top("datatypes", Datatype),
        "operations": top("operations", Operation),
        "constraints": top("constraints", Constraint),
        "formats": top("formats", Format),
        "lexicon": lexicon,
        "tool": Tool.model_json_schema(),
        "motif": Motif.model_json_schema(),
    }


def _safe_loader() -> Any:
    """PyYAML's safe loader, in C (libyaml) where PyYAML was built with it: it parses the knowledge
    files several times faster than the pure-Python one, and accepts the same documents."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Deepest nesting of collections a YAML file bioplan reads may have (the knowledge nests 6 deep). Deeper
# flow collections (`[[[[...`) cost PyYAML quadratic time, a RecursionError in pure Python, and crash
# the C composer (a segmentation fault at ~100,000 levels): refused from the parser's events first.
MAX_YAML_DEPTH = 64


def yaml_too_deep(text: str) -> bool:
    """Whether `text` nests collections deeper than MAX_YAML_DEPTH (read as events: no recursion, and
    stops at the first level too deep)."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=_safe_loader()):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                return True
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return False


def _parse_yaml(path: Path, text: str, problems: list[str]) -> Any:
    """The YAML of `text`, None with a problem when it is not valid YAML or nests too deep."""
    import yaml  # the files are parsed only when the cache misses

    try:
        if yaml_too_deep(text):  # a knowledge directory of the user's (BIOPLAN_KNOWLEDGE_DIRS)
            problems.append(f"{path}: not valid YAML: collections nested deeper than {MAX_YAML_DEPTH} levels")
            return None
        return yaml.load(text, Loader=_safe_loader())
    except yaml.YAMLError as exc:
        problems.append(f"{path}: not valid YAML: {exc}")
    return None


# (kind, text) -> the data of a knowledge file whose text passed the depth check and its kind's schema in
# this process: a process that builds the knowledge from several directories holding mostly the same files
# (the test suite's edited copies of the ontology: ~1 s of jsonschema and ~0.5 s of YAML per build) checks
# and parses each text once. The schemas derive from the models alone, so a text's verdict cannot change
# within a process; each build gets its own copy of the data (the build merges into what it reads).
_VALID_TEXTS: dict[tuple[str, str], Any] = {}
_SCALARS = (str, int, float, bool, type(None))


def _copied(data: Any) -> Any:
    """A copy of YAML data as deepcopy makes it (new dicts and lists all the way down), without its memo."""
    kind = type(data)
    if kind is dict:
        return {key: _copied(value) for key, value in data.items()}
    if kind is list:
        return [_copied(value) for value in data]
    if kind in _SCALARS:
        return data
    import copy  # a YAML tag the knowledge files do not use (a date, a set)

    return copy.deepcopy(data)


def _read_valid(kind: str, path: Path, problems: list[str]) -> Any:
    """The data of a knowledge file that is valid YAML and passes its kind's schema, else None with the
    problems added (an empty file: None, nothing added)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        problems.append(f"{path}: cannot be read: {exc.strerror}")
        return None
    valid = _VALID_TEXTS.get((kind, text))
    if valid is not None:
        return _copied(valid)
    data = _parse_yaml(path, text, problems)
    if data is None:
        return data
    found = _schema_problems(path, data, kind)
    if found:
        problems.extend(found)
        return None
    _VALID_TEXTS[(kind, text)] = _copied(data)
    return data


def _schema_problems(path: Path, data: Any, kind: str) -> list[str]:
    import jsonschema  # validation runs only when the cache misses

    validator = jsonschema.Draft202012Validator(file_schemas()[kind])
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        out.append(f"{path}: {where}: {err.message}")
    return out


def knowledge_files(roots: list[Path]) -> list[tuple[str, Path]]:
    """(kind, path) of every knowledge file under the ontology and motif roots, sorted."""
    files: list[tuple[str, Path]] = []
    for root in roots:
        onto = root / "ontology" if (root / "ontology").is_dir() else root
        for kind in ("datatypes", "operations", "constraints", "formats", "lexicon"):
            p = onto / f"{kind}.yaml"
            if p.is_file():
                files.append((kind, p))
        for p in sorted((onto / "tools").glob("*.yaml")):
            files.append(("tool", p))
        motif_root = root / "motifs" if (root / "motifs").is_dir() else onto.parent / "motifs"
        for p in sorted(motif_root.glob("*.yaml")):
            files.append(("motif", p))
    return files


def content_hash(files: list[tuple[str, Path]], templates: Path) -> str:
    """The knowledge's key: the code that builds it, every knowledge file, and which templates
    exist (the checks read no template's content, only whether the ones tools name are there).

    Reading and hashing every file (~0.7 MB) is remembered on disk under the files' stamp
    (`_stamp`), as git's index remembers a file's hash under its stat data: an unchanged
    knowledge base costs one `stat` per file, an edited file its stamp and so a new hash."""
    fingerprint = disk_cache.source_fingerprint(KNOWLEDGE_CODE).encode()
    names = template_names(templates)
    stamp = _stamp(fingerprint, files, names)
    if stamp is not None and (known := disk_cache.read("stamp", stamp, str)) is not None:
        return known

    def parts() -> Iterator[bytes]:
        yield fingerprint
        for kind, path in files:
            yield kind.encode() + b"\0" + path.name.encode()
            yield path.read_bytes()
        for name in names:
            yield name.encode()

    digest = disk_cache.content_key(parts())
    if stamp is not None:
        disk_cache.write("stamp", stamp, digest)
    return digest


# a file changed this recently may change again within the file system's timestamp granularity
# without its stat data changing (git's "racily clean" entries): its stamp is not remembered
_SETTLED_NS = 2_000_000_000


def _stamp(fingerprint: bytes, files: list[tuple[str, Path]], names: list[str]) -> str | None:
    """A key of everything `content_hash` reads, with each file's stat data (device, inode, size,
    modification and change times, in ns) in place of its bytes; None when a file changed in the
    last 2 s. A write changes a file's change time (which no tool sets back), a rename its inode."""
    parts = [fingerprint]
    settled = time.time_ns() - _SETTLED_NS
    for kind, path in files:
        st = os.stat(path)
        if st.st_mtime_ns > settled or st.st_ctime_ns > settled:
            return None
        parts.append(f"{kind}\0{path}\0{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode())
    parts.extend(name.encode() for name in names)
    return disk_cache.content_key(parts)


def _files_below(folder: str, parts: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    with os.scandir(folder) as entries:
        for entry in list(entries):
            if entry.is_dir() and not entry.is_symlink():
                if entry.name != "__pycache__":
                    yield from _files_below(entry.path, (*parts, entry.name))
            elif entry.is_file():
                yield (*parts, entry.name)


def template_names(templates: Path) -> list[str]:
    """Every file under `templates` (outside __pycache__), as relative POSIX paths in the order of
    `sorted(templates.rglob("*"))`. The cache key of every CLI call lists them: os.scandir costs a
    third of what pathlib does, and the templates grow with every tool."""
    if not templates.is_dir():
        return []
    return ["/".join(parts) for parts in sorted(_files_below(str(templates), ()))]


def _merge(target: dict, source: dict, path: Path, what: str, problems: list[str]) -> None:
    for key, value in (source or {}).items():
        if key in target:
            problems.append(f"{path}: {what}/{key}: defined twice (also in an earlier file)")
        target[key] = value


def _merge_lexicon(lexicon_raw: dict[str, Any], data: dict) -> None:
    """Lists from several lexicon files concatenate (in file order); other values: the first file wins."""
    for key, value in data.items():
        lexicon_raw.setdefault(key, [] if isinstance(value, list) else value)
        if isinstance(value, list):
            lexicon_raw[key] = list(lexicon_raw[key]) + value


def _add_tool(tools: dict[str, Tool], sources: dict[str, Path], path: Path, tool: Tool,
              problems: list[str]) -> None:
    if tool.id in tools:
        problems.append(f"{path}: tool id {tool.id!r} defined twice")
    if path.stem != tool.id:
        problems.append(f"{path}: id {tool.id!r} differs from the file name {path.stem!r}; "
                        f"name the file {tool.id}.yaml")
    tools[tool.id] = tool
    sources[f"tools/{tool.id}"] = path


def _add_motif(motifs: dict[str, Motif], sources: dict[str, Path], path: Path, motif: Motif,
               problems: list[str]) -> None:
    if motif.id in motifs:
        problems.append(f"{path}: motif id {motif.id!r} defined twice")
    motifs[motif.id] = motif
    sources[f"motifs/{motif.id}"] = path


def _assemble(raw: dict[str, dict], tools: dict[str, Tool], motifs: dict[str, Motif],
              lexicon_raw: dict[str, Any], content_hash: str) -> Knowledge:
    """The Knowledge from the merged files; tables sorted by id so the result does not depend on file order."""
    return Knowledge(
        datatypes={k: Datatype(id=k, **v) for k, v in sorted(raw["datatypes"].items())},
        operations={k: Operation(id=k, **v) for k, v in sorted(raw["operations"].items())},
        constraints={k: Constraint(id=k, **v) for k, v in sorted(raw["constraints"].items())},
        formats={k: Format(id=k, **v) for k, v in sorted(raw["formats"].items())},
        tools=dict(sorted(tools.items())),
        motifs=dict(sorted(motifs.items())),
        lexicon=Lexicon(**lexicon_raw),
        content_hash=content_hash,
    )


def build_knowledge(roots: list[Path], templates: Path, content_hash: str) -> Knowledge:
    """Validate and assemble the knowledge from its files (no cache)."""
    problems: list[str] = []
    raw: dict[str, dict] = {k: {} for k in ("datatypes", "operations", "constraints", "formats")}
    lexicon_raw: dict[str, Any] = {}
    tools: dict[str, Tool] = {}
    motifs: dict[str, Motif] = {}
    sources: dict[str, Path] = {}

    for kind, path in knowledge_files(roots):
        data = _read_valid(kind, path, problems)
        if data is None:
            if not problems or not problems[-1].startswith(str(path)):
                problems.append(f"{path}: empty file; remove it or add content")
            continue
        if kind in raw:
            _merge(raw[kind], data[kind], path, kind, problems)
            for key in data[kind]:
                sources[f"{kind}/{key}"] = path
        elif kind == "lexicon":
            _merge_lexicon(lexicon_raw, data)
        elif kind == "tool":
            _add_tool(tools, sources, path, Tool(**data), problems)
        elif kind == "motif":
            _add_motif(motifs, sources, path, Motif(**data), problems)

    if problems:
        raise InvalidKnowledgeError(problems)

    knowledge = _assemble(raw, tools, motifs, lexicon_raw, content_hash)
    from bioplan.knowledge import checks  # imported on a cache miss only

    problems = checks.semantic_problems(knowledge, sources, templates)
    if problems:
        raise InvalidKnowledgeError(problems)
    return knowledge


def default_roots() -> list[Path]:
    roots = [ontology_dir().parent]
    extra = os.environ.get(KNOWLEDGE_DIRS_ENV, "")
    roots += [Path(p) for p in extra.split(os.pathsep) if p]
    return roots


_MEMO: dict[str, Knowledge] = {}


def load_knowledge(extra_dirs: list[Path] | None = None, use_cache: bool = True) -> Knowledge:
    """The validated Knowledge of the shipped ontology plus any user directories."""
    roots = default_roots() + list(extra_dirs or [])
    templates = templates_dir()
    files = knowledge_files(roots)
    digest = content_hash(files, templates)
    if digest in _MEMO:
        return _MEMO[digest]
    cached = disk_cache.read("knowledge", digest, Knowledge) if use_cache else None
    if cached is not None and cached.content_hash == digest:
        _MEMO[digest] = cached
        return cached
    with slow_step("validating the knowledge base (once: cached until the ontology changes)"):
        knowledge = build_knowledge(roots, templates, digest)
    _MEMO[digest] = knowledge
    if use_cache:
        disk_cache.write("knowledge", digest, _shared(knowledge))
    return knowledge


def _shared(knowledge: Knowledge) -> Knowledge:
    """A copy of `knowledge` in which equal parts are one object: ~600 of its ~3,000 frozen models repeat
    another (the same port, software or resources in several tools), and each is one object less to
    unpickle in every CLI call (~1.2 ms of the ~8 ms). Equal means the same pickled state (fields and
    which were set); the models are frozen, so sharing one changes nothing a reader can see."""
    import pickle

    copy = pickle.loads(pickle.dumps(knowledge, protocol=pickle.HIGHEST_PROTOCOL))
    seen: dict[tuple[type, bytes], BaseModel] = {}

    def one(value: Any) -> Any:
        if isinstance(value, BaseModel):
            fields = value.__dict__
            for name, field in fields.items():
                fields[name] = one(field)
            return seen.setdefault((type(value), pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)), value)
        if type(value) is dict:
            return {k: one(v) for k, v in value.items()}
        if type(value) is list:
            return [one(v) for v in value]
        if type(value) is tuple:
            return tuple(one(v) for v in value)
        return value

    for name, field in copy.__dict__.items():
        copy.__dict__[name] = one(field)
    return copy
