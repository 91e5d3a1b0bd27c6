"""The spec stage's passes (see `bioplan.request.spec.SPEC_PASSES` for their order)."""
