"""Input files for evaluation cases: the generated example data and inline fixtures.

Cases refer to files as `{data}/<class>/...` (written by `bioplan.evaluate.example_data`, the
deterministic generator of the reference examples, shipped in the package) and `{fixtures}/NAME`
(written from the case file's `fixtures:` section). Shell-style wildcards are expanded (sorted); a path without
wildcards is passed as written even when it does not exist (a case may test a missing file).
"""

from __future__ import annotations

import base64
import fnmatch
import glob
import gzip
import io
import re
from collections.abc import Iterable
from pathlib import Path

from bioplan.evaluate.cases import Case, CaseFile, CaseFileError, Fixture

_CLASS_REF = re.compile(r"\{data\}/([A-Za-z0-9_]+)")
_WILDCARD = re.compile(r"[*?\[]")


def used_fixtures(cases: Iterable[Case], fixtures: dict[str, Fixture]) -> dict[str, Fixture]:
    """The fixtures some of these cases name (directly or through a wildcard)."""
    patterns = [s[len("{fixtures}/"):] for c in cases for s in (*c.inputs, *c.declared) if s.startswith("{fixtures}/")]
    return {name: f for name, f in fixtures.items()
            if any(fnmatch.fnmatchcase(name, p) or name.startswith(p.rstrip("/") + "/") for p in patterns)}


def needed_classes(cases: Iterable[Case], fixtures: dict[str, Fixture]) -> list[str]:
    """The example data classes these cases read, directly or through the fixtures they use."""
    cases = list(cases)
    names: set[str] = set()
    for c in cases:
        for s in (*c.inputs, *c.declared):
            names.update(_CLASS_REF.findall(s))
    for f in used_fixtures(cases, fixtures).values():
        if f.from_:
            names.update(_CLASS_REF.findall(f.from_))
    return sorted(names)


def ensure_data(data_dir: Path, classes: list[str]) -> dict[str, str]:
    """Generate the example classes missing from `data_dir`; returns {class: problem} for failures."""
    missing = [c for c in classes if not (data_dir / c).is_dir()]
    if not missing:
        return {}
    from bioplan.evaluate import example_data  # numpy at import: only when data must be generated

    unknown = sorted(set(missing) - set(example_data.CLASSES))
    if unknown:
        raise CaseFileError(f"{{data}}/{unknown[0]}: the example generator has no class {unknown[0]!r}",
                            [f"classes: {', '.join(example_data.CLASSES)}"])
    failed: dict[str, str] = {}
    for cls in missing:  # one at a time: a class whose generator needs a missing package fails alone
        try:
            example_data.generate(data_dir, [cls])
        except Exception as exc:  # noqa: BLE001 - reported per case, not a crash of the whole run
            failed[cls] = f"{type(exc).__name__}: {exc}"
    return failed


def _fixture_bytes(name: str, f: Fixture, data_dir: Path) -> bytes:
    if f.text is not None:
        raw = f.text.encode("utf-8")
        if f.gzip:
            buf = io.BytesIO()
            with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
                gz.write(raw)
            raw = buf.getvalue()
        return raw
    if f.base64 is not None:
        return base64.b64decode(f.base64)
    src = Path(f.from_.replace("{data}", str(data_dir)))  # type: ignore[union-attr]
    try:
        data = src.read_bytes()
    except OSError as exc:
        raise CaseFileError(f"fixture {name}: cannot read {f.from_} ({exc.strerror or exc})",
                            ["`from:` names a file of the generated example data, e.g. {data}/bulk_de/counts.csv"]
                            ) from exc
    return data[: f.head_bytes] if f.head_bytes is not None else data


def write_fixtures(cf: CaseFile, fixtures_dir: Path, data_dir: Path, cases: Iterable[Case] | None = None) -> None:
    """Write the fixtures (those `cases` use, when given) into `fixtures_dir`."""
    chosen = cf.fixtures if cases is None else used_fixtures(cases, cf.fixtures)
    for name, f in sorted(chosen.items()):
        path = fixtures_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_fixture_bytes(name, f, data_dir))


def expand(pattern: str, data_dir: Path, fixtures_dir: Path) -> list[str]:
    """One input entry -> file paths (wildcards expanded, sorted)."""
    path = pattern.replace("{data}", str(data_dir)).replace("{fixtures}", str(fixtures_dir))
    if _WILDCARD.search(path):
        found = sorted(glob.glob(path))
        if not found:
            raise FileNotFoundError(f"{pattern}: matches no file")
        return found
    return [path]


def resolve_inputs(case: Case, data_dir: Path, fixtures_dir: Path) -> tuple[list[str], dict[str, str]]:
    inputs = [p for entry in case.inputs for p in expand(entry, data_dir, fixtures_dir)]
    declared = {}
    for entry, datatype in case.declared.items():
        for p in expand(entry, data_dir, fixtures_dir):
            declared[p] = datatype
    return inputs, declared
