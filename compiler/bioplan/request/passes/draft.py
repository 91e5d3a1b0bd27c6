"""The spec stage's working model: what the passes have decided so far.

Each pass of `request/spec.py`'s `SPEC_PASSES` takes a `SpecDraft` and returns a new one
(`dataclasses.replace`); nothing is changed in place. The stage's boundary model stays the frozen
pydantic `TaskSpec`, built from the last draft.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from bioplan.knowledge.models import Knowledge
from bioplan.models import DEFAULT_MAX_HOPS, PatientSample, Request, RequestedSetting, SniffedFile


@dataclass(frozen=True)
class SpecDraft:
    knowledge: Knowledge
    request: Request
    files: tuple[SniffedFile, ...]
    substitute: bool = False  # plan a tool the request names but bioplan lacks with its own
    allow_partial: bool = False  # plan what was understood when an analysis or instruction was not
    max_hops: int = DEFAULT_MAX_HOPS
    warnings: tuple[str, ...] = ()
    deviations: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()  # required operations, in order of decision
    successors: tuple[str, ...] = ()  # tools that run for a named tool bioplan lacks (Picard for GATK MarkDuplicates)
    preferred: tuple[str, ...] = ()  # tools the request names
    organism: str | None = None  # the organism constraint id
    constraints: Mapping[str, str] = field(default_factory=dict)  # organism/assay/layout/... -> value
    constraint_ids: tuple[str, ...] = ()
    data_facts: Mapping[str, bool] = field(default_factory=dict)
    cluster_column: str | None = None
    input_types: tuple[str, ...] = ()
    target: str | None = None
    gene_namespace: str | None = None
    gene_set_namespace: str | None = None
    patients: tuple[PatientSample, ...] = ()  # a tumour/normal cohort's samples by patient (passes/individuals.py)
    settings: tuple[RequestedSetting, ...] = ()  # settings of the request tools take (passes/honesty.py)

    def warn(self, *notes: str) -> SpecDraft:
        return replace(self, warnings=self.warnings + notes)

    def deviate(self, *notes: str) -> SpecDraft:
        return replace(self, deviations=self.deviations + notes)

    def with_anchors(self, *ops: str) -> SpecDraft:
        """The anchors plus `ops` (those not anchors yet), in order."""
        return replace(self, anchors=self.anchors + tuple(o for o in dict.fromkeys(ops) if o not in self.anchors))

    def constrain(self, key: str, value: str, constraint_id: str | None = None) -> SpecDraft:
        ids = self.constraint_ids + ((constraint_id,) if constraint_id else ())
        return replace(self, constraints={**self.constraints, key: value}, constraint_ids=ids)
