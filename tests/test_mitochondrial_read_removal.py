"""Mitochondrial read removal (nf-core/atacseq's default `--keep_mito false`): the words people write for it are
the operation, in English and Chinese, never in a single-cell study's mitochondrial QC nor when negated; planned,
it sits after duplicate marking and feeds the peaks and the bigWigs (samtools_mito_filter); an ATAC-seq pipeline
named without its steps removes them, a ChIP-seq one does not. Spec-level but for three plans (~0.6 CPU-s)."""

from __future__ import annotations

import subprocess

import pytest

from bioplan.compile import plan_request
from bioplan.models import InputProfile
from bioplan.paths import templates_dir
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec

OP = "mitochondrial_read_removal"


def _ops(knowledge, query):
    request = parse_request(query, knowledge)
    return build_spec(request, InputProfile(), knowledge).required_operations, request.unrecognized


@pytest.mark.parametrize("query", [
    "ATAC-seq pipeline: trim with cutadapt, align with bowtie2, remove mitochondrial reads and duplicates, call "
    "peaks with MACS2, make bigwigs",
    "align ATAC-seq reads, remove reads mapping to chrM, call peaks",
    "align the ATAC-seq reads with bowtie2; reads aligned to the mitochondrial genome were removed; then call peaks",
    "ATAC-seq: exclude chrM reads, call peaks",
    "ATAC-seq: discard the mtDNA reads and call peaks with MACS2",
    "CUT&RUN: align with bowtie2, filter out mitochondrial reads, call peaks with MACS2",
    "ATAC-seq：比对后去除比对到线粒体的reads，再call峰",
    "ATAC-seq数据比对后去除PCR重复，去除线粒体reads，再用MACS2找峰",
])
def test_mitochondrial_reads_removed_is_the_operation(knowledge, query):
    ops, unrecognized = _ops(knowledge, query)
    assert OP in ops
    assert not {"remove", "removed", "exclude", "mitochondrial", "chrm", "mtdna"} & set(unrecognized)


@pytest.mark.parametrize("query", [
    "ATAC-seq: align with bowtie2, do not remove mitochondrial reads, call peaks with MACS2",
    "scRNA-seq: filter cells with more than 20% mitochondrial reads, then cluster",
    "ATAC-seq: align the reads, remove duplicates and call peaks",
])
def test_mitochondrial_qc_or_negation_is_not_the_removal(knowledge, query):
    assert OP not in _ops(knowledge, query)[0]


def test_the_removal_sits_between_duplicate_marking_and_the_peaks_and_tracks(knowledge):
    plan = plan_request("ATAC-seq: align with bowtie2, remove mitochondrial reads and duplicates, call peaks with "
                        "MACS2, make bigwigs", [], knowledge=knowledge, top_k=1).plans[0]
    steps = {s.operation: s for s in plan.steps}
    mito = steps[OP]
    assert mito.tool == "samtools_mito_filter"
    assert mito.sources["bam"] == steps["duplicate_marking"].id
    assert steps["peak_calling"].sources["bams"] == mito.id
    assert steps["coverage_computation"].sources["bam"] == mito.id


def test_an_atac_pipeline_named_removes_them_a_chip_pipeline_does_not(knowledge):
    """nf-core/atacseq's default (--keep_mito false) is the named ATAC-seq pipeline's (motif.atacseq_peaks);
    nf-core/chipseq keeps them."""
    atac = plan_request("an ATAC-seq pipeline", [], knowledge=knowledge, top_k=1).plans[0]
    steps = {s.operation: s for s in atac.steps}
    assert atac.motif == "motif.atacseq_peaks"
    assert steps["peak_calling"].sources["bams"] == steps[OP].id
    chip = plan_request("a ChIP-seq pipeline", [], knowledge=knowledge, top_k=1).plans[0]
    assert OP not in {s.operation for s in chip.steps}


@pytest.mark.parametrize(("query", "refused"), [
    ("run the ATAC-seq pipeline without removing mitochondrial reads", OP),
    ("ATAC-seq pipeline, do not filter chrM reads", OP),
    ("run the ChIP-seq pipeline without trimming the reads", "read_trimming"),
])
def test_a_step_the_request_refuses_is_no_step_of_the_named_pipeline(knowledge, query, refused):
    spec = build_spec(parse_request(query, knowledge), InputProfile(), knowledge)
    assert refused not in spec.required_operations and refused in spec.excluded_operations
    assert "peak_calling" in spec.required_operations


@pytest.mark.parametrize("contigs", ["chrM,MT;$(touch PWNED)", 'chrM" || rname != "x', "chrM,`touch PWNED`"])
def test_the_step_script_refuses_a_contig_name_before_any_use(tmp_path, contigs):
    """mito_contigs goes into a samtools filter expression: a name of other characters than letters, digits,
    _ . : - is refused (exit 1, said), before the BAM is read or anything of the name runs (no samtools needed)."""
    script = templates_dir() / "scripts" / "mito_filter.sh"
    run = subprocess.run(["sh", str(script), "--contigs", contigs, "in.bam", "out.bam", "out.bam.bai", "--"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert "is not a contig name (letters, digits, _ . : -)" in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_step_script_wants_its_three_files(tmp_path):
    script = templates_dir() / "scripts" / "mito_filter.sh"
    run = subprocess.run(["sh", str(script), "--contigs", "chrM", "in.bam", "out.bam"], cwd=tmp_path,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "IN.bam OUT.bam OUT.bam.bai are required" in run.stderr
