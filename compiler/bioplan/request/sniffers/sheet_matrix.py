"""A sample sheet against the count matrix it describes (real files, round 6).

The DE steps (DESeq2, edgeR, limma-voom, PyDESeq2) read the sample names from the sheet's column named
`sample` and look each one up, exactly, among the matrix's columns: a sheet whose names column is called
otherwise (pasilla's `file`, GEO's `FileName`, an airway sheet's `id`), or whose names differ from the
matrix's only by case, by R's `make.names` ('1_wt' read back as 'X1_wt', 'MCL1-DG' as 'MCL1.DG') or by a
prefix/suffix (pasilla's 'treated1fb' against 'treated1'), planned a workflow whose DE step stopped at run
time. They are refused here, naming the column or the name pairs and the renaming that makes them match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bioplan.errors import AmbiguousInputError
from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import quote_list

_SHOWN = 4


def make_names(name: str) -> str:
    """R's make.names: what read.csv/read.table (check.names = TRUE) and data.frame turn a column name into."""
    out = re.sub(r"[^A-Za-z0-9._]", ".", name)
    if not out or not (out[0].isalpha() or (out[0] == "." and not out[1:2].isdigit())):
        out = "X" + out
    return out


def _affix_maps(missing: Sequence[str], columns: Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """One prefix or suffix, the same for every name, that turns each missing sheet name into one matrix
    column (or each column into the sheet name): pasilla's 'treated1fb' -> 'treated1'."""
    tries: list[tuple[str, Callable[[str, str], str | None]]] = [
        ("suffix", lambda s, c: s[len(c):] if s.startswith(c) and len(s) > len(c) else None),
        ("prefix", lambda s, c: s[:-len(c)] if s.endswith(c) and len(s) > len(c) else None),
        ("suffix", lambda s, c: c[len(s):] if c.startswith(s) and len(c) > len(s) else None),
        ("prefix", lambda s, c: c[:-len(s)] if c.endswith(s) and len(c) > len(s) else None),
    ]
    for kind, affix_of in tries:
        found: dict[str, dict[str, str]] = {}  # affix -> sheet name -> column
        for s in missing:
            for c in columns:
                if (a := affix_of(s, c)) is not None:
                    found.setdefault(a, {}).setdefault(s, c)
        for affix, mapping in found.items():
            if len(mapping) == len(missing) and len(set(mapping.values())) == len(mapping):
                return f"the {kind} '{affix}'", mapping
    return None


def name_mapping(missing: Sequence[str], columns: Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """How the sheet's names that are not matrix columns match the matrix's columns, if one rule maps every
    one of them to a distinct column: (the rule said, {sheet name: column})."""
    rules: list[tuple[str, Callable[[str], str]]] = [
        ("case", str.lower),
        ("R's make.names (an 'X' before a leading digit, '.' for '-' and spaces)", make_names),
    ]
    for said, key in rules:
        by_key: dict[str, list[str]] = {}
        for c in columns:
            by_key.setdefault(key(c), []).append(c)
        mapping = {s: by_key[key(s)][0] for s in missing if len(by_key.get(key(s), [])) == 1}
        if mapping and len(mapping) == len(missing) and len(set(mapping.values())) == len(mapping):
            return said, mapping
    return _affix_maps(missing, columns)


def check_sheet_against_matrix(sheet: SniffedFile, matrix: SniffedFile, listed: Sequence[str],
                               columns: Sequence[str]) -> None:
    """Refuse a sheet the DE step cannot match to the matrix: its names column not called 'sample', or its
    sample names differing from the columns by a rule that says how to rename them, or none in common; every
    problem found is said at once (pasilla's sheet has both)."""
    if sheet.fact("condition_column") is None:
        return  # no design: the matrix's samples are not compared by this sheet
    details: dict[str, object] = {"sample_sheet": sheet.path, "count_matrix": matrix.path}
    problems: list[str] = []
    hints: list[str] = []
    column = sheet.fact("sample_column")
    if column is not None and column.strip().lower() != "sample":
        problems.append(f"the sample names are in column '{column}', but the DE steps read them from a column "
                        "named 'sample'")
        hints.append(f"to resolve, rename the column '{column}' of {sheet.path} to 'sample' (the header line only)")
        details["sample_column"] = column
    missing = [s for s in listed if s not in set(columns)]
    found = name_mapping(missing, [c for c in columns if c not in set(listed)]) if missing else None
    if found is not None:
        rule, mapping = found
        pairs = ", ".join(f"'{s}' -> '{c}'" for s, c in list(mapping.items())[:_SHOWN])
        more = f" and {len(mapping) - _SHOWN} more" if len(mapping) > _SHOWN else ""
        problems.append(f"its samples are named {quote_list(missing)} while the columns of {matrix.path} are "
                        f"{quote_list(list(mapping.values()))}: they differ by {rule}, and the DE steps match "
                        "sample names exactly")
        hints.append(f"to resolve, rename the samples in {sheet.path} to the matrix's column names ({pairs}{more}), "
                     "or the matrix's columns to the sheet's names")
        if rule.startswith("R's"):
            hints.append("or read the matrix in R with check.names = FALSE (read.csv, read.delim, data.frame) "
                         "before writing it, which keeps the names as the sheet has them")
        details.update(rule=rule, renames=mapping)
    elif missing and len(missing) == len(listed):
        problems.append(f"none of its samples ({quote_list(list(listed))}) is a column of {matrix.path} (its "
                        f"columns: {quote_list(list(columns))}), and the DE steps match sample names exactly")
        hints.append("to resolve, give the sample sheet of this count matrix, or name the sheet's samples as the "
                     "matrix's columns are named")
    if problems:
        raise AmbiguousInputError(f"{sheet.path}: " + "; ".join(problems) + " (the workflow would stop at run time)",
                                  hints, details)
