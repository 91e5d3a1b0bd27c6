"""deepTools plots are named after the matrix they plot: a gene-body meta-profile is genebody_profile.png,
a TSS profile tss_profile.png (plotProfile and plotHeatmap once wrote tss_* for every matrix). IR level."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from bioplan.codegen.ir import synthesize
from bioplan.compile import plan_request


@pytest.mark.parametrize(("query", "kind"), [
    ("ChIP-seq: gene-body meta-profile of the bigWig tracks with plotProfile", "genebody"),
    ("ChIP-seq: TSS profile of the bigWig tracks with plotProfile", "tss"),
    ("ChIP-seq: gene-body heatmap of the bigWig tracks with plotHeatmap", "genebody"),
    ("ChIP-seq: TSS heatmap of the bigWig tracks with plotHeatmap", "tss"),
])
def test_plot_files_say_which_regions_they_profile(knowledge, query, kind):
    result = plan_request(query, [], knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0])
    plots = [s for s in workflow.steps if s.tool in ("deeptools_plotprofile", "deeptools_plotheatmap")]
    assert plots, [s.tool for s in workflow.steps]
    names = [PurePosixPath(p.ref.path).name for s in plots for p in s.outputs]
    assert names and all(n.startswith(f"{kind}_") for n in names), names
    other = "tss" if kind == "genebody" else "genebody"
    assert not any(other in p.ref.path for s in workflow.steps for p in s.outputs), names
