"""Hostile names, run for real: sample names, input paths and the workflow directory contain
spaces, quotes, `;` and `|`, and the count matrix's sample names `$(touch INJECTED)` and backticks (ids and paths
holding '$' or '`' are refused: SLURM's --wrap, tests/test_attacks_round7.py). The workflows must treat them as data:
correct results and no canary file (INJECTED*) anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from e2e_support import (
    ROOT,
    compile_workflow,
    few_fastqc_contaminants,
    generate,
    injected,
    inputs,
    request,
    require_tools,
    run_ok,
    truth,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("e2e_hostile")
    data = generate(base, "hostile")
    yield base, data / "hostile", truth(data, "hostile")
    canaries = injected(base, ROOT, Path.cwd())
    canaries += [Path(d) / n for d in (Path.home(), Path("/tmp")) for n in os.listdir(d) if n.startswith("INJECTED")]
    assert not canaries, f"a name was executed: {canaries}"


def test_hostile_counts_to_de(hostile):
    require_tools("bulk_de")
    base, data, t = hostile
    workdir = compile_workflow(request("hostile"), inputs(base / "data", "hostile"),
                               base / "out" / "counts 'x';touch INJECTED")
    run_ok(workdir)
    assert not injected(base)
    de = pd.read_csv(workdir / "results/differential_expression/deseq2_results.tsv", sep="\t").set_index("gene_id")
    # the bulk_de counts under hostile sample names: the planted genes come out, and only they
    bulk = generate(base / "bulk", "bulk_de")
    planted = truth(bulk, "bulk_de")
    up = [g["ensembl_gene_id"] for g in planted["de_up"]]
    down = [g["ensembl_gene_id"] for g in planted["de_down"]]
    assert (de.loc[up, "padj"] < 0.05).all() and (de.loc[up, "log2FoldChange"] > 1).all()
    assert (de.loc[down, "padj"] < 0.05).all() and (de.loc[down, "log2FoldChange"] < -1).all()
    called = set(de.index[(de["padj"] < 0.05) & (de["log2FoldChange"].abs() > 1)])
    assert called == set(up) | set(down)


def test_hostile_fastq_to_counts(hostile):
    require_tools("rnaseq_fastq")
    base, data, t = hostile
    reads = t["reads"]
    files = [str(p) for p in sorted((data / "reads").glob("*.fastq.gz"))]
    files += [str(data / reads["genome"]), str(data / reads["annotation"]), str(data / reads["samples"])]
    workdir = compile_workflow(request("rnaseq_fastq"), files, base / "out" / "reads; touch INJECTED_BT |")
    few_fastqc_contaminants(workdir, base)  # 250 pairs a sample: each read is over FastQC's threshold
    run_ok(workdir)
    assert not injected(base)
    counts = pd.read_csv(workdir / "results/read_counting/counts.tsv", sep="\t").set_index("gene_id")
    names = sorted(reads["sample_names"].values())
    assert sorted(counts.columns) == names  # the hostile names, verbatim, as columns
    true = pd.DataFrame(reads["true_counts"]).loc[counts.index, counts.columns]
    assert ((counts - true).abs() <= 2 + 0.02 * true).all().all(), counts - true
