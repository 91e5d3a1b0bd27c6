"""Gene-body meta-profile (deepTools computeMatrix scale-regions, then plotProfile) on planted bigWig tracks.

Three 10 kb genes (one on the minus strand) on a 150 kb chromosome; two ChIP samples' bigWigs hold a
signal of 50 and 40 over the gene bodies and 2 elsewhere. The compiled workflow (nf-core/chipseq's
gene-body meta-profile: every gene scaled to 5 kb with 3 kb on each side, 50 bp bins) must give, for
every gene and sample, body bins at the planted body signal and flank bins at the background, the
samples labelled from the bigWig names, and the profile plot.
"""

from __future__ import annotations

import os
import shutil

import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, run_ok

pytestmark = pytest.mark.e2e

REQUEST = "ChIP-seq: gene-body meta-profile of the bigWig tracks with plotProfile"
GENES = (("g1", 20_000, 30_000, "+"), ("g2", 60_000, 70_000, "-"), ("g3", 100_000, 110_000, "+"))
BODY = {"chip_1": 50.0, "chip_2": 40.0}
BACKGROUND = 2.0
FLANK_BINS, BODY_BINS = 3000 // 50, 5000 // 50


def plant(folder) -> list[str]:
    import pyBigWig

    with open(folder / "genes.gtf", "w") as fh:
        for gene, start, end, strand in GENES:
            for feature in ("gene", "transcript", "exon"):
                fh.write(f'chr1\tplanted\t{feature}\t{start + 1}\t{end}\t.\t{strand}\t.\t'
                         f'gene_id "{gene}"; transcript_id "{gene}.1";\n')
    paths = []
    for sample, body in BODY.items():
        bw = pyBigWig.open(str(folder / f"{sample}.bw"), "w")
        bw.addHeader([("chr1", 150_000)])
        starts = list(range(0, 150_000, 50))
        values = [body if any(s <= p < e for _, s, e, _ in GENES) else BACKGROUND for p in starts]
        bw.addEntries("chr1", starts, values=values, span=50)
        bw.close()
        paths.append(str(folder / f"{sample}.bw"))
    return [*paths, str(folder / "genes.gtf")]


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    pytest.importorskip("pyBigWig")
    missing = [b for b in ("computeMatrix", "plotProfile", "snakemake") if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("genebody")
    workdir = compile_workflow(REQUEST, plant(base), base / "out")
    run_ok(workdir)
    return workdir


def test_body_bins_hold_the_planted_signal_and_flanks_the_background(profiled):
    # computeMatrix --outFileNameMatrix: two '#' lines, a header 'genes:N' + one sample label per bin, a row per gene
    lines = (profiled / "results/gene_body_signal_computation/genebody.tab").read_text().splitlines()
    header = next(line.split("\t") for line in lines if line.startswith("genes:"))
    per_sample = 2 * FLANK_BINS + BODY_BINS
    assert header[1:] == [s for s in BODY for _ in range(per_sample)]  # labelled from the bigWig names
    rows = [[float(v) for v in line.split("\t")] for line in lines[lines.index("\t".join(header)) + 1:] if line]
    assert len(rows) == len(GENES), len(rows)
    for row in rows:
        for i, (sample, body) in enumerate(BODY.items()):
            bins = row[i * per_sample:(i + 1) * per_sample]
            flank = bins[:FLANK_BINS - 2] + bins[-(FLANK_BINS - 2):]
            inside = bins[FLANK_BINS + 2:FLANK_BINS + BODY_BINS - 2]
            assert all(abs(v - body) < 1.0 for v in inside), (sample, inside[:5])
            assert all(abs(v - BACKGROUND) < 0.5 for v in flank), (sample, flank[:5])
    plots = profiled / "results/signal_profile_plotting"  # named for the gene bodies, not the TSS
    assert sorted(p.name for p in plots.iterdir()) == ["genebody_profile.png", "genebody_profile.tab"]
    assert (plots / "genebody_profile.png").stat().st_size > 0
