"""Variant-calling science the ranking and the request words must get right.

Germline calling from FASTQ marks duplicates between alignment and calling (GATK best practice,
nf-core/sarek): the motifs call the step essential, so the shorter plan without it does not win on
cost. A request refusing the step ("without marking duplicates", "不要去重") is obeyed; the user's
own BAMs are taken as they come.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.evaluate.cases import load_cases
from bioplan.evaluate.fixtures import write_fixtures
from bioplan.knowledge.checks import check_motifs
from bioplan.request.parse import parse_request

# the tests plan over the example's reads and genome: each file read once for the module (conftest)
pytestmark = pytest.mark.usefixtures("sniffed_once")


def _dna_inputs(workspace: Path) -> list[str]:
    data = workspace / "data" / "rnaseq_fastq"
    return [str(p) for p in sorted((data / "reads").glob("*.fastq.gz"))] + [str(data / "genome.fa")]


def _ops(plan) -> list[str]:
    return [s.operation for s in plan.steps]


def _source(plan, operation: str, port: str) -> str:
    step = next(s for s in plan.steps if s.operation == operation)
    return step.sources[port]


def test_germline_calling_from_fastq_marks_duplicates_first(workspace, knowledge):
    best = plan_request("call germline variants from these DNA-seq FASTQ files",
                        _dna_inputs(workspace), knowledge).plans[0]
    assert "duplicate_marking" in _ops(best)
    # the caller reads the duplicate-marked BAMs, which are made from the alignments
    dedup = next(s for s in best.steps if s.operation == "duplicate_marking")
    assert _source(best, "variant_calling", "bams") == dedup.id
    assert _source(best, "duplicate_marking", "bam") == next(
        s.id for s in best.steps if s.operation == "read_alignment")


def test_an_rnaseq_plan_gets_no_duplicate_marking(workspace, knowledge):
    # the germline motifs share alignment with RNA-seq plans: their essential step stays theirs
    data = workspace / "data" / "rnaseq_fastq"
    inputs = _dna_inputs(workspace) + [str(data / "genes.gtf")]
    result = plan_request("RNA-seq: align the reads with HISAT2 and assemble transcripts with StringTie",
                          inputs, knowledge)
    assert "duplicate_marking" not in _ops(result.plans[0])


@pytest.mark.parametrize("query", [
    "call germline variants from these DNA-seq FASTQ files without marking duplicates",
    "call germline variants from these DNA-seq FASTQ files, no dedup",
    "用这些DNA测序数据做变异检测，不要去重",
])
def test_a_refused_duplicate_marking_is_never_planned(workspace, knowledge, query):
    result = plan_request(query, _dna_inputs(workspace), knowledge)
    assert "duplicate_marking" in result.spec.excluded_operations
    assert all("duplicate_marking" not in _ops(p) for p in result.plans)
    assert "variant_calling" in _ops(result.plans[0])
    assert any(p.kind == "operation" and p.id == "duplicate_marking" and "refused" in p.reason
               for p in result.pruned)


def test_a_negation_reaches_an_operation_phrase(knowledge):
    request = parse_request("call variants without marking duplicates", knowledge)
    dedup = [m for m in request.matches if m.kind == "operation" and m.id == "duplicate_marking"]
    assert dedup and all(m.negated for m in dedup)
    assert "duplicate_marking" not in [m.id for m in request.matches if m.kind == "operation" and not m.negated]


def test_a_step_the_refused_one_is_needed_for_is_explained(workspace, knowledge):
    # peak calling reads duplicate-marked alignments: refusing the step leaves no plan
    with pytest.raises(BioplanError):
        plan_request("ChIP-seq: call peaks from these FASTQ files without marking duplicates",
                     _dna_inputs(workspace), knowledge)


def test_the_users_bam_is_called_as_it_comes(workspace, knowledge, tmp_path):
    # the development set's small BAM fixture: the user's alignments are not re-marked
    cf = load_cases(None, knowledge)
    write_fixtures(cf, tmp_path, workspace / "data", [c for c in cf.cases if c.id == "calling.bam.zh"])
    genome = workspace / "data" / "rnaseq_fastq" / "genome.fa"
    result = plan_request("call variants with bcftools on this BAM", [str(tmp_path / "sample1.bam"), str(genome)],
                          knowledge)
    assert _ops(result.plans[0]) == ["variant_calling"]


def test_an_essential_operation_must_be_one_of_the_motifs(knowledge):
    motif = knowledge.motifs["motif.dna_fastq_to_variants"]
    broken = motif.model_copy(update={"essential": ("peak_calling",)})
    k = knowledge.model_copy(update={"motifs": {**knowledge.motifs, motif.id: broken}})
    problems = check_motifs(k, {})
    assert any("essential: 'peak_calling'" in p for p in problems)
    assert not check_motifs(knowledge, {})


# ------------------------------------------------------------------ bisulfite libraries: RRBS vs WGBS


@pytest.mark.parametrize("query", [
    "paired-end RRBS data, get the methylation levels of every sample with Bismark",
    "reduced representation bisulfite sequencing: align with Bismark and extract the methylation calls",
    "简化甲基化测序(RRBS)数据：用Bismark比对到参考基因组后提取甲基化信息",
])
def test_rrbs_is_not_deduplicated_and_the_plan_says_why(workspace, knowledge, query):
    result = plan_request(query, _dna_inputs(workspace), knowledge)
    assert result.spec.constraints.get("library") == "reduced_representation_bisulfite"
    for plan in result.plans:
        assert "bisulfite_deduplication" not in _ops(plan)
    best = result.plans[0]
    align = next(s.id for s in best.steps if s.operation == "bisulfite_alignment")
    assert _source(best, "methylation_calling", "bam") == align
    assert any("RRBS" in w and "deduplicate_bismark" in w for w in result.warnings)


@pytest.mark.parametrize("query", [
    "whole-genome bisulfite sequencing reads, extract the methylation calls with Bismark",
    "bisulfite sequencing reads: align with Bismark and extract the methylation calls",
])
def test_whole_genome_bisulfite_keeps_deduplication(workspace, knowledge, query):
    result = plan_request(query, _dna_inputs(workspace), knowledge)
    best = result.plans[0]
    dedup = next(s.id for s in best.steps if s.operation == "bisulfite_deduplication")
    assert _source(best, "methylation_calling", "bam") == dedup
    assert not any("RRBS" in w for w in result.warnings)


def test_asking_to_deduplicate_rrbs_is_refused_with_the_reason(workspace, knowledge):
    with pytest.raises(BioplanError) as err:
        plan_request("RRBS reads: align with Bismark, remove PCR duplicates with deduplicate_bismark, "
                     "then extract the methylation calls", _dna_inputs(workspace), knowledge)
    assert "reduced_representation_bisulfite" in err.value.message


def test_one_library_at_a_time(workspace, knowledge):
    with pytest.raises(BioplanError) as err:
        plan_request("WGBS and RRBS reads: extract the methylation calls", _dna_inputs(workspace), knowledge)
    assert err.value.code == "ambiguous_input"


# ------------------------------------------------------------------ several VCFs: bcftools merge / concat


def _variants(workspace: Path, part: str) -> list[str]:
    return [str(p) for p in sorted((workspace / "data" / "variants" / part).glob("*.vcf"))]


def test_vcfs_of_different_samples_are_merged(workspace, knowledge):
    result = plan_request("merge these VCFs into one multi-sample VCF", _variants(workspace, "per_sample"), knowledge)
    assert result.spec.input_types == ("sample_variant_calls",)
    assert {i.sample for i in result.spec.inputs} == {"sample1", "sample2"}
    best = result.plans[0]
    assert [(s.operation, s.tool) for s in best.steps] == [("variant_merging", "bcftools_merge")]
    assert any("their sample columns differ" in w for w in result.warnings)


def test_vcfs_of_the_same_samples_are_concatenated(workspace, knowledge):
    result = plan_request("concatenate the per-chromosome VCFs, then report call set statistics with bcftools stats",
                          _variants(workspace, "per_region"), knowledge)
    assert result.spec.input_types == ("region_variant_calls",)
    ops = _ops(result.plans[0])
    assert ops.index("variant_concatenation") < ops.index("variant_statistics")
    assert _source(result.plans[0], "variant_statistics", "vcf") == next(
        s.id for s in result.plans[0].steps if s.operation == "variant_concatenation")


def test_two_vcfs_of_one_name_are_refused(workspace, knowledge, tmp_path):
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "calls.vcf").write_bytes((workspace / "data" / "variants" / "calls.vcf").read_bytes())
    with pytest.raises(BioplanError) as err:
        plan_request("merge these VCFs", [str(tmp_path / "a" / "calls.vcf"), str(tmp_path / "b" / "calls.vcf")],
                     knowledge)
    assert err.value.code == "ambiguous_input" and "'calls'" in err.value.message


def test_one_vcf_is_still_the_call_set(workspace, knowledge):
    result = plan_request("compute call set statistics with bcftools stats",
                          [str(workspace / "data" / "variants" / "calls.vcf")], knowledge)
    assert result.spec.input_types == ("variant_calls",)


def test_parts_must_be_sample_scope_datatypes(knowledge):
    from bioplan.knowledge.checks import check_datatypes

    vcf = knowledge.datatypes["variant_calls"]
    broken = vcf.model_copy(update={"parts": vcf.parts.model_copy(update={"same_samples": "reference_genome"})})
    k = knowledge.model_copy(update={"datatypes": {**knowledge.datatypes, "variant_calls": broken}})
    assert any("parts/same_samples" in p for p in check_datatypes(k, {}))
    assert not check_datatypes(knowledge, {})


def _body(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text().splitlines()
    header = next(line for line in lines if line.startswith("#CHROM")).split("\t")
    return header[9:], [line.split("\t") for line in lines if not line.startswith("#")]


def test_the_example_parts_rebuild_the_example_call_set(workspace):
    variants = workspace / "data" / "variants"
    samples, records = _body(variants / "calls.vcf")
    for k, sample in enumerate(samples):  # per-sample files: the sample's own genotype column
        names, part = _body(variants / "per_sample" / f"{sample}.vcf")
        assert names == [sample]
        assert [r[:5] + [r[9]] for r in part] == [r[:5] + [r[9 + k]] for r in records]
    regions = sorted((variants / "per_region").glob("*.vcf"))
    rebuilt = [r for path in regions for r in _body(path)[1]]
    assert all(_body(path)[0] == samples for path in regions)
    assert sorted(map(tuple, rebuilt)) == sorted(map(tuple, records))
    assert {r[0] for path in regions for r in _body(path)[1] if path.stem != r[0]} == set()


# ------------------------------------------------------------------ tumour/normal: one run per patient


def _tumour_normal_sheet(tmp_path: Path, workspace: Path, patients: list[str], status: bool = True) -> list[str]:
    reads = workspace / "data" / "rnaseq_fastq" / "reads"
    files, rows = [], ["patient\tsample" + ("\tstatus" if status else "")]
    for patient in patients:
        for code, kind in ((1, "t"), (0, "n")):
            sample = f"{patient}_{kind}"
            rows.append(f"{patient}\t{sample}" + (f"\t{code}" if status else ""))
            for mate in (1, 2):
                dest = tmp_path / f"{sample}_R{mate}.fastq.gz"
                dest.write_bytes((reads / f"ctrl_1_R{mate}.fastq.gz").read_bytes())
                files.append(str(dest))
    (tmp_path / "samples.tsv").write_text("\n".join(rows) + "\n")
    return files + [str(tmp_path / "samples.tsv"), str(workspace / "data" / "rnaseq_fastq" / "genome.fa")]


def test_a_cohort_of_tumour_normal_pairs_is_paired_per_patient(workspace, knowledge, tmp_path):
    """Two patients' tumour/normal pairs are no longer called as one individual: the spec pairs them
    (tests/test_tumour_normal_cohorts.py follows them into the IR and both targets)."""
    inputs = _tumour_normal_sheet(tmp_path, workspace, ["p1", "p2"])
    result = plan_request("call somatic variants with Mutect2 for each tumour/normal pair", inputs, knowledge)
    assert {(s.sample, s.patient, s.status) for s in result.spec.patients} == {
        ("p1_t", "p1", "tumour"), ("p1_n", "p1", "normal"), ("p2_t", "p2", "tumour"), ("p2_n", "p2", "normal")}


def test_several_patients_without_a_status_column_are_refused(workspace, knowledge, tmp_path):
    inputs = _tumour_normal_sheet(tmp_path, workspace, ["p1", "p2"], status=False)
    with pytest.raises(BioplanError) as err:
        plan_request("call somatic variants with Mutect2 for each tumour/normal pair", inputs, knowledge)
    assert err.value.code == "unsupported_analysis"
    assert "2 patients (p1, p2)" in err.value.message and "'status' column" in err.value.hints[0]


def test_one_patients_tumour_and_normal_are_planned(workspace, knowledge, tmp_path):
    inputs = _tumour_normal_sheet(tmp_path, workspace, ["p1"])
    result = plan_request("call somatic variants with Mutect2 for this tumour/normal pair", inputs, knowledge)
    ops = _ops(result.plans[0])
    assert "somatic_variant_calling" in ops and "duplicate_marking" in ops


@pytest.mark.parametrize(("library", "extra"), [("RRBS", '"--rrbs"'), ("WGBS", '""')])
def test_trim_galore_trims_the_mspi_fill_in_of_rrbs_reads_only(workspace, knowledge, tmp_path, library, extra):
    from bioplan.compile import compile_request

    compile_request(f"paired-end {library} data: trim with Trim Galore, align with Bismark and extract the "
                    "methylation calls", _dna_inputs(workspace), str(tmp_path / "Snakefile"), validate=False,
                    knowledge=knowledge)
    config = (tmp_path / "config" / "config.yaml").read_text()
    block = config[config.index("  trimgalore:"):].split("\n")[:4]
    assert f"    extra: {extra}" in block


def test_params_when_names_known_constraints_and_params(knowledge):
    from bioplan.knowledge.checks import check_tools
    from bioplan.paths import templates_dir

    tool = knowledge.tools["trimgalore"]
    broken = tool.model_copy(update={"params_when": {"rrbs_library": {"rrbs": True}}})
    k = knowledge.model_copy(update={"tools": {**knowledge.tools, "trimgalore": broken}})
    problems = check_tools(k, {}, templates_dir())
    assert any("unknown constraint 'rrbs_library'" in p for p in problems)
    assert any("'rrbs' is not one of the tool's params" in p for p in problems)
