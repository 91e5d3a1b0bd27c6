"""Tools bioinformaticians name (issue 18) run with the real tools on the rnaseq example's reads.

- kallisto: the reads quantified against the transcriptome spliced from the example's genome and
  GTF (`gffread -w`); kallisto's transcript TPMs agree with Salmon's on the same data, and the
  gene counts tximport builds from kallisto's abundance.tsv are the truth and carry the planted
  fold changes.
- Trim Galore + STAR + htseq-count: the adapter read-through is trimmed away, and htseq-count's
  genes x samples table is the truth and carries the planted fold changes.
- Both pipelines compiled for Nextflow and run (`-profile local`, tools from PATH) give the same
  gene counts, and pipeline_info/software_versions.yml records each new tool's real version.
"""

from __future__ import annotations

import csv
import gzip
import math
import os
import shutil
import subprocess

import pandas as pd
import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, generate, keep_intermediates, require_tools, run_ok, truth
from test_examples_run import _log2fc

pytestmark = pytest.mark.e2e

SAMPLES = ("ctrl_1", "ctrl_2", "treated_1", "treated_2")


def _require(*binaries: str) -> None:
    require_tools("rnaseq_fastq")
    missing = [b for b in binaries if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    base = tmp_path_factory.mktemp("named_tools")
    d = generate(base, "rnaseq_fastq") / "rnaseq_fastq"
    return base, d


def _reads(d):
    return [str(d / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]


def _counts_match_truth(counts: pd.DataFrame, t: dict) -> None:
    """Every fragment counted once, to its gene (within 2 % + 3 of the truth); the planted genes
    change by their planted direction and the others do not."""
    assert list(counts.columns) == list(SAMPLES)
    true = pd.DataFrame(t["true_counts"]).loc[counts.index, counts.columns]
    assert ((counts - true).abs() <= 3 + 0.02 * true).all().all(), (counts - true)
    assert (counts.loc[t["not_expressed"]] == 0).all().all()
    observed = _log2fc(counts, t["samples"])
    for gene, planted in t["planted_fold_changes"].items():
        assert math.copysign(1, observed[gene]) == math.copysign(1, planted["log2fc"]) and abs(observed[gene]) > 1.5
    expressed = counts.index[(counts > 0).all(axis=1)]
    others = [g for g in expressed if g not in t["planted_fold_changes"]]
    assert observed[others].abs().max() < 1


# --------------------------------------------------------------------------- kallisto
def _quantify(base, d, tool: str):
    workdir = compile_workflow(f"mouse paired-end RNA-seq: quantify with {tool}, then gene-level counts with tximport",
                               [*_reads(d), str(d / "transcripts.fa"), str(d / "genes.gtf"), str(d / "samples.tsv")],
                               base / "out" / tool)
    run_ok(workdir)
    return workdir


@pytest.fixture(scope="module")
def quantified(data):
    _require("kallisto", "salmon", "gffread", "Rscript")
    base, d = data
    subprocess.run(["gffread", "-w", str(d / "transcripts.fa"), "-g", str(d / "genome.fa"), str(d / "genes.gtf")],
                   check=True, capture_output=True, env=env())
    return {tool: _quantify(base, d, tool) for tool in ("kallisto", "salmon")}, truth(base / "data", "rnaseq_fastq")


def test_kallisto_pseudoaligns_every_fragment(quantified):
    runs, t = quantified
    for sample in SAMPLES:
        quant = runs["kallisto"] / "results/transcript_quantification" / sample / "kallisto"
        info = (quant / "run_info.json").read_text()
        assert f'"n_processed": {t["read_pairs_per_sample"]}' in info
        assert f'"n_pseudoaligned": {t["read_pairs_per_sample"]}' in info


def test_kallisto_tpms_agree_with_salmon(quantified):
    runs, _ = quantified
    for sample in SAMPLES:
        with open(runs["kallisto"] / "results/transcript_quantification" / sample / "kallisto/abundance.tsv") as fh:
            kallisto = {r["target_id"]: float(r["tpm"]) for r in csv.DictReader(fh, delimiter="\t")}
        with open(runs["salmon"] / "results/transcript_quantification" / sample / sample / "quant.sf") as fh:
            salmon = {r["Name"]: float(r["TPM"]) for r in csv.DictReader(fh, delimiter="\t")}
        assert sorted(kallisto) == sorted(salmon)
        for tx, tpm in kallisto.items():
            # the same fragments, two estimators: within 10 % (log2 0.14) for every expressed transcript
            if salmon[tx] > 1000:
                assert abs(math.log2(tpm / salmon[tx])) < 0.14, (sample, tx, tpm, salmon[tx])
            else:
                assert tpm < 1000, (sample, tx, tpm, salmon[tx])


def test_tximport_gene_counts_from_kallisto_match_the_truth(quantified):
    runs, t = quantified
    counts = pd.read_csv(runs["kallisto"] / "results/quantification_aggregation/gene_counts.tsv", sep="\t")
    _counts_match_truth(counts.set_index("gene_id"), t)


# --------------------------------------------------------------------------- Trim Galore + htseq-count
@pytest.fixture(scope="module")
def trimmed_and_counted(data):
    _require("trim_galore", "cutadapt", "htseq-count", "STAR", "samtools")
    base, d = data
    workdir = compile_workflow("mouse paired-end RNA-seq FASTQ: trim with Trim Galore, align the reads to the "
                               "reference genome and count reads per gene with htseq-count",
                               [*_reads(d), str(d / "genome.fa"), str(d / "genes.gtf"), str(d / "samples.tsv")],
                               base / "out" / "trimgalore_htseq")
    keep_intermediates(workdir)  # the trimmed FASTQs (temp() unless kept) are read below
    run_ok(workdir)
    return workdir, truth(base / "data", "rnaseq_fastq")


def _fastq_lengths(path):
    with gzip.open(path, "rt") as fh:
        lines = fh.read().splitlines()
    return lines[1::4]


def test_trim_galore_removes_the_adapter_read_through(trimmed_and_counted):
    workdir, t = trimmed_and_counted
    adapter = {1: t["adapters"]["r1"][:13], 2: t["adapters"]["r2"][:13]}  # Trim Galore's 13 bp Illumina core
    for sample in SAMPLES:
        for mate in (1, 2):
            seqs = _fastq_lengths(workdir / "results/read_trimming" / sample / f"trimmed_{mate}.fastq.gz")
            assert len(seqs) == t["read_pairs_per_sample"]  # pairs stay in sync, none shorter than 20 bp
            assert not any(adapter[mate] in s for s in seqs), (sample, mate)
            shortened = sum(len(s) < t["read_length"] for s in seqs)
            # every pair reading into the adapter lost it (a few more lose low-quality or 1-2 bp
            # adapter-like tails, which Trim Galore's stringency of 1 bp also trims)
            assert shortened >= t["adapter_readthrough_pairs"][sample], (sample, mate, shortened)
        report = (workdir / "results/read_trimming" / sample / "trim_galore_report.txt").read_text()
        assert report.count("SUMMARISING RUN PARAMETERS") == 2 and "Trim Galore version: 0.6" in report


def test_htseq_count_table_matches_the_truth(trimmed_and_counted):
    workdir, t = trimmed_and_counted
    counts = pd.read_csv(workdir / "results/read_counting/counts.tsv", sep="\t").set_index("gene_id")
    assert not [g for g in counts.index if g.startswith("__")]
    _counts_match_truth(counts, t)
    raw = (workdir / "results/read_counting/htseq_counts.tsv").read_text()
    assert "__no_feature" in raw and "__ambiguous" in raw  # MultiQC's HTSeq module reads these


# --------------------------------------------------------------------------- the same pipelines on Nextflow
NEXTFLOW_CASES = {
    # name: (request, reference files, published gene counts, {process: (package, version)}): versions are
    # keyed by the bioconda package, as in nf-core
    "kallisto": ("mouse paired-end RNA-seq: quantify with kallisto, then gene-level counts with tximport",
                 ("transcripts.fa", "genes.gtf", "samples.tsv"),
                 "quantification_aggregation/all_samples.gene_counts.tsv",
                 {"TRANSCRIPTOME_INDEXING": ("kallisto", "0.48.0"),
                  "TRANSCRIPT_QUANTIFICATION": ("kallisto", "0.48.0")}),
    "trimgalore_htseq": ("mouse paired-end RNA-seq FASTQ: trim with Trim Galore, align the reads to the "
                         "reference genome and count reads per gene with htseq-count",
                         ("genome.fa", "genes.gtf", "samples.tsv"),
                         "read_counting/all_samples.counts.tsv",
                         {"READ_TRIMMING": ("trim-galore", "0.6.10"), "READ_COUNTING": ("htseq", "2.1.2")}),
}


@pytest.mark.parametrize("name", NEXTFLOW_CASES)
def test_nextflow_pipeline_gives_the_true_counts(data, name):
    import yaml

    from bioplan.compile import compile_request
    from test_nextflow_run import nextflow_bin
    from test_nextflow_run import run_ok as nextflow_run_ok

    _require("kallisto", "gffread", "Rscript", "trim_galore", "cutadapt", "htseq-count", "STAR", "samtools")
    nextflow_bin()  # skips (fails under CI) without a Nextflow runtime
    base, d = data
    query, references, counts_path, versions = NEXTFLOW_CASES[name]
    if not (d / "transcripts.fa").exists():
        subprocess.run(["gffread", "-w", str(d / "transcripts.fa"), "-g", str(d / "genome.fa"), str(d / "genes.gtf")],
                       check=True, capture_output=True, env=env())
    workdir = base / "nextflow" / name
    compile_request(query, [*_reads(d), *(str(d / f) for f in references)], str(workdir / "main.nf"),
                    target="nextflow", force=True)
    nextflow_run_ok(workdir)
    counts = pd.read_csv(workdir / "results" / counts_path, sep="\t").set_index("gene_id")
    _counts_match_truth(counts, truth(base / "data", "rnaseq_fastq"))
    recorded = yaml.safe_load((workdir / "results/pipeline_info/software_versions.yml").read_text())
    for process, (tool, version) in versions.items():
        assert recorded[process] == {tool: version}, recorded
