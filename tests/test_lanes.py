"""Samples sequenced over several lanes: nf-core/sarek's sheet (patient, sex, status, sample, lane, fastq_1,
fastq_2; one row per lane), nf-core/rnaseq's (one sample on several rows) and Illumina-named files given
directly (S1_L001_R1_001.fastq.gz, S1_L002_R1_001.fastq.gz) are one sample each (codegen/lanes.py): where
variants are called, BWA-MEM aligns each lane under its own read group (ID <sample>.<lane>, SM the sample)
and merges the lanes' BAMs, as nf-core/sarek; elsewhere (quantification, a trimmer before the aligner) the
lanes are concatenated per mate before the sample's first step, as nf-core/rnaseq's CAT_FASTQ. Every VCF
column is a sample either way.

The sniffer gives each file its lane (request/sniffers/cohort.py), the sample sheet keeps one row per lane
(codegen/ir.py `_sample_rows`), and both targets lower both. Compiled once per module; no Snakemake
process runs here (tests/e2e/test_lanes_run.py runs both targets and checks the read groups and depths).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bioplan.codegen.generator import NO_OPTIONS
from bioplan.codegen.ir import synthesize
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from helpers import write_fastq

MUTECT2 = "call somatic variants with Mutect2 for each patient's tumour/normal pair"
ALIGN = "align the reads with BWA and call variants with FreeBayes"
QUANTIFY = "trim the reads with fastp and quantify with salmon"
PAIRS = [("p1", "p1_t", "1"), ("p1", "p1_n", "0")]


def _fastq(path: Path, mate: int, gz: bool = True) -> str:
    return write_fastq(path, mate, gz=gz)


def _genome(base: Path) -> str:
    (base / "genome.fa").write_text(">chr1\n" + "ACGT" * 50 + "\n")
    return str(base / "genome.fa")


def sarek_sheet(base: Path, lanes=("L001", "L002"), rows=PAIRS, header: str = "patient,sex,status,sample,lane,"
                "fastq_1,fastq_2", same_names: bool = True) -> list[str]:
    """sarek's sheet of `rows` in `lanes`: each lane's files in a folder of its own, under the same names
    (as bcl2fastq writes per-lane folders) unless `same_names` is false."""
    base.mkdir(parents=True, exist_ok=True)
    lines = [header]
    for patient, sample, status in rows:
        for lane in lanes:
            names = [f"{lane}/{sample}{'' if same_names else '_' + lane}_R{m}.fastq.gz" for m in (1, 2)]
            for mate, name in zip((1, 2), names):
                _fastq(base / name, mate)
            values = {"patient": patient, "sex": "XX", "status": status, "sample": sample, "lane": lane,
                      "fastq_1": names[0], "fastq_2": names[1]}
            lines.append(",".join(values[c] for c in header.split(",")))
    (base / "samplesheet.csv").write_text("\n".join(lines) + "\n")
    return [str(base / "samplesheet.csv"), _genome(base)]


def _compiled(knowledge, base: Path, query: str, inputs: list[str]):
    result = plan_request(query, inputs, knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out"))
    return result, workflow


@pytest.fixture(scope="module")
def sarek(knowledge, tmp_path_factory):
    """A patient's tumour and normal in two lanes each, Mutect2: the plan, the IR and both targets' files."""
    base = tmp_path_factory.mktemp("sarek_lanes")
    result, workflow = _compiled(knowledge, base, MUTECT2, sarek_sheet(base / "in"))
    return result, workflow, SnakemakeGenerator(knowledge).files(workflow), \
        NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS)


def test_each_file_of_the_sheet_carries_its_lane(sarek):
    result = sarek[0]
    reads = {(i.sample, i.lane, i.mate) for i in result.spec.inputs if i.datatype == "raw_reads"}
    assert reads == {(s, lane, m) for _, s, _ in PAIRS for lane in ("L001", "L002") for m in (1, 2)}
    # a sample's lanes are one sample of the pair
    assert {(p.sample, p.status) for p in result.spec.patients} == {("p1_t", "tumour"), ("p1_n", "normal")}


def test_the_ir_aligns_each_lane_apart_where_variants_are_called(sarek):
    """sarek's lowering: no concatenation; the aligner and the mates check guarding it read every lane's
    files, the aligner with the sample's lane names (its read groups)."""
    workflow = sarek[1]
    assert all(s.tool != "cat_fastq" for s in workflow.steps)
    aligner = next(s for s in workflow.steps if s.operation == "read_alignment")
    assert [(p.name, p.ref.kind, p.ref.path, p.ref.lanes) for p in aligner.inputs if p.datatype == "raw_reads"] == [
        ("reads_1", "samplesheet", "fastq_1", True), ("reads_2", "samplesheet", "fastq_2", True)]
    assert ("lanes", "@lanes") in aligner.params
    check = next(s for s in workflow.steps if s.kind == "check" and s.guards == aligner.id)
    assert [(p.ref.path, p.ref.lanes) for p in check.inputs] == [("fastq_1", True), ("fastq_2", True)]
    assert ("lanes", "@lanes") not in check.params
    # only those two read the sheet's files; later steps read the merged BAM, one per sample
    readers = {s.id for s in workflow.steps if any(p.ref.kind == "samplesheet" for p in s.inputs)}
    assert readers == {aligner.id, check.id}
    # one sheet row per lane; the lane is a value column like the patient and status
    assert workflow.meta_columns == ("patient", "status", "lane")
    assert sorted((r["sample"], r["lane"]) for r in workflow.samples) == [
        ("p1_n", "L001"), ("p1_n", "L002"), ("p1_t", "L001"), ("p1_t", "L002")]


def test_snakemake_aligns_every_lane_under_its_own_read_group(sarek):
    files = sarek[2]
    assert "workflow/rules/cat_fastq.smk" not in files
    aligner = next(v for k, v in files.items() if k.startswith("workflow/rules/") and "bwa mem" in v)
    rule = aligner[aligner.index("rule read_alignment:"):]
    assert 'reads_1=sample_lane_files("fastq_1"),' in rule and 'reads_2=sample_lane_files("fastq_2"),' in rule
    assert "lanes=sample_lanes()," in rule
    # ID <sample>.<lane>, SM and LB the sample; each lane sorted apart, then merged (every @RG kept)
    assert (r"""-R '@RG\\tID:'{wildcards.sample:q}\"${{lanes[$i]:+.${{lanes[$i]}}}}\"'\\tSM:'"""
            "{wildcards.sample:q}") in rule
    assert "'\\\\tLB:'{wildcards.sample:q}'\\\\tPL:'{params.platform:q}" in rule
    assert '\' "${{reads_1[$i]}}" "${{reads_2[$i]}}"\'' in rule
    assert '| samtools sort -@ {threads} -o "$part" - || exit 1; done' in rule
    assert 'samtools merge -f -@ {threads} {output.bam:q} "${{parts[@]}}"' in rule
    # the mates check reads every lane's pair
    check = aligner[:aligner.index("rule read_alignment:")]
    assert 'reads_1=sample_lane_files("fastq_1"),' in check and "lanes=" not in check
    common = files["workflow/rules/common.smk"]
    assert "def sample_lane_files(column):" in common and "def sample_lanes():" in common
    assert 'lanes.duplicated(["sample", "lane"])' in common and "drop_duplicates(\"sample\")" in common
    assert files["config/samples.tsv"].splitlines()[:2] == [
        "sample\tpatient\tstatus\tlane\tfastq_1\tfastq_2",
        "p1_n\tp1\tnormal\tL001\t../in/L001/p1_n_R1.fastq.gz\t../in/L001/p1_n_R2.fastq.gz"]
    assert "required:\n- sample\n- patient\n- status\n- lane\n" in files["workflow/schemas/samples.schema.yaml"]


def test_nextflow_aligns_every_lane_under_its_own_read_group(sarek):
    emitted = sarek[3]
    assert emitted.problems == ()
    assert "modules/local/cat/fastq/main.nf" not in emitted.files
    main = emitted.files["main.nf"]
    assert ".groupTuple()\n        .map { id, metas, reads -> [metas[0].findAll { key, value -> key != 'lane' } + " \
           "[lanes: metas.collect { m -> m.lane ?: '' }], reads.flatten()] }" in main
    module = emitted.files["modules/local/bwa/mem/main.nf"]
    assert "tuple val(meta), path(reads, stageAs: 'lane*/*')" in module  # same-named lanes do not collide
    assert "def lanes = meta.lanes ?: ['']" in module and "def mates = 2" in module
    assert "-R '@RG\\\\tID:${id}\\\\tSM:${meta.id}\\\\tLB:${meta.id}\\\\tPL:${platform}'" in module
    assert "samtools merge -f -@ ${task.cpus} ${prefix}.bam ${parts}" in module
    check = emitted.files["modules/local/bioplan/check_paired_end_reads/main.nf"]
    assert "${[reads].flatten().collate(2).collect { lane -> \"--list-input reads_1=${lane[0]} " \
           "--list-input reads_2=${lane[1]}\" }.join(' ')}" in check
    wf = emitted.files["workflows/bioplan.nf"]
    assert "CAT_FASTQ" not in wf and "READ_ALIGNMENT (\n        ch_reads" in wf
    columns = json.loads(emitted.files["assets/schema_input.json"])["items"]["properties"]
    assert columns["lane"]["meta"] == ["lane"]
    assert emitted.files["assets/samplesheet.csv"].splitlines()[:2] == [
        "sample,patient,status,lane,fastq_1,fastq_2", "p1_n,p1,normal,L001,../in/L001/p1_n_R1.fastq.gz,"
        "../in/L001/p1_n_R2.fastq.gz"]


@pytest.fixture(scope="module")
def rnaseq_lanes(knowledge, tmp_path_factory):
    """The same sheet for trimming and quantification: the lanes concatenated (a read group matters to no
    quantifier), as nf-core/rnaseq's CAT_FASTQ."""
    base = tmp_path_factory.mktemp("rnaseq_lanes")
    _, workflow = _compiled(knowledge, base, QUANTIFY, sarek_sheet(base / "in", rows=[("p1", "s1", "0")],
                                                                   header="sample,lane,fastq_1,fastq_2"))
    return workflow, SnakemakeGenerator(knowledge).files(workflow), NextflowGenerator(knowledge).emit(workflow,
                                                                                                     NO_OPTIONS)


def test_the_ir_merges_each_samples_lanes_before_its_first_step_elsewhere(rnaseq_lanes):
    workflow = rnaseq_lanes[0]
    merge = workflow.steps[0]
    assert (merge.id, merge.tool, merge.scope, merge.operation) == ("cat_fastq", "cat_fastq", "sample", "lane_merging")
    assert [(p.name, p.ref.kind, p.ref.path, p.ref.lanes) for p in merge.inputs] == [
        ("reads_1", "samplesheet", "fastq_1", True), ("reads_2", "samplesheet", "fastq_2", True)]
    merged = {p.ref.path for p in merge.outputs}
    assert merged == {f"results/cat_fastq/{{sample}}/{{sample}}_{m}.fastq.gz" for m in (1, 2)}
    # no other step reads the sheet's files: the trimmer (and the mates check) read the merged reads
    others = [p for s in workflow.steps[1:] for p in s.inputs]
    assert not any(p.ref.kind == "samplesheet" for p in others)
    trimmer = next(s for s in workflow.steps if s.operation == "read_trimming")
    assert {p.ref.path for p in trimmer.inputs if p.datatype == "raw_reads"} == merged
    assert all(("lanes", "@lanes") not in s.params for s in workflow.steps)


def test_snakemake_concatenates_every_lane_of_the_sample(rnaseq_lanes):
    files = rnaseq_lanes[1]
    rule = files["workflow/rules/cat_fastq.smk"]
    assert 'reads_1=sample_lane_files("fastq_1"),' in rule and 'reads_2=sample_lane_files("fastq_2"),' in rule
    assert "cat {input.reads_1:q} > {output.reads_1:q} && cat {input.reads_2:q} > {output.reads_2:q}" in rule
    trimmer = next(v for k, v in files.items() if k.startswith("workflow/rules/") and "fastp " in v)
    assert 'reads_1="results/cat_fastq/{sample}/{sample}_1.fastq.gz"' in trimmer
    assert "def sample_lanes():" not in files["workflow/rules/common.smk"]


def test_nextflow_groups_a_samples_lane_rows_into_cat_fastq(rnaseq_lanes):
    emitted = rnaseq_lanes[2]
    assert emitted.problems == ()
    main = emitted.files["main.nf"]
    assert ".groupTuple()\n        .map { id, metas, reads -> [metas[0].findAll { key, value -> key != 'lane' }, " \
           "reads.flatten()] }" in main
    module = emitted.files["modules/local/cat/fastq/main.nf"]
    assert "tuple val(meta), path(reads, stageAs: 'lane*/*')" in module  # same-named lanes do not collide
    assert "cat ${read1.join(' ')} > ${prefix}_merged_1.fastq.gz" in module
    wf = emitted.files["workflows/bioplan.nf"]
    assert "CAT_FASTQ (\n        ch_reads\n    )" in wf and "ch_reads" not in wf[wf.index("CAT_FASTQ (") + 30:]


def test_nextflow_publishes_the_merged_and_trimmed_reads_only_on_request(rnaseq_lanes, sarek):
    """nf-core publishes results only (save_merged_fastq, save_trimmed): the FASTQ only later steps read stay in
    work/ unless --save_intermediate_fastq true; the steps' reports are published as before."""
    files = rnaseq_lanes[2].files
    config = files["conf/modules.config"]
    saved = ("saveAs: { filename -> filename.equals('versions.yml') || (!params.save_intermediate_fastq && "
             "['.fastq.gz', '.fq.gz'].any { ending -> filename.endsWith(ending) }) ? null : filename }")
    for process in ("CAT_FASTQ", "READ_TRIMMING"):
        block = config[config.index(f"withName: '{process}'"):]
        block = block[:block.index("\n    }\n")]
        assert saved in block, block
    quantify = config[config.index("withName: 'TRANSCRIPT_QUANTIFICATION'"):]
    assert "save_intermediate_fastq" not in quantify[:quantify.index("\n    }\n")]
    assert "    save_intermediate_fastq = false\n" in files["nextflow.config"]
    options = json.loads(files["nextflow_schema.json"])["$defs"]["input_output_options"]["properties"]
    assert options["save_intermediate_fastq"]["type"] == "boolean"
    assert options["save_intermediate_fastq"]["default"] is False
    assert "`--save_intermediate_fastq true`" in files["README.md"]
    # a workflow without intermediate reads (the lanes aligned one by one) has no such switch
    assert "save_intermediate_fastq" not in sarek[3].files["nextflow.config"]


def test_a_trimmer_before_the_aligner_trims_each_lane_apart(knowledge, tmp_path):
    """fastp between the lanes and BWA, as nf-core/sarek: each lane trimmed apart (one fastp job per sample,
    lanes inside it) into a folder of trimmed lanes, which BWA-MEM aligns lane by lane, each under its own
    read group; the lanes' reports, in a folder of their own, are MultiQC's. No concatenation."""
    _, workflow = _compiled(knowledge, tmp_path, "trim the reads with fastp, then " + MUTECT2,
                            sarek_sheet(tmp_path / "in"))
    assert all(s.tool != "cat_fastq" for s in workflow.steps)
    trimmer = next(s for s in workflow.steps if s.tool == "fastp")
    aligner = next(s for s in workflow.steps if s.operation == "read_alignment")
    assert ("lanes", "@lanes") in trimmer.params and ("lanes", "@lanes") in aligner.params
    assert [(p.name, p.ref.path, p.ref.lanes) for p in trimmer.inputs if p.ref.kind == "samplesheet"] == [
        ("reads_1", "fastq_1", True), ("reads_2", "fastq_2", True)]
    assert [(p.name, p.ref.path, p.ref.directory) for p in trimmer.outputs] == [
        ("trimmed", "results/read_trimming/{sample}/{sample}_trimmed_lanes", True),
        ("report", "results/read_trimming/{sample}/{sample}_fastp_lanes", True)]
    reads = [p for p in aligner.inputs if p.ref.kind != "result" or "read_trimming" in p.ref.path]
    assert [(p.name, p.ref.path) for p in reads] == [
        ("reads_lanes", "results/read_trimming/{sample}/{sample}_trimmed_lanes")]
    # the mates check guarding fastp reads every lane's pair; MultiQC reads the reports' folder
    check = next(s for s in workflow.steps if s.kind == "check" and s.guards == trimmer.id)
    assert all(p.ref.lanes for p in check.inputs)
    multiqc = next(s for s in workflow.steps if s.tool == "multiqc")
    assert "results/read_trimming/{sample}/{sample}_fastp_lanes" in {p.ref.path for p in multiqc.inputs}
    assert not any(t.path.endswith(("fastp.json", "fastp.html")) for t in workflow.targets)
    smk = SnakemakeGenerator(knowledge).files(workflow)
    trim_rule = smk[f"workflow/rules/{trimmer.id}.smk"]
    # the trimmed lanes are an intermediate as trimmed files are: temp() unless kept, published only on request
    assert ('trimmed=intermediate(\n            directory("results/read_trimming/{sample}/{sample}_trimmed_lanes")'
            "\n        ),") in trim_rule
    assert 'report=directory("results/read_trimming/{sample}/{sample}_fastp_lanes"),' in trim_rule
    assert '-o {output.trimmed:q}/"lane${{i}}_1.fastq.gz" -O {output.trimmed:q}/"lane${{i}}_2.fastq.gz"' in trim_rule
    assert '--json {output.report:q}/"${{name}}.fastp.json"' in trim_rule
    align_rule = smk[f"workflow/rules/{aligner.id}.smk"]
    assert 'reads_1+=({input.reads_lanes:q}/"lane$i"_1.fastq.gz)' in align_rule
    assert "bwa mem -t {threads} -K 100000000 -Y" in align_rule
    emitted = NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS)
    assert emitted.problems == ()
    fastp = emitted.files["modules/local/fastp/main.nf"]
    assert "path(reads, stageAs: 'lane*/*')" in fastp and 'path("${prefix}_trimmed_lanes"), emit: trimmed' in fastp
    assert "--json ${prefix}_fastp_lanes/${name}.fastp.json" in fastp
    bwa = emitted.files["modules/local/bwa/mem/main.nf"]
    assert "tuple val(meta), path(reads_lanes)" in bwa and "def fq" not in bwa
    assert '"${reads_lanes}/lane${item[1]}${mate}.fastq.gz"' in bwa
    assert "READ_ALIGNMENT (\n        READ_TRIMMING.out.trimmed," in emitted.files["workflows/bioplan.nf"]
    config = emitted.files["conf/modules.config"]
    block = config[config.index("withName: 'READ_TRIMMING' {"):]
    assert "(!params.save_intermediate_fastq && ['_trimmed_lanes'].any {" in block[:block.index("\n    }")]


def test_a_trimmer_outside_variant_calling_reads_the_concatenated_lanes(rnaseq_lanes):
    """Quantification: fastp reads the concatenated lanes (a read group matters to no quantifier)."""
    workflow = rnaseq_lanes[0]
    trimmer = next(s for s in workflow.steps if s.tool == "fastp")
    assert ("lanes", "@lanes") not in trimmer.params and workflow.steps[0].tool == "cat_fastq"


def test_rnaseq_sheets_repeat_a_sample_on_several_rows(knowledge, tmp_path):
    """nf-core/rnaseq's sheet has no lane column: a sample's rows are its technical replicates, numbered."""
    base = tmp_path / "in"
    rows = ["sample,fastq_1,fastq_2,strandedness"]
    for run in (1, 2):
        names = [f"run{run}/ctrl_R{m}.fastq.gz" for m in (1, 2)]
        for m, name in zip((1, 2), names):
            _fastq(base / name, m)
        rows.append(f"ctrl,{names[0]},{names[1]},auto")
    (base / "samplesheet.csv").write_text("\n".join(rows) + "\n")
    result, workflow = _compiled(knowledge, tmp_path, QUANTIFY, [str(base / "samplesheet.csv"), _genome(base)])
    assert sorted((i.lane, i.mate) for i in result.spec.inputs if i.datatype == "raw_reads") == [
        ("1", 1), ("1", 2), ("2", 1), ("2", 2)]
    assert workflow.steps[0].tool == "cat_fastq" and workflow.meta_columns == ("lane",)


def test_illumina_lane_files_given_directly_are_merged_not_one_dropped(knowledge, tmp_path):
    """S1_L001_R1_001 and S1_L002_R1_001: both lanes are read (one of them used to overwrite the other)."""
    inputs = [_fastq(tmp_path / "in" / f"S1_{lane}_R{m}_001.fastq.gz", m) for lane in ("L001", "L002") for m in (1, 2)]
    result, workflow = _compiled(knowledge, tmp_path, ALIGN, [*inputs, _genome(tmp_path / "in")])
    assert [(r["sample"], r["lane"]) for r in workflow.samples] == [("S1", "L001"), ("S1", "L002")]
    assert any("sample 'S1': 2 lanes (L001, L002), concatenated per mate before the sample's first step, or, where "
               "variants are called, aligned lane by lane (a read group each) and merged" in w for w in result.warnings)
    aligner = next(s for s in workflow.steps if s.operation == "read_alignment")
    assert all(s.tool != "cat_fastq" for s in workflow.steps) and ("lanes", "@lanes") in aligner.params


def test_one_lane_per_sample_adds_no_merge_step(knowledge, tmp_path):
    result, workflow = _compiled(knowledge, tmp_path, MUTECT2, sarek_sheet(tmp_path / "in", lanes=("L001",)))
    assert all(s.tool != "cat_fastq" for s in workflow.steps) and "lane" not in workflow.meta_columns
    assert all(i.lane is None for i in result.spec.inputs)


def test_a_request_to_merge_the_lanes_is_the_merge_step(knowledge, tmp_path):
    """'merge the lanes' names the step bioplan adds anyway: one merge step, reading every lane."""
    _, workflow = _compiled(knowledge, tmp_path, "merge the lanes, then " + ALIGN, sarek_sheet(tmp_path / "in"))
    merges = [s for s in workflow.steps if s.tool == "cat_fastq"]
    reads = [p for p in merges[0].inputs if p.datatype == "raw_reads"]
    assert len(merges) == 1 and [p.ref.path for p in reads] == ["fastq_1", "fastq_2"]
    assert all(p.ref.lanes for p in reads)


@pytest.mark.parametrize(("mutate", "said"), [
    ("repeat_lane", "several rows name the same lane of a sample"),
    ("repeat_file", "names the same FASTQ file more than once"),
    ("plain", "reads fastq.gz (gzip-compressed) files only, and these inputs are not compressed"),
    ("bad_lane", "the lane name '=1' (taken from this input) cannot name a lane"),
])
def test_lane_sheets_that_cannot_be_merged_are_refused_by_name(knowledge, tmp_path, mutate, said):
    base = tmp_path / "in"
    inputs = sarek_sheet(base, same_names=False)
    sheet = base / "samplesheet.csv"
    text = sheet.read_text()
    if mutate == "repeat_lane":
        text = text.replace("p1_t,L002", "p1_t,L001")
    elif mutate == "repeat_file":
        text = text.replace("L002/p1_t_L002_R1", "L001/p1_t_L001_R1")
    elif mutate == "plain":
        _fastq(base / "L002" / "p1_t_L002_R1.fastq", 1, gz=False)
        text = text.replace("L002/p1_t_L002_R1.fastq.gz", "L002/p1_t_L002_R1.fastq")
    else:
        text = text.replace("p1_t,L002", "p1_t,=1")
    sheet.write_text(text)
    with pytest.raises(BioplanError) as err:
        _compiled(knowledge, tmp_path, MUTECT2, inputs)
    assert said in err.value.message, err.value.message


def test_plain_lanes_to_concatenate_are_refused(knowledge, tmp_path):
    """cat joins gzip members: a plain lane would make a plain file named .gz."""
    inputs = sarek_sheet(tmp_path / "in", rows=[("p1", "s1", "0")], header="sample,lane,fastq_1,fastq_2",
                         same_names=False)
    _fastq(tmp_path / "in" / "L002" / "s1_L002_R1.fastq", 1, gz=False)
    sheet = tmp_path / "in" / "samplesheet.csv"
    sheet.write_text(sheet.read_text().replace("L002/s1_L002_R1.fastq.gz", "L002/s1_L002_R1.fastq"))
    with pytest.raises(BioplanError) as err:
        _compiled(knowledge, tmp_path, QUANTIFY, inputs)
    assert "concatenating gzipped FASTQ files, and these are not gzipped" in err.value.message, err.value.message


def test_mate_files_of_different_lanes_are_refused(knowledge, tmp_path):
    inputs = [_fastq(tmp_path / "in" / name, m) for name, m in (
        ("S1_L001_R1_001.fastq.gz", 1), ("S1_L002_R1_001.fastq.gz", 1), ("S1_L001_R2_001.fastq.gz", 2),
        ("S1_L003_R2_001.fastq.gz", 2))]
    with pytest.raises(BioplanError) as err:
        _compiled(knowledge, tmp_path, ALIGN, [*inputs, _genome(tmp_path / "in")])
    assert "mate 1 files of lanes L001, L002 and mate 2 files of lanes L001, L003" in err.value.message


def test_single_end_lanes_are_aligned_one_by_one_too(knowledge, tmp_path):
    """Single-end lanes of a variant pipeline: one `reads` file per lane, each lane its own read group."""
    inputs = [_fastq(tmp_path / "in" / f"S1_{lane}_R1_001.fastq.gz", 1) for lane in ("L001", "L002")]
    _, workflow = _compiled(knowledge, tmp_path, ALIGN, [*inputs, _genome(tmp_path / "in")])
    aligner = next(s for s in workflow.steps if s.operation == "read_alignment")
    assert [(p.name, p.ref.path, p.ref.lanes) for p in aligner.inputs if p.ref.kind == "samplesheet"] == [
        ("reads", "fastq", True)]
    rule = next(v for k, v in SnakemakeGenerator(knowledge).files(workflow).items()
                if k.startswith("workflow/rules/") and "bwa mem" in v)
    assert 'reads=sample_lane_files("fastq"),' in rule and "reads=({input.reads:q});" in rule
    assert '\' "${{reads[$i]}}"\'' in rule
    module = NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS).files["modules/local/bwa/mem/main.nf"]
    assert "def mates = 1" in module and "fq.subList(item[1] * mates, (item[1] + 1) * mates)" in module


@pytest.mark.parametrize("lanes", [("L001",), ("L001", "L002")])
def test_single_end_illumina_files_are_the_fastq_column(knowledge, tmp_path, lanes):
    """S1_L001_R1_001.fastq.gz without an R2 is single-end: the sheet's `fastq` column, which single-end steps
    read (it was `fastq_1`, and the workflow stopped on a KeyError); several lanes are merged the same way."""
    inputs = [_fastq(tmp_path / "in" / f"S1_{lane}_R1_001.fastq.gz", 1) for lane in lanes]
    _, workflow = _compiled(knowledge, tmp_path, QUANTIFY, inputs)
    assert workflow.layout == "single" and workflow.sample_columns == ("sample", "fastq")
    reads = [p.ref.path for s in workflow.steps for p in s.inputs if p.ref.kind == "samplesheet"]
    assert reads == ["fastq"]
    assert (workflow.steps[0].tool == "cat_fastq") == (len(lanes) > 1)


def test_bwa_mem_batches_do_not_depend_on_the_threads(knowledge, sarek, tmp_path):
    """As nf-core/sarek: `-K 100000000` (bwa reads 10 Mbp x -t per batch otherwise, and the insert size model
    is estimated per batch, so the BAM would change with the thread count) and `-Y` (soft-clipped supplementary
    alignments), in both targets, with lanes and without."""
    one_lane = [_fastq(tmp_path / "in" / f"S1_R{m}.fastq.gz", m) for m in (1, 2)]
    _, workflow = _compiled(knowledge, tmp_path, ALIGN, [*one_lane, _genome(tmp_path / "in")])
    assert not any(p.ref.lanes for s in workflow.steps for p in s.inputs)
    smk = [sarek[2], SnakemakeGenerator(knowledge).files(workflow)]
    nf = [sarek[3].files, NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS).files]
    for files in smk:
        rule = next(v for k, v in files.items() if k.startswith("workflow/rules/") and "bwa mem" in v)
        assert rule.count("bwa mem -t {threads} -K 100000000 -Y") == 1, rule
    lanes, plain = (f["modules/local/bwa/mem/main.nf"] for f in nf)
    assert '"bwa mem -t ${task.cpus} -K 100000000 -Y -R ' in lanes
    assert "-t ${task.cpus} \\\\\n        -K 100000000 \\\\\n        -Y \\\\\n        -R " in plain
