"""Tumour/normal cohorts (nf-core/sarek's sample sheet: patient, sample, status): each patient's tumour
is called against its own normal, once per patient, in the IR and in both targets.

The sheet's patient and status columns are read by the sniffer (request/sniffers/tables.py), paired by
the spec pass `pair_tumours_with_normals` (request/passes/individuals.py), grouped by the IR passes
(codegen/passes.py: a `group` scope keyed on `patient`) and lowered to a {patient} wildcard with input
functions (Snakemake) and a groupTuple on meta.patient (Nextflow). Sheets that cannot be paired are
refused naming their rows. No Snakemake process runs here (tests/e2e/test_tumour_normal_run.py runs them).
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from bioplan.codegen.generator import NO_OPTIONS
from bioplan.codegen.ir import pair_ids, synthesize
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from bioplan.models import PatientSample
from bioplan.request.passes.individuals import status_of

MUTECT2 = "call somatic variants with Mutect2 for each patient's tumour/normal pair"
STRELKA2 = "call somatic variants with Strelka2 for each patient's tumour/normal pair"
READS = "@r{i}/{mate}\nACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII\n"


def _cohort(base: Path, rows: list[tuple[str, str, str]], header: str = "patient\tsample\tstatus",
            files_for: list[str] | None = None) -> list[str]:
    """A sample sheet of `rows` (patient, sample, status), paired FASTQs of each sample (or of
    `files_for`), and a genome: the inputs of a compile."""
    base.mkdir(parents=True, exist_ok=True)
    (base / "samples.tsv").write_text(header + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    files = []
    for sample in files_for if files_for is not None else [r[1] for r in rows]:
        for mate in (1, 2):
            path = base / f"{sample}_R{mate}.fastq.gz"
            with gzip.open(path, "wt") as fh:
                fh.writelines(READS.format(i=i, mate=mate) for i in range(4))
            files.append(str(path))
    (base / "genome.fa").write_text(">chr1\n" + "ACGT" * 50 + "\n")
    return [*files, str(base / "samples.tsv"), str(base / "genome.fa")]


TWO_PAIRS = [("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "tumour"), ("p2", "p2_n", "normal")]


@pytest.mark.parametrize(("cell", "status"), [
    ("1", "tumour"), ("Tumor", "tumour"), ("T", "tumour"), ("metastasis", "tumour"),
    ("0", "normal"), ("Normal", "normal"), ("N", "normal"), ("blood", "normal"), ("germline", "normal"),
    ("matched-normal", "normal"), ("xenograft", None), ("2", None), ("", None)])
def test_status_cells_as_sheets_write_them(cell, status):
    assert status_of(cell) == status


def test_the_sheet_pairs_each_patients_tumour_with_its_normal(knowledge, tmp_path):
    result = plan_request(MUTECT2, _cohort(tmp_path, TWO_PAIRS), knowledge)
    assert [(s.patient, s.sample, s.status) for s in result.spec.patients] == [
        ("p1", "p1_t", "tumour"), ("p1", "p1_n", "normal"), ("p2", "p2_t", "tumour"), ("p2", "p2_n", "normal")]
    assert "somatic_variant_calling" in [s.operation for s in result.plans[0].steps]


@pytest.mark.parametrize("header", ["donor\tsample\ttype", "case_id\tsample\tsample_type",
                                    "Subject ID\tsample\tTumor-Normal"])
def test_other_names_of_the_patient_and_status_columns(knowledge, tmp_path, header):
    result = plan_request(MUTECT2, _cohort(tmp_path, TWO_PAIRS, header), knowledge)
    assert {s.patient for s in result.spec.patients} == {"p1", "p2"}


@pytest.mark.parametrize(("rows", "files_for", "named"), [
    # a status neither tumour nor normal
    ([("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "xenograft"), ("p2", "p2_n", "0")], None,
     ["data row 3: sample 'p2_t', patient 'p2', status 'xenograft'", "neither tumour nor normal"]),
    # two normals of one patient
    ([("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p1", "p1_b", "blood"), ("p2", "p2_t", "1")], None,
     ["several normal samples for one patient", "data row 2: sample 'p1_n'", "data row 3: sample 'p1_b'"]),
    # a patient with a normal and no tumour
    ([("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_n", "0")], None,
     ["no tumour", "data row 3: sample 'p2_n', patient 'p2'"]),
    # a row whose sample has no files among the inputs
    (TWO_PAIRS, ["p1_t", "p1_n", "p2_t"], ["no reads or alignments among the inputs", "data row 4: sample 'p2_n'"]),
    # files of a sample the sheet does not list
    (TWO_PAIRS[:3] + [("p2", "p2_n", "0")], ["p1_t", "p1_n", "p2_t", "p2_n", "p3_t"], ["does not list", "'p3_t'"]),
    # two rows (lanes) of one sample that disagree on its status
    ([("p1", "p1_t", "1"), ("p1", "p1_t", "0"), ("p1", "p1_n", "0")], ["p1_t", "p1_n"],
     ["rows of one sample (its lanes) with different patients or statuses", "data row 2: sample 'p1_t'"]),
], ids=["unknown_status", "two_normals", "no_tumour", "row_without_files", "files_without_row", "lanes_disagree"])
def test_sheets_that_cannot_be_paired_are_refused_naming_the_rows(knowledge, tmp_path, rows, files_for, named):
    with pytest.raises(BioplanError) as err:
        plan_request(MUTECT2, _cohort(tmp_path, rows, files_for=files_for), knowledge)
    assert err.value.code == "ambiguous_input"
    for words in named:
        assert words in err.value.message
    assert err.value.hints[0].startswith("to resolve, ")


def _workflow(knowledge, tmp_path, query: str, rows):
    result = plan_request(query, _cohort(tmp_path / "in", rows), knowledge)
    return synthesize(knowledge, result.spec, result.plans[0], workdir=str(tmp_path / "out"))


@pytest.mark.parametrize(("rows", "named"), [
    ([("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "1")], ["no tumour-only mode", "'p2'"]),
], ids=["tumour_only_patient"])
def test_what_strelka2_cannot_pair_is_refused_by_name(knowledge, tmp_path, rows, named):
    with pytest.raises(BioplanError) as err:
        _workflow(knowledge, tmp_path, STRELKA2, rows)
    assert all(words in err.value.message for words in named)
    assert "Mutect2" in err.value.hints[0]


def test_mutect2_runs_a_patient_without_normal_tumour_only(knowledge, tmp_path):
    rows = [("p1", "p1_t", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "1")]
    workflow = _workflow(knowledge, tmp_path, MUTECT2, rows)
    assert {r["sample"]: (r["patient"], r["status"]) for r in workflow.samples} == {
        "p1_t": ("p1", "tumour"), "p1_n": ("p1", "normal"), "p2_t": ("p2", "tumour")}


@pytest.fixture(scope="module")
def cohort(knowledge, tmp_path_factory):
    """Two patients' pairs: the IR and both targets' files, made once."""
    base = tmp_path_factory.mktemp("cohort")
    workflow = _workflow(knowledge, base, MUTECT2, TWO_PAIRS)
    smk = SnakemakeGenerator(knowledge).files(workflow)
    emitted = NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS)
    return workflow, smk, emitted


def _step(workflow, operation: str):
    return next(s for s in workflow.steps if s.operation == operation)


def test_the_ir_runs_somatic_calling_once_per_tumour_normal_pair(cohort):
    workflow, _, _ = cohort
    calling = _step(workflow, "somatic_variant_calling")
    assert (calling.scope, calling.group_by) == ("group", "pair")
    assert all("/{pair}/" in p.ref.path and p.ref.group == "pair" for p in calling.outputs)
    assert calling.log == "logs/somatic_variant_calling/{pair}.log"
    # it reads the duplicate-marked BAMs of its pair's samples, and the normal from the sheet
    bams = next(p for p in calling.inputs if p.port == "bams")
    assert bams.ref.per_sample and bams.ref.gathered and "{sample}" in bams.ref.path
    assert ("normal_sample", "@group_normal") in calling.params
    assert "normal_sample" not in workflow.params["gatk4_mutect2"]  # not a config value any more
    # the per-sample steps stay per sample; the results are every patient's filtered calls
    assert _step(workflow, "duplicate_marking").scope == "sample"
    vcf = next(t for t in workflow.targets if t.path.endswith("/{pair}/somatic.vcf.gz"))
    assert vcf.gathered and vcf.group == "pair"
    assert workflow.meta_columns == ("patient", "status")


def test_snakemake_picks_each_pairs_tumour_and_normal_from_the_sheet(cohort):
    _, files, _ = cohort
    rule = files["workflow/rules/somatic_variant_calling.smk"]
    assert " ".join(rule.split()).count(
        'bams=group_expand( "results/duplicate_marking/{sample}/{sample}.markdup.bam", "pair" ),') == 1
    assert 'normal_sample=group_normal("pair")' in rule and 'samples=group_samples("pair")' in rule
    assert 'vcf="results/somatic_variant_calling/{pair}/somatic.vcf.gz"' in rule
    common = files["workflow/rules/common.smk"]
    assert "def group_expand(pattern, column):" in common and 'pair=GROUPS["pair"]' in common
    # sarek's pair names: <tumour>_vs_<normal>, the tumour alone without a normal
    assert 'f"{tumour}_vs_{NORMAL_OF[patient]}" if patient in NORMAL_OF else tumour' in common
    assert 'pair="|".join(re.escape(p) for p in GROUPS["pair"])' in files["workflow/Snakefile"]
    assert files["config/samples.tsv"].splitlines()[:2] == [
        "sample\tpatient\tstatus\tfastq_1\tfastq_2", "p1_n\tp1\tnormal\t../in/p1_n_R1.fastq.gz\t../in/p1_n_R2.fastq.gz"]
    assert "somatic.vcf.gz | Somatic variant calls (bgzip-compressed VCF) (one per pair) |" in files["README.md"]
    schema = files["workflow/schemas/samples.schema.yaml"]
    assert "- tumour\n    - normal" in schema and "required:\n- sample\n- patient\n- status" in schema


def test_nextflow_pairs_each_patients_tumours_with_its_normal(cohort):
    _, _, emitted = cohort
    assert emitted.problems == ()  # the structural checks: includes, emits, arity, stubs, strict
    wf = emitted.files["workflows/bioplan.nf"]
    call = wf[wf.index("SOMATIC_VARIANT_CALLING ("):]
    assert "DUPLICATE_MARKING.out.bam\n            .map { meta, files -> [meta.patient, meta, files] }" in call
    assert ".groupTuple()" in call and ".flatMap { patient, metas, files ->" in call
    assert 'def id = (normal ? "${tumour[0].id}_vs_${normal[0].id}" : tumour[0].id).toString()' in call
    assert "normal: normal ? normal[0].id : ''" in call
    module = emitted.files["modules/local/gatk4/mutect2/main.nf"]
    assert "tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')" in module
    assert "normal_sample: meta.normal" in emitted.files["conf/modules.config"]
    columns = json.loads(emitted.files["assets/schema_input.json"])["items"]["properties"]
    assert columns["patient"]["meta"] == ["patient"] and columns["status"] == {
        **columns["status"], "meta": ["status"], "enum": ["tumour", "normal"]}
    assert emitted.files["assets/samplesheet.csv"].splitlines()[0] == "sample,patient,status,fastq_1,fastq_2"
    assert "(one somatic.vcf.gz per pair)" in emitted.files["README.md"]


def test_steps_after_the_somatic_calls_run_per_pair_too(knowledge, tmp_path):
    """SnpEff on each pair's calls, and the bgzip + tabix step after it: one job per pair, each pair's
    annotated VCF a result (codegen/vcf_outputs.py keeps the producer's grouping)."""
    workflow = _workflow(knowledge, tmp_path, MUTECT2 + ", then annotate the somatic variants with SnpEff",
                         TWO_PAIRS)
    annotation = _step(workflow, "variant_annotation")
    assert (annotation.scope, annotation.group_by) == ("group", "pair")
    vcf_in = next(p for p in annotation.inputs if p.port == "vcf")
    assert vcf_in.ref.path == "results/somatic_variant_calling/{pair}/somatic.vcf.gz" and not vcf_in.ref.gathered
    bgzip = next(s for s in workflow.steps if s.tool == "tabix_bgziptabix")
    assert (bgzip.scope, bgzip.log) == ("group", "logs/variant_annotation_bgzip/{pair}.log")
    assert any(t.path.startswith("results/variant_annotation_bgzip/{pair}/") and t.gathered
               for t in workflow.targets)


# ------------------------------------------------------------------ FreeBayes' somatic filter (a step script)
FILTER = Path(__file__).resolve().parents[1] / "templates" / "scripts" / "freebayes_somatic_filter.awk"
JOINT = """##fileformat=VCFv4.2
#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tp1_t\tp1_n
chr1\t100\t.\tA\tC\t50\t.\t.\tGT:DP:RO:AO\t0/1:20:15:5\t0/0:20:20:0
chr1\t200\t.\tA\tC\t50\t.\t.\tGT:DP:RO:AO\t0/1:20:10:10\t0/1:20:17:3
chr1\t300\t.\tA\tC,G\t50\t.\t.\tGT:DP:RO:AO\t0/1:40:38:1,1\t0/0:20:20:0,0
chr1\t400\t.\tA\tC\t50\t.\t.\tGT:DP:RO:AO\t0/1:20:12:8\t0/0:2:2:0
chr1\t500\t.\tA\tC\t50\t.\t.\tGT:AO:DP\t.:.:.\t.:.:.
"""


def _filtered(tmp_path: Path, normal: str) -> subprocess.CompletedProcess:
    (tmp_path / "joint.vcf").write_text(JOINT)
    return subprocess.run(["awk", "-f", str(FILTER), f"normal={normal}", "min_alt=3", "min_vaf=0.05",
                           "max_normal_alt=0", "min_normal_depth=5", str(tmp_path / "joint.vcf")],
                          capture_output=True, text=True, check=False)


def test_the_somatic_filter_passes_what_only_the_tumour_carries(tmp_path):
    done = _filtered(tmp_path, "p1_n")
    assert done.returncode == 0, done.stderr
    records = [line.split("\t") for line in done.stdout.splitlines() if not line.startswith("#")]
    assert [(r[1], r[6]) for r in records] == [("100", "PASS"), ("200", "normal_evidence"), ("300", "weak_tumour"),
                                               ("400", "low_normal_depth"), ("500", "weak_tumour")]
    assert "##FILTER=<ID=normal_evidence," in done.stdout and "##bioplan_somatic_filter=normal:p1_n" in done.stdout


@pytest.mark.parametrize(("normal", "said"), [("", "no normal sample named"), ("p9_n", "'p9_n' is not a sample")])
def test_the_somatic_filter_stops_without_its_normal(tmp_path, normal, said):
    done = _filtered(tmp_path, normal)
    assert done.returncode == 2 and said in done.stderr


def test_the_plan_report_says_how_the_patients_are_paired(knowledge, tmp_path):
    from bioplan.report import report, text_report

    result = plan_request(MUTECT2, _cohort(tmp_path, TWO_PAIRS), knowledge)
    assert "patients: p1 (tumour p1_t, normal p1_n); p2 (tumour p2_t, normal p2_n)" in text_report(result)
    assert report(result)["task_spec"]["patients"][0] == {"sample": "p1_t", "patient": "p1", "status": "tumour"}


# ------------------------------------------------------------------ nf-core/sarek's own sample sheet, with the paths
def _sarek_sheet(base: Path) -> list[str]:
    """sarek's canonical input: patient,sex,status,sample,lane,fastq_1,fastq_2 (paths beside the sheet; one
    lane per sample here, several in tests/test_lanes.py)."""
    inputs = _cohort(base, TWO_PAIRS)
    rows = ["patient,sex,status,sample,lane,fastq_1,fastq_2"]
    for patient, sample, status in TWO_PAIRS:
        rows.append(f"{patient},XX,{status},{sample},L001,{sample}_R1.fastq.gz,{sample}_R2.fastq.gz")
    (base / "samplesheet.csv").write_text("\n".join(rows) + "\n")
    return [str(base / "samplesheet.csv"), inputs[-1]]


def test_sareks_sample_sheet_alone_names_the_reads_and_the_pairs(knowledge, tmp_path):
    result = plan_request("tumour/normal pairs for 2 patients, Mutect2", _sarek_sheet(tmp_path), knowledge)
    reads = {(i.sample, i.mate) for i in result.spec.inputs if i.datatype == "raw_reads"}
    assert reads == {(s, m) for _, s, _ in TWO_PAIRS for m in (1, 2)}
    assert {(s.sample, s.status) for s in result.spec.patients} == {
        ("p1_t", "tumour"), ("p1_n", "normal"), ("p2_t", "tumour"), ("p2_n", "normal")}
    assert any("read 8 FASTQ file(s) the sheet names" in w for w in result.spec.warnings + result.warnings)


def test_a_patient_id_that_cannot_name_a_folder_is_refused(knowledge, tmp_path):
    with pytest.raises(BioplanError) as err:
        _workflow(knowledge, tmp_path, MUTECT2, [("..", "p1_t", "1"), ("..", "p1_n", "0")])
    assert err.value.code == "unreadable_input" and "the patient id '..'" in err.value.message


def test_a_status_column_without_patients_names_the_one_individuals_normal(knowledge, tmp_path):
    """A sheet of sample and status alone is one individual: its normal comes from the sheet, where the
    caller was told nothing and Mutect2 would have run the normal as a second tumour."""
    inputs = _cohort(tmp_path / "in", [("x", "t1", "tumour"), ("x", "n1", "normal")], header="ignored\tsample\tstatus")
    sheet = Path(inputs[-2])
    sheet.write_text("sample\tstatus\nt1\ttumour\nn1\tnormal\n")
    result = plan_request(MUTECT2, inputs, knowledge)
    assert {(s.sample, s.patient, s.status) for s in result.spec.patients} == {
        ("t1", "patient_1", "tumour"), ("n1", "patient_1", "normal")}
    sheet.write_text("sample\tstatus\nt1\ttumour\nn1\tnormal\nn2\tblood\n")
    with pytest.raises(BioplanError) as err:
        plan_request(MUTECT2, inputs, knowledge)
    assert "several normal samples for one patient" in err.value.message


def test_cnvkit_over_a_cohort_takes_every_normal_of_the_sheet_as_its_reference(knowledge, tmp_path):
    workflow = _workflow(knowledge, tmp_path, "align the reads with BWA-MEM and call copy number with CNVkit",
                         TWO_PAIRS)
    assert _step(workflow, "copy_number_calling").scope == "cohort"  # one pooled reference, as CNVkit batch
    assert workflow.params["cnvkit_batch"]["normal_samples"] == "p1_n,p2_n"


def test_a_check_of_a_pairs_file_runs_per_pair(knowledge, tmp_path):
    """bcftools filter after per-pair calls: its precondition check reads one pair's VCF, so it runs
    per pair too, and the filtering of that pair waits for that pair's check only."""
    workflow = _workflow(knowledge, tmp_path, MUTECT2.replace("Mutect2", "FreeBayes")
                         + ", then filter the variants with bcftools filter", TWO_PAIRS)
    check = next(s for s in workflow.steps if s.kind == "check" and s.guards == "variant_filtering")
    assert (check.scope, check.group_by) == ("group", "pair")
    assert check.outputs[0].ref.path == f"results/checks/{check.id}/{{pair}}.ok"
    emitted = NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS)
    assert emitted.problems == ()
    assert f".join({check.id.upper()}.out.ok, failOnMismatch: true)" in emitted.files["workflows/bioplan.nf"]


# ------------------------------------------------------------------ several tumours of a patient: one pair each
def test_a_patients_primary_and_relapse_are_two_pairs_with_its_normal(knowledge, tmp_path):
    """nf-core/sarek's pairing: each tumour against the patient's normal, named <tumour>_vs_<normal>; a
    tumour without a normal (Mutect2's tumour-only mode) named after itself. Strelka2, which calls one
    tumour against one normal, runs per pair too instead of being refused."""
    rows = [("p1", "p1_t", "1"), ("p1", "p1_r", "1"), ("p1", "p1_n", "0"), ("p2", "p2_t", "1")]
    assert pair_ids([PatientSample(sample=s, patient=p, status=status_of(st) or "") for p, s, st in rows]) == {
        "p1_t_vs_p1_n": ("p1_t", "p1_n"), "p1_r_vs_p1_n": ("p1_r", "p1_n"), "p2_t": ("p2_t",)}
    workflow = _workflow(knowledge, tmp_path / "strelka", STRELKA2, rows[:3])
    assert _step(workflow, "somatic_variant_calling").group_by == "pair"


def test_pair_names_that_would_collide_are_refused(knowledge, tmp_path):
    rows = [("p1", "a", "1"), ("p1", "b", "0"), ("p2", "a_vs_b", "1")]
    with pytest.raises(BioplanError) as err:
        _workflow(knowledge, tmp_path, MUTECT2, rows)
    assert "two tumour/normal pairs of the sample sheet would have the same name" in err.value.message


# ------------------------------------------------------------------ the cohort's summary table: one row per pair
def test_a_cohort_summary_counts_every_pairs_calls(cohort):
    """codegen/call_summary.py: one cohort step reads every pair's bgzipped calls (gathered over the pairs)
    and writes one table, a result; each target names the rows by pair."""
    workflow, files, emitted = cohort
    summary = next(s for s in workflow.steps if s.tool == "call_set_counts")
    # Mutect2 writes its filtered calls bgzipped itself: the summary reads them where it writes them
    assert (summary.id, summary.scope, summary.group_by) == ("somatic_variant_calling_summary", "cohort", None)
    (vcfs,) = summary.inputs
    assert (vcfs.ref.path, vcfs.ref.group, vcfs.ref.gathered) == (
        "results/somatic_variant_calling/{pair}/somatic.vcf.gz", "pair", True)
    assert "results/somatic_variant_calling_summary/call_set_summary.tsv" in {t.path for t in workflow.targets}
    rule = " ".join(files["workflow/rules/somatic_variant_calling_summary.smk"].split())
    assert 'vcfs=expand( "results/somatic_variant_calling/{pair}/somatic.vcf.gz", pair=GROUPS["pair"], ),' in rule
    assert '"$(basename "$(dirname "$vcf")")"' in rule and 'bcftools view -H -f PASS "$vcf"' in rule
    module = next(text for path, text in emitted.files.items()
                  if path.endswith("/main.nf") and '"call_set_summary.tsv"' in text)
    assert "tuple val(meta), val(sample_ids), path(vcfs, stageAs: 'vcfs/*')" in module
    assert "[sample_ids, [vcfs].flatten()].transpose()" in module


def test_no_summary_without_pairs(knowledge, tmp_path):
    workflow = _workflow(knowledge, tmp_path, "align the reads with BWA and call variants with FreeBayes", TWO_PAIRS)
    assert all(s.tool != "call_set_counts" for s in workflow.steps)
