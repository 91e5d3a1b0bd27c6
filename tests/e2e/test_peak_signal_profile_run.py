"""Signal heatmap over peaks (deepTools computeMatrix reference-point on the peak centres, then plotHeatmap).

Two ChIP samples' bigWigs hold a signal of 60 and 30 over three planted binding sites and 2 elsewhere on a
100 kb chromosome; the narrowPeak file calls the sites, two of its peaks overlapping (one site called twice,
as per-sample peak files pooled often are). The compiled workflow must merge the overlapping calls into one
region (one row per site), centre every row on its site (the central bins at the planted signal, the bins
2 kb away at the background), label the samples from the bigWig names and draw the heatmap.
"""

from __future__ import annotations

import pytest
from e2e_support import compile_workflow, require_binaries, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "ChIP-seq: draw a heatmap of the signal over the peaks of the bigWig tracks with plotHeatmap"
SITES = ((20_000, 20_600), (50_000, 50_400), (80_000, 80_800))
CALLS = ((20_000, 20_400), (20_200, 20_600), (50_000, 50_400), (80_000, 80_800))  # the first site called twice
SIGNAL = {"chip_1": 60.0, "chip_2": 30.0}
BACKGROUND = 2.0
BINS = 2000 // 50  # bins on each side of the centre


def plant(folder) -> list[str]:
    import pyBigWig

    with open(folder / "peaks.narrowPeak", "w") as fh:
        for i, (start, end) in enumerate(CALLS, 1):
            fh.write(f"chr1\t{start}\t{end}\tpeak_{i}\t500\t.\t12.5\t8.1\t6.2\t{(end - start) // 2}\n")
    paths = []
    for sample, signal in SIGNAL.items():
        bw = pyBigWig.open(str(folder / f"{sample}.bw"), "w")
        bw.addHeader([("chr1", 100_000)])
        starts = list(range(0, 100_000, 50))
        values = [signal if any(s <= p < e for s, e in SITES) else BACKGROUND for p in starts]
        bw.addEntries("chr1", starts, values=values, span=50)
        bw.close()
        paths.append(str(folder / f"{sample}.bw"))
    return [*paths, str(folder / "peaks.narrowPeak")]


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    pytest.importorskip("pyBigWig")
    require_binaries("computeMatrix", "plotHeatmap", "snakemake")
    base = tmp_path_factory.mktemp("peakheatmap")
    workdir = compile_workflow(REQUEST, plant(base), base / "out")
    run_ok(workdir)
    return workdir


def test_one_row_per_site_centred_on_it(profiled):
    step = profiled / "results/region_signal_computation"
    regions = [line.split("\t")[:3] for line in (step / "peaks.regions.bed").read_text().splitlines()
               if line and not line.startswith("#")]
    assert sorted((int(s), int(e)) for _, s, e in regions) == list(SITES)  # the overlapping calls merged
    lines = (step / "peaks.tab").read_text().splitlines()
    header = next(line.split("\t") for line in lines if line.startswith("genes:"))
    assert header[1:] == [s for s in SIGNAL for _ in range(2 * BINS)]  # labelled from the bigWig names
    rows = [[float(v) for v in line.split("\t")] for line in lines[lines.index("\t".join(header)) + 1:] if line]
    assert len(rows) == len(SITES), len(rows)
    for row in rows:
        for i, (sample, signal) in enumerate(SIGNAL.items()):
            bins = row[i * 2 * BINS:(i + 1) * 2 * BINS]
            assert all(abs(v - signal) < 1.0 for v in bins[BINS - 3:BINS + 3]), (sample, bins[BINS - 3:BINS + 3])
            assert all(abs(v - BACKGROUND) < 0.5 for v in bins[:5] + bins[-5:]), (sample, bins[:5])


def test_the_heatmap_is_drawn_named_after_the_peaks(profiled):
    plots = profiled / "results/signal_profile_plotting"
    assert sorted(p.name for p in plots.iterdir()) == ["peaks_heatmap.mat.gz", "peaks_heatmap.png"]
    assert (plots / "peaks_heatmap.png").stat().st_size > 0
