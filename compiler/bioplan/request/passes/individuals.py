"""Steps that read one individual's samples together (somatic calling: the tumour against its
matched normal) and a sample sheet of several individuals (nf-core/sarek's `patient` column).

bioplan runs such a step once over all the workflow's samples, so a cohort of tumour/normal pairs
would be called as one individual: refused, naming the patients, until the sheet's patient and
status columns wire one pair per patient.
"""

from __future__ import annotations

from bioplan.errors import UnsupportedAnalysisError
from bioplan.request.passes.draft import SpecDraft


def _patients(draft: SpecDraft) -> list[str]:
    """The individuals the sample sheet names (its `patients` fact), in sheet order."""
    return list(dict.fromkeys(p for f in draft.files if f.datatype == "sample_metadata"
                              for p in (f.fact("patients") or [])))


def refuse_several_individuals(draft: SpecDraft) -> SpecDraft:
    """A step of one individual (operations.yaml `one_individual`) with a sheet of several patients."""
    patients = _patients(draft)
    steps = [op for op in draft.anchors if draft.knowledge.operations[op].one_individual]
    if len(patients) < 2 or not steps:
        return draft
    labels = ", ".join(draft.knowledge.operations[op].label.lower() for op in steps)
    shown = ", ".join(patients[:10]) + (", ..." if len(patients) > 10 else "")
    raise UnsupportedAnalysisError(
        f"{labels} reads one individual's tumour and normal samples together, but the sample sheet lists "
        f"{len(patients)} patients ({shown}): bioplan does not pair the samples of each patient yet, and "
        "would call them as one individual",
        ["run one workflow per patient: its samples' FASTQ files, with its normal sample named by the "
         "caller's normal_sample param (Mutect2, Strelka2)"],
        {"patients": patients, "operations": steps})
