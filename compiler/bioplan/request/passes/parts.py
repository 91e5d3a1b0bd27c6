"""Several input files of a cohort datatype that comes in parts (datatypes.yaml `parts`): VCFs.

One VCF is the study's call set; several VCFs are parts of one: per-sample files when their
#CHROM lines list different samples (merged: bcftools merge), per-region files when they list the
same samples (concatenated: bcftools concat). Each part becomes one sample sheet row, named by its
file name.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import PurePath

from bioplan.errors import AmbiguousInputError
from bioplan.knowledge.models import Knowledge
from bioplan.models import SniffedFile
from bioplan.request.passes.draft import SpecDraft

_PART_SUFFIXES = (".vcf.gz", ".vcf.bgz", ".vcf", ".bcf", ".gz")


def part_name(path: str) -> str:
    """The sample sheet name of a part: its file name without the format's extension."""
    name = PurePath(path).name
    for suffix in _PART_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _part_datatype(knowledge: Knowledge, datatype: str, files: list[SniffedFile]) -> str:
    """Per-region parts when every file lists the same samples, per-sample parts otherwise."""
    parts = knowledge.datatypes[datatype].parts
    assert parts is not None
    columns = {tuple(f.fact("samples") or ()) for f in files}
    return parts.same_samples if len(columns) == 1 and columns != {()} else parts.distinct_samples


def _unique_names(files: list[SniffedFile]) -> None:
    counts = Counter(part_name(f.path) for f in files)
    repeated = sorted(n for n, c in counts.items() if c > 1)
    if repeated:
        clash = [f.path for f in files if part_name(f.path) in repeated]
        raise AmbiguousInputError(
            f"two input files would be the same sample sheet row {repeated[0]!r}: " + ", ".join(clash),
            ["give each VCF a distinct file name (its name names its row of the sample sheet)"],
            {"files": clash})


def read_repeated_parts(draft: SpecDraft) -> SpecDraft:
    """Several files of a cohort datatype with `parts` are read as its parts, said in a warning."""
    knowledge = draft.knowledge
    counts = Counter(f.datatype for f in draft.files)
    files = list(draft.files)
    notes = []
    for dt, n in sorted(counts.items()):
        entry = knowledge.datatypes.get(dt)
        if n < 2 or entry is None or entry.scope != "cohort" or entry.parts is None:
            continue
        group = [f for f in files if f.datatype == dt]
        _unique_names(group)
        part = _part_datatype(knowledge, dt, group)
        why = ("they list the same samples" if part == entry.parts.same_samples
               else "their sample columns differ")
        files = [f.model_copy(update={"datatype": part, "sample": part_name(f.path),
                                      "evidence": f.evidence + (f"one of {n} {dt} files, {why}: {part}",)})
                 if f.datatype == dt else f for f in files]
        notes.append(f"{n} {knowledge.datatypes[dt].label.lower()} files are read as "
                     f"{knowledge.datatypes[part].label.lower()}: {why}")
    return replace(draft, files=tuple(files)).warn(*notes) if notes else draft
