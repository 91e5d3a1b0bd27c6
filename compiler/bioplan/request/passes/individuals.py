"""Steps that read one individual's samples together (somatic calling: the tumour against its
matched normal) and a sample sheet of several individuals (nf-core/sarek's `patient` column).

A sheet with a patient column and a tumour/normal status column beside it pairs the samples: each
patient's tumour(s) with its normal, and the steps of one individual (operations.yaml
`one_individual`) run once per patient (`TaskSpec.patients`; codegen/passes.py groups those steps
by patient). A sheet that cannot be paired is refused naming its rows: a status that is neither
tumour nor normal, two normals of one patient, a patient without a tumour, a row whose sample has
no reads among the inputs (or reads whose sample the sheet does not list). Several patients and
no status column is refused too: bioplan would not know which sample is the normal. A status column
without a patient column is one individual (`patient_1`): its normal comes from the sheet too.
What the bound caller needs on top (a normal for Strelka2, one tumour per patient) is checked when
the tool is known (codegen/passes.py `check_pairing`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from bioplan.errors import AmbiguousInputError, UnsupportedAnalysisError
from bioplan.models import PatientSample, SniffedFile
from bioplan.request.passes.draft import SpecDraft

# a status cell as sheets write it (sarek: 1 tumour, 0 normal; TCGA-style words; T/N)
TUMOUR_WORDS = frozenset({"1", "tumour", "tumor", "t", "cancer", "malignant", "primary", "metastasis",
                          "metastatic", "relapse", "recurrence", "somatic"})
NORMAL_WORDS = frozenset({"0", "normal", "n", "germline", "blood", "control", "healthy", "matched_normal",
                          "matched normal", "pbmc", "buffy_coat"})
_SHOWN = 10  # rows named in one message


def _patients(draft: SpecDraft) -> list[str]:
    """The individuals the sample sheet names (its `patients` fact), in sheet order."""
    return list(dict.fromkeys(p for f in draft.files if f.datatype == "sample_metadata"
                              for p in (f.fact("patients") or [])))


def _sheet(draft: SpecDraft) -> SniffedFile | None:
    """The sample sheet that names patients or tumour/normal statuses."""
    return next((f for f in draft.files if f.datatype == "sample_metadata"
                 and (f.fact("patients") or f.fact("patient_rows"))), None)


# the one individual of a sheet with a status column and no patient column
ONE_INDIVIDUAL = "patient_1"


def status_of(value: str) -> Literal["tumour", "normal"] | None:
    """'tumour' or 'normal' for a status cell, None when it is neither."""
    word = value.strip().lower().replace("-", "_")
    if word in TUMOUR_WORDS:
        return "tumour"
    return "normal" if word in NORMAL_WORDS or word.replace("_", " ") in NORMAL_WORDS else None


def _rows_named(rows: list[list], limit: int = _SHOWN) -> str:
    shown = "; ".join(f"data row {r[0]}: sample '{r[1]}', patient '{r[2]}', status '{r[3]}'" for r in rows[:limit])
    return shown + (" ..." if len(rows) > limit else "")


def _pairing_error(sheet: SniffedFile, what: str, rows: list[list], fix: str) -> AmbiguousInputError:
    return AmbiguousInputError(
        f"{sheet.path}: {what}: {_rows_named(rows)}",
        [f"to resolve, {fix}",
         "the sheet pairs samples as nf-core/sarek's does: one row per sample with its patient and its status "
         "(1 or tumour for a tumour, 0 or normal for the matched normal)"],
        {"sheet": sheet.path, "rows": [r[0] for r in rows]})


def _one_row_per_sample(sheet: SniffedFile, rows: list[list]) -> list[list]:
    """The first row of each sample: a sample's further rows are its other lanes (nf-core/sarek's `lane`
    column), which must name the same patient and status."""
    first: dict[str, list] = {}
    clashes = []
    for r in rows:
        seen = first.setdefault(r[1], r)
        if seen is not r and (seen[2], status_of(seen[3])) != (r[2], status_of(r[3])):
            clashes += [seen, r]
    if clashes:
        raise _pairing_error(sheet, "rows of one sample (its lanes) with different patients or statuses", clashes,
                             "give every row of a sample the same patient and status")
    return list(first.values())


def _classified(sheet: SniffedFile, rows: list[list]) -> list[PatientSample]:
    """Each row as a patient's tumour or normal; unknown status values and rows without a patient refused."""
    unknown = [r for r in rows if status_of(r[3]) is None]
    if unknown:
        raise _pairing_error(sheet, f"status value(s) neither tumour nor normal in column "
                             f"'{sheet.fact('status_column')}'", unknown,
                             "write 1 (or tumour) for a tumour and 0 (or normal) for its matched normal")
    no_patient = [r for r in rows if not r[2]]
    if no_patient:
        raise _pairing_error(sheet, f"row(s) without a patient in column '{sheet.fact('patient_column')}'",
                             no_patient, "name each sample's patient")
    return [PatientSample(sample=r[1], patient=r[2], status=status_of(r[3]) or "tumour") for r in rows]


def _check_groups(sheet: SniffedFile, rows: list[list], paired: list[PatientSample]) -> None:
    """Every patient has one normal at most and a tumour."""
    by_patient: dict[str, list[int]] = {}
    for i, s in enumerate(paired):
        by_patient.setdefault(s.patient, []).append(i)
    two_normals = [rows[i] for idx in by_patient.values() if sum(paired[i].status == "normal" for i in idx) > 1
                   for i in idx if paired[i].status == "normal"]
    if two_normals:
        raise _pairing_error(sheet, "several normal samples for one patient (a tumour is called against one "
                             "matched normal)", two_normals,
                             "keep one normal row per patient (merge the normal's lanes into one sample), or give "
                             "the other normal its own patient")
    no_tumour = [rows[i] for idx in by_patient.values() if all(paired[i].status == "normal" for i in idx)
                 for i in idx]
    if no_tumour:
        raise _pairing_error(sheet, "patient(s) with a normal sample and no tumour (nothing to call somatic "
                             "variants in)", no_tumour, "add the patient's tumour row, or remove the patient")


def _check_samples_have_reads(draft: SpecDraft, sheet: SniffedFile, rows: list[list]) -> None:
    """The sheet's samples are the per-sample input files' samples, both ways."""
    given = {f.sample for f in draft.files if f.sample is not None
             and draft.knowledge.datatypes[f.datatype].scope == "sample"}
    if not given:
        return  # no per-sample files given: the workflow's sample sheet is the user's to fill
    listed = {r[1] for r in rows}
    without_reads = [r for r in rows if r[1] not in given]
    if without_reads:
        raise _pairing_error(sheet, "sample(s) with no reads or alignments among the inputs", without_reads,
                             "give each listed sample's files (named after the sample, e.g. p1_tumour_R1.fastq.gz), "
                             "or correct the sample names")
    unlisted = sorted(given - listed)
    if unlisted:
        raise AmbiguousInputError(
            f"{sheet.path} does not list the sample(s) {', '.join(repr(s) for s in unlisted[:_SHOWN])} whose files "
            "are inputs: their patient and tumour/normal status are unknown",
            [f"to resolve, add a row per sample to {sheet.path} with its patient and status, or leave their "
             "files out"], {"sheet": sheet.path, "samples": unlisted})


def pair_tumours_with_normals(draft: SpecDraft) -> SpecDraft:
    """A step of one individual (operations.yaml `one_individual`) with a sheet naming patients: each
    patient's samples paired from the status column, for the steps to run once per patient."""
    steps = [op for op in draft.anchors if draft.knowledge.operations[op].one_individual]
    # a cohort step whose tool takes the normals from the sheet (CNVkit's pooled reference) pairs them too
    pairing = {t.implements for t in draft.knowledge.tools.values() if t.pairing is not None}
    reads_normals = [op for op in draft.anchors if op in pairing]
    patients = _patients(draft)
    sheet = _sheet(draft)
    if not (steps or reads_normals) or sheet is None:
        return draft
    rows = sheet.fact("patient_rows")
    if rows is None:
        if len(patients) < 2 or not steps:
            return draft  # one individual: the caller's normal_sample param names the normal, as before
        labels = ", ".join(draft.knowledge.operations[op].label.lower() for op in steps)
        shown = ", ".join(patients[:_SHOWN]) + (", ..." if len(patients) > _SHOWN else "")
        raise UnsupportedAnalysisError(
            f"{labels} reads each patient's tumour and normal samples together, and the sample sheet lists "
            f"{len(patients)} patients ({shown}) but no tumour/normal status column: which sample of each "
            "patient is the normal is unknown",
            [f"to resolve, add a 'status' column to {sheet.path} (1 or tumour for a tumour, 0 or normal for the "
             "matched normal), as nf-core/sarek's sample sheet has"],
            {"patients": patients, "operations": steps})
    if sheet.fact("patient_column") is None:  # a status column alone: the samples of one individual
        rows = [[r[0], r[1], ONE_INDIVIDUAL, r[3]] for r in rows]
    rows = _one_row_per_sample(sheet, rows)
    paired = _classified(sheet, rows)
    _check_groups(sheet, rows, paired)
    _check_samples_have_reads(draft, sheet, rows)
    return replace(draft, patients=tuple(paired))
