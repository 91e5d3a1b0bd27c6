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
import shlex
from collections.abc import Callable, Sequence

from bioplan.errors import AmbiguousInputError
from bioplan.models import SniffedFile
from bioplan.request.sniffers.base import quote_list
from bioplan.request.sniffers.tables import ROW_NAMES

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


def _name_first_cell(path: str, name: str, missing: bool) -> str:
    """The command that names the header line's first field `name`: put before the line when R's write.table
    left the cell out (`missing`), else in place of an empty or "" first cell (R's write.csv)."""
    out = re.sub(r"(\.[A-Za-z]+)?$", lambda m: ".named" + (m.group(1) or ""), path, count=1)
    if missing:
        sep = "," if path.lower().endswith(".csv") else "\\t"
        return f"sed '1s/^/{name}{sep}/' {shlex.quote(path)} > {shlex.quote(out)}"
    return f"sed -E '1s/^(\"\")?/{name}/' {shlex.quote(path)} > {shlex.quote(out)}"


def check_sheet_against_matrix(sheet: SniffedFile, matrix: SniffedFile, listed: Sequence[str],
                               columns: Sequence[str]) -> None:
    """Refuse a sheet the DE step cannot match to the matrix: its names column not called 'sample', or its
    sample names differing from the columns by a rule that says how to rename them, or none in common; every
    problem found is said at once (pasilla's sheet has both)."""
    if sheet.fact("condition_column") is None:
        several = next((e for e in sheet.evidence if e.startswith("several candidate condition columns")), None)
        if several is not None and not sheet.fact("fastq_columns"):  # the DE steps would read a column 'condition'
            raise AmbiguousInputError(
                f"the sample sheet {sheet.path} of the count matrix {matrix.path} has no column named as a condition "
                f"(condition, group, treatment, genotype, ...) and {several.split(';')[0]}: the DE steps would "
                "look for a column 'condition' and stop at run time",
                [f"to resolve, rename the column holding the groups to compare to 'condition' in {sheet.path}"],
                {"sample_sheet": sheet.path, "count_matrix": matrix.path})
        return  # no design: the matrix's samples are not compared by this sheet
    details: dict[str, object] = {"sample_sheet": sheet.path, "count_matrix": matrix.path}
    problems: list[str] = []
    hints: list[str] = []
    column = sheet.fact("sample_column")
    if column is not None and column.strip().lower() != "sample":
        unnamed = not column.strip() or column == ROW_NAMES
        where = "its first column, which has no name" if unnamed else f"the column '{column}'"
        problems.append(f"the sheet's sample names are in {where}, but the DE steps read them from a column named "
                        "'sample'")
        hints.append(f"to resolve, name that column 'sample' in the header line of {sheet.path}: "
                     f"{_name_first_cell(sheet.path, 'sample', column == ROW_NAMES)}" if unnamed else
                     f"to resolve, rename the column '{column}' to 'sample' in the header line of {sheet.path}")
        details["sample_column"] = column
    if matrix.fact("header_without_id_cell"):
        problems.append("the matrix's header line has no name over the gene ids (R's write.table with row names), "
                        "so the DE steps would read its first sample as the id column")
        hints.append(f"to resolve, name the id column: {_name_first_cell(matrix.path, 'gene_id', True)}")
    missing = [s for s in listed if s not in set(columns)]
    found = name_mapping(missing, [c for c in columns if c not in set(listed)]) if missing else None
    if found is not None:
        rule, mapping = found
        pairs = ", ".join(f"'{s}' -> '{c}'" for s, c in list(mapping.items())[:_SHOWN])
        more = f" and {len(mapping) - _SHOWN} more" if len(mapping) > _SHOWN else ""
        problems.append(f"the sheet's samples are named {quote_list(missing)} while the matrix's columns are "
                        f"{quote_list(list(mapping.values()))}: they differ by {rule}, and the DE steps match "
                        "sample names exactly")
        hints.append(f"to resolve, rename the samples in {sheet.path} to the matrix's column names ({pairs}{more}), "
                     "or the matrix's columns to the sheet's names")
        if rule.startswith("R's"):
            hints.append("or read the matrix in R with check.names = FALSE (read.csv, read.delim, data.frame) "
                         "before writing it, which keeps the names as the sheet has them")
        details.update(rule=rule, renames=mapping)
    elif missing and len(missing) == len(listed):
        problems.append(f"none of the sheet's samples ({quote_list(list(listed))}) is a column of the matrix (its "
                        f"columns: {quote_list(list(columns))}), and the DE steps match sample names exactly")
        hints.append("to resolve, give the sample sheet of this count matrix, or name the sheet's samples as the "
                     "matrix's columns are named")
    if problems:
        raise AmbiguousInputError(
            f"the sample sheet {sheet.path} and the count matrix {matrix.path} do not match as the DE steps read "
            "them (the workflow would stop at run time): " + "; ".join(problems), hints, details)
