"""Reference-guided transcript assembly (issue 18): HISAT2 then StringTie on the rnaseq example.

The example's reads come from known transcripts of genes.gtf with known counts per sample. The
compiled workflow aligns with HISAT2 and assembles each sample's transcripts with StringTie,
guided by the example's GTF:
- every gene with at least 100 true fragments in a sample is assembled there as a transcript
  carrying the guide's ids (reference_id / ref_gene_id), and the gene left unexpressed is not;
- every assembled transcript matching the guide has the guide's exon chain (the reads were cut
  from those spliced transcripts);
- StringTie's gene abundance table gives the unexpressed gene a TPM of 0 and each planted
  up-regulated gene a higher TPM in the treated samples than in the controls.
"""

from __future__ import annotations

import csv
import os
import shutil
from collections import defaultdict

import pytest
from e2e_support import INSTALL_HINT, compile_workflow, env, generate, run_ok, truth

pytestmark = pytest.mark.e2e

SAMPLES = ("ctrl_1", "ctrl_2", "treated_1", "treated_2")
QUERY = ("mouse RNA-seq: align the reads with HISAT2 and assemble the transcripts with StringTie "
         "guided by the annotation")


def _attributes(column: str) -> dict[str, str]:
    out = {}
    for part in column.strip().rstrip(";").split(";"):
        key, _, value = part.strip().partition(" ")
        out[key] = value.strip('"')
    return out


def _exon_chains(gtf_text: str, key: str) -> dict[str, tuple]:
    chains = defaultdict(list)
    for line in gtf_text.splitlines():
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 9 or cols[2] != "exon":
            continue
        attrs = _attributes(cols[8])
        if key in attrs:
            chains[attrs[key]].append((cols[0], int(cols[3]), int(cols[4])))
    return {k: tuple(sorted(v)) for k, v in chains.items()}


@pytest.fixture(scope="module")
def assembled(tmp_path_factory):
    missing = [b for b in ("hisat2", "hisat2-build", "samtools", "stringtie", "snakemake")
               if shutil.which(b, path=env()["PATH"]) is None]
    if missing:
        message = f"{', '.join(missing)} missing; {INSTALL_HINT}"
        pytest.fail(message) if os.environ.get("CI", "").lower() == "true" else pytest.skip(message)
    base = tmp_path_factory.mktemp("stringtie")
    d = generate(base, "rnaseq_fastq") / "rnaseq_fastq"
    reads = [str(d / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
    workdir = compile_workflow(QUERY, [*reads, str(d / "genome.fa"), str(d / "genes.gtf")], base / "out")
    run_ok(workdir)
    return workdir, d, truth(base / "data", "rnaseq_fastq")


def test_expressed_genes_are_assembled_with_the_guide_ids(assembled):
    workdir, d, t = assembled
    guide = _exon_chains((d / "genes.gtf").read_text(), "transcript_id")
    for sample in SAMPLES:
        text = (workdir / "results/transcript_assembly" / sample / "transcripts.gtf").read_text()
        genes = {_attributes(line.split("\t")[8]).get("ref_gene_id") for line in text.splitlines()
                 if not line.startswith("#") and line.split("\t")[2] == "transcript"}
        expressed = {g for g, n in t["true_counts"][sample].items() if n >= 100}
        # most of the example's genes are expressed that well (7 of its 10 in ctrl_1)
        assert 2 * len(expressed) >= len(t["true_counts"][sample]) and expressed <= genes, (
            sample, sorted(expressed - genes))
        assert not genes & set(t["not_expressed"]), sample
        matched = _exon_chains(text, "reference_id")
        assert len(matched) >= len(expressed)
        for tx, chain in matched.items():
            assert chain == guide[tx], (sample, tx)


def test_gene_abundance_follows_the_truth(assembled):
    workdir, _, t = assembled
    tpm = {}
    for sample in SAMPLES:
        with open(workdir / "results/transcript_assembly" / sample / "gene_abundance.tsv") as fh:
            tpm[sample] = {r["Gene ID"]: float(r["TPM"]) for r in csv.DictReader(fh, delimiter="\t")}
        for gene in t["not_expressed"]:
            assert tpm[sample].get(gene, 0.0) == 0.0, (sample, gene)
    treated = [s for s in SAMPLES if s.startswith("treated")]
    controls = [s for s in SAMPLES if s.startswith("ctrl")]
    for gene, planted in t["planted_fold_changes"].items():
        if planted["log2fc"] > 0:
            assert min(tpm[s][gene] for s in treated) > max(tpm[s][gene] for s in controls), gene
