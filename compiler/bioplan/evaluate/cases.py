"""Evaluation cases: the YAML format (see README.md beside this file), loading and validation.

A case file holds `cases` (a request, its inputs, and what a bioinformatician expects of the
plan or of the refusal) and optional inline `fixtures` (small files the cases refer to as
`{fixtures}/NAME`). Every id an expectation names (operation, datatype, constraint, tool,
format, error code) is checked against the knowledge base when the file is loaded, so a typo
in a case is a load error, not a silently failing case.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bioplan.errors import ERROR_CODES, BioplanError, one_line
from bioplan.knowledge.load import MAX_YAML_DEPTH, yaml_too_deep
from bioplan.knowledge.models import Knowledge

DEV_SET = Path(__file__).resolve().parent / "dev_set.yaml"
# requests copied verbatim from bioinformaticians outside the project (nf-core docs, Galaxy
# Training Network, ...), each with its source; expectations follow what the source's authors did
FROM_OTHERS = Path(__file__).resolve().parent / "from_others.yaml"
WORKFLOW_TYPES = ("single_step", "linear", "multi_branch", "multi_branch_join")
# PyYAML's safe loader in C (libyaml) where PyYAML was built with it: the same values as the pure-Python
# one (the shipped case files: tests/test_yaml_loaders.py), 0.13 instead of 0.34 CPU-s per load of the dev set
# (`bioplan eval` and every test that loads the cases)
CASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class CaseFileError(BioplanError):
    """A case or baseline file that cannot be used (bad YAML, unknown ids, missing fixtures)."""

    code = "invalid_cases"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Fixture(_Frozen):
    """A small input file written into `{fixtures}/` before the cases run.

    Exactly one source: `text` (UTF-8), `base64` (bytes), or `from` (a copy of a generated
    example file, optionally cut to its first `head_bytes` bytes). `gzip: true` compresses
    `text` (reproducibly: no name, mtime 0).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    text: str | None = None
    base64: str | None = None
    from_: str | None = Field(default=None, alias="from")
    head_bytes: int | None = Field(default=None, ge=0)
    gzip: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> Fixture:
        sources = [s for s in (self.text, self.base64, self.from_) if s is not None]
        if len(sources) != 1:
            raise ValueError("give exactly one of text, base64, from")
        if self.gzip and self.text is None:
            raise ValueError("gzip applies to text only")
        if self.head_bytes is not None and self.from_ is None:
            raise ValueError("head_bytes applies to from only")
        return self


class Expect(_Frozen):
    """What the rank-1 plan (or the refusal) must show. Every field is optional."""

    # operations: each must be the operation of some step of the rank-1 plan
    operations: tuple[str, ...] = ()
    # absent: no step of the rank-1 plan may run one of these operations
    absent: tuple[str, ...] = ()
    # order: [A, B] = some A step reaches some B step along the plan's edges (A feeds B)
    order: tuple[tuple[str, str], ...] = ()
    # target: the spec's target datatype, and a step of the plan must produce it (or a subtype)
    target: str | None = None
    target_format: str | None = None
    # constraints: ids that must be in task_spec.constraint_ids; constraints_absent: must not
    constraints: tuple[str, ...] = ()
    constraints_absent: tuple[str, ...] = ()
    # tools: operation -> tool that a step of that operation must be bound to
    tools: dict[str, str] = Field(default_factory=dict)
    # tools_absent: no step may be bound to these tools
    tools_absent: tuple[str, ...] = ()
    workflow_type: Literal["single_step", "linear", "multi_branch", "multi_branch_join"] | None = None
    # input_types: datatypes that must be among task_spec.input_types (sniffed or inferred)
    input_types: tuple[str, ...] = ()
    # error: the request must be refused with this error code (no other expectation allowed)
    error: str | None = None

    @field_validator("order", mode="before")
    @classmethod
    def _pairs(cls, v):
        if v is None:
            return ()
        out = []
        for pair in v:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"order entries are [A, B] pairs, got {pair!r}")
            out.append(tuple(pair))
        return tuple(out)

    @model_validator(mode="after")
    def _error_alone(self) -> Expect:
        if self.error is not None:
            others = [k for k, v in self.model_dump(exclude={"error"}).items() if v not in (None, (), {}, [])]
            if others:
                raise ValueError(f"a case that expects an error has no other expectations (got {', '.join(others)})")
        elif not any(v not in (None, (), {}, []) for v in self.model_dump().values()):
            raise ValueError("expect holds no expectation")
        return self


class Case(_Frozen):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    request: str
    # input paths: `{data}/<class>/...`, `{fixtures}/NAME`, wildcards, or `@SET` (a named list of input_sets)
    inputs: tuple[str, ...] = ()
    # files whose datatype is declared instead of sniffed (like --input-type FILE=DATATYPE)
    declared: dict[str, str] = Field(default_factory=dict)
    lang: Literal["en", "zh"] | None = None  # default: zh if the request holds CJK characters
    tags: tuple[str, ...] = ()
    note: str | None = None  # why the expectation is what it is (for the reader)
    # where a request written by others was copied from (URL, with the commit or date)
    source: str | None = None
    expect: Expect

    @property
    def language(self) -> str:
        if self.lang:
            return self.lang
        return "zh" if _CJK.search(self.request) else "en"

    @property
    def expects_error(self) -> bool:
        return self.expect.error is not None


class CaseFile(_Frozen):
    version: Literal[1] = 1
    description: str | None = None
    fixtures: dict[str, Fixture] = Field(default_factory=dict)
    # named input lists, used in a case's inputs as `@name`
    input_sets: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    cases: tuple[Case, ...]

    @model_validator(mode="after")
    def _expand_sets(self) -> CaseFile:
        """Replace every `@name` input by the paths of input_sets[name] (unknown names: a load error)."""
        unknown = [f"case {c.id}: inputs: unknown input set {i!r}" for c in self.cases for i in c.inputs
                   if i.startswith("@") and i[1:] not in self.input_sets]
        if unknown:
            raise ValueError("; ".join(unknown))
        cases = tuple(
            c.model_copy(update={"inputs": tuple(p for i in c.inputs
                                                 for p in (self.input_sets[i[1:]] if i.startswith("@") else (i,)))})
            for c in self.cases)
        object.__setattr__(self, "cases", cases)
        return self

    @field_validator("fixtures")
    @classmethod
    def _plain_names(cls, v: dict[str, Fixture]) -> dict[str, Fixture]:
        for name in v:
            parts = Path(name).parts
            if not name or Path(name).is_absolute() or ".." in parts:
                raise ValueError(f"fixture name {name!r} must be a relative path inside {{fixtures}}/")
        return v


def _problems(knowledge: Knowledge, cf: CaseFile) -> list[str]:
    """Ids that the knowledge base does not define, duplicate ids, undefined fixtures."""
    out: list[str] = []
    seen: set[str] = set()
    kinds = {
        "operation": set(knowledge.operations),
        "datatype": set(knowledge.datatypes),
        "constraint": set(knowledge.constraints),
        "tool": set(knowledge.tools),
        "format": set(knowledge.formats),
        "error code": set(ERROR_CODES),
    }

    def need(case: str, key: str, kind: str, value: str) -> None:
        if value not in kinds[kind]:
            out.append(f"case {case}: expect.{key}: unknown {kind} {value!r}")

    for c in cf.cases:
        if c.id in seen:
            out.append(f"case {c.id}: duplicate id")
        seen.add(c.id)
        e = c.expect
        for op in e.operations:
            need(c.id, "operations", "operation", op)
        for op in e.absent:
            need(c.id, "absent", "operation", op)
        for a, b in e.order:
            need(c.id, "order", "operation", a)
            need(c.id, "order", "operation", b)
        if e.target:
            need(c.id, "target", "datatype", e.target)
        if e.target_format:
            need(c.id, "target_format", "format", e.target_format)
        for k in e.constraints + e.constraints_absent:
            need(c.id, "constraints", "constraint", k)
        for op, tool in e.tools.items():
            need(c.id, "tools", "operation", op)
            need(c.id, "tools", "tool", tool)
            if tool in knowledge.tools and op in knowledge.operations and knowledge.tools[tool].implements != op:
                out.append(f"case {c.id}: expect.tools: {tool!r} implements "
                           f"{knowledge.tools[tool].implements!r}, not {op!r}")
        for t in e.tools_absent:
            need(c.id, "tools_absent", "tool", t)
        for d in e.input_types:
            need(c.id, "input_types", "datatype", d)
        for d in c.declared.values():
            if d not in kinds["datatype"]:
                out.append(f"case {c.id}: declared: unknown datatype {d!r}")
        if e.error:
            need(c.id, "error", "error code", e.error)
        for path in (*c.inputs, *c.declared):
            name = path[len("{fixtures}/"):]
            # a folder of fixtures ({fixtures}/salmon: salmon/ctrl_1/quant.sf, ...) names them all
            if path.startswith("{fixtures}/") and not fnmatch.filter(cf.fixtures, name) \
                    and not any(f.startswith(name.rstrip("/") + "/") for f in cf.fixtures):
                out.append(f"case {c.id}: inputs: {path!r} names no fixture of this file")
    return out


def load_cases(path: str | Path | None, knowledge: Knowledge) -> CaseFile:
    """Read and validate a case file (default: the development set shipped with bioplan)."""
    path = Path(path) if path else DEV_SET
    try:
        text = path.read_text(encoding="utf-8")
        if yaml_too_deep(text):
            raise CaseFileError(f"{path}: YAML collections nested deeper than {MAX_YAML_DEPTH} levels",
                                ["fix the YAML: cases are a list of mappings a few levels deep"], {"path": str(path)})
        raw = yaml.load(text, Loader=CASE_LOADER)
    except OSError as exc:
        raise CaseFileError(f"{path}: cannot read the case file ({exc.strerror or exc})", ["check the path"],
                            {"path": str(path)}) from exc
    except yaml.YAMLError as exc:
        raise CaseFileError(f"{path}: not valid YAML: {exc}", ["fix the YAML syntax"], {"path": str(path)}) from exc
    if not isinstance(raw, dict):
        raise CaseFileError(f"{path}: expected a mapping with a `cases` list",
                            ["see compiler/bioplan/evaluate/README.md for the case format"], {"path": str(path)})
    try:
        cf = CaseFile.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = list(err["loc"])
            if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int) and loc[1] < len(raw.get("cases") or []):
                item = raw["cases"][loc[1]]
                if isinstance(item, dict) and "id" in item:
                    loc[1] = item["id"]
            problems.append(f"{'.'.join(map(str, loc))}: {err['msg']}")
        raise CaseFileError(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(map(one_line, problems)),
                            ["see compiler/bioplan/evaluate/README.md for the case format"],
                            {"path": str(path), "problems": problems}, listed=True) from None
    problems = _problems(knowledge, cf)
    if problems:
        raise CaseFileError(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(map(one_line, problems)),
                            ["ids are those of ontology/ (operations.yaml, datatypes.yaml, constraints.yaml, "
                             "tools/*.yaml, formats.yaml) and the error codes of bioplan.errors"],
                            {"path": str(path), "problems": problems}, listed=True)
    return cf
