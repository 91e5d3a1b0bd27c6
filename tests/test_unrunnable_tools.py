"""Tools bioinformaticians name that cannot run here (issue 18): not in Debian or on PyPI, so they get
no end-to-end run, only every check short of one. GATK4 germline short variants as nf-core/sarek runs
them (BaseRecalibrator + ApplyBQSR against the config's known sites, then HaplotypeCaller); GATK4
Mutect2 + FilterMutectCalls for one individual's tumour and normal samples (the normal named by the
tool's `normal_sample` param: the sample sheet has no patient or status column); HOMER annotatePeaks and
findMotifsGenome on MACS3's peaks.

Each is planned when a request names it, compiles for both targets and both read layouts, passes
`snakemake -n`, `snakemake --lint`, `snakefmt --check`, the Nextflow structural checks and Nextflow's
strict parser, every module has a stub and the tool's version command, and its rule and module match
the golden files in tests/golden/tools/ (BIOPLAN_UPDATE_GOLDEN=1 rewrites them). The machinery is
tests/test_named_tools.py's (the same example data, layouts and golden folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import pysam
import pytest

from bioplan.compile import compile_request
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec
from bioplan.validate.snakemake_checks import validate_workflow
from conftest import skip_or_fail_in_ci
from test_named_tools import SAMPLES, TOOL_GOLDEN, single_end, write_transcriptome

GATK_GERMLINE = ("whole-genome sequencing: align the reads with BWA-MEM, mark duplicates with Picard, recalibrate "
                 "base qualities with GATK BaseRecalibrator and ApplyBQSR, and call germline variants with GATK "
                 "HaplotypeCaller")
SOMATIC = ("tumour/normal pair: align the reads with BWA-MEM, mark duplicates with Picard and call somatic "
           "variants with GATK Mutect2 and FilterMutectCalls")
HOMER = ("ChIP-seq: align the reads with Bowtie2, mark duplicates, call peaks with MACS3, annotate the peaks with "
         "HOMER annotatePeaks and find enriched motifs with HOMER findMotifsGenome")
# (request, the -i files besides the reads, {operation: tool} the plan must bind)
CASES = {
    "gatk_germline": (GATK_GERMLINE, ("genome.fa",),
                      {"read_alignment": "bwa_mem", "duplicate_marking": "picard_markduplicates",
                       "base_recalibration": "gatk4_bqsr", "variant_calling": "gatk4_haplotypecaller"}),
    # GATK4 somatic short variants of one individual (nf-core/sarek somatic): Mutect2 + FilterMutectCalls
    "somatic": (SOMATIC, ("genome.fa",),
                {"duplicate_marking": "picard_markduplicates", "somatic_variant_calling": "gatk4_mutect2"}),
    # HOMER on MACS3's peaks (nf-core/chipseq's annotatePeaks; findMotifsGenome for motif discovery)
    "homer": (HOMER, ("genome.fa", "genes.gtf"),
              {"peak_calling": "macs3_callpeak", "peak_annotation": "homer_annotatepeaks",
               "motif_discovery": "homer_findmotifsgenome"}),
}
# golden file of each tool: (case, the Snakemake rule file, the Nextflow module)
GOLDEN_FILES = {
    "gatk4_bqsr": ("gatk_germline", "workflow/rules/base_recalibration.smk", "modules/local/gatk4/bqsr/main.nf"),
    "gatk4_haplotypecaller": ("gatk_germline", "workflow/rules/variant_calling.smk",
                              "modules/local/gatk4/haplotypecaller/main.nf"),
    "gatk4_mutect2": ("somatic", "workflow/rules/somatic_variant_calling.smk", "modules/local/gatk4/mutect2/main.nf"),
    "homer_annotatepeaks": ("homer", "workflow/rules/peak_annotation.smk", "modules/local/homer/annotatepeaks/main.nf"),
    "homer_findmotifsgenome": ("homer", "workflow/rules/motif_discovery.smk",
                               "modules/local/homer/findmotifsgenome/main.nf"),
}


@pytest.fixture(scope="module")
def data(workspace) -> Path:
    d = workspace / "data" / "rnaseq_fastq"
    if not (d / "transcripts.fa").exists():
        write_transcriptome(d / "genome.fa", d / "genes.gtf", d / "transcripts.fa")
    return d


def case_inputs(data: Path, case: str, layout: str) -> list[str]:
    if layout == "paired":
        reads = [str(data / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
        return reads + [str(data / f) for f in CASES[case][1]]
    se = single_end(data)
    reads = [str(se / f"{s.replace('_', '')}.fastq.gz") for s in SAMPLES]
    return reads + [str((se if f == "samples.tsv" else data) / f) for f in CASES[case][1]]


def put_known_sites(workdir: Path) -> None:
    """The known sites the config names (resources/known_variant_sites.vcf.gz), as the user puts them
    there: two SNVs on the example genome's chr1, bgzipped and tabix-indexed; `snakemake -n` stops
    before any job when a reference file is missing."""
    vcf = workdir / "resources" / "known_variant_sites.vcf"
    vcf.parent.mkdir(parents=True, exist_ok=True)
    vcf.write_text("##fileformat=VCFv4.2\n##contig=<ID=chr1>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                   "chr1\t2\trs1\tA\tG\t.\t.\t.\nchr1\t9\trs2\tC\tT\t.\t.\t.\n")
    pysam.tabix_index(str(vcf), preset="vcf", force=True)


@pytest.fixture(scope="module")
def compiled(data, workspace, knowledge):
    """Every case x layout x target compiled, the config's known sites in place; without compile's
    `snakemake -n` pre-check: the e2e dry-run/lint/snakefmt test runs it on each Snakefile."""
    out = {}
    for case, (query, _, _) in CASES.items():
        for layout in ("paired", "single"):
            for target, entry in (("snakemake", "Snakefile"), ("nextflow", "main.nf")):
                dest = workspace / "unrunnable_tools" / f"{case}_{layout}_{target}" / entry
                out[case, layout, target] = compile_request(query, case_inputs(data, case, layout), str(dest),
                                                            target=target, force=True, validate=False,
                                                            knowledge=knowledge)
                put_known_sites(out[case, layout, target].output_dir)
    return out


@pytest.mark.parametrize("case", CASES)
def test_the_named_tools_are_bound(compiled, case):
    for layout in ("paired", "single"):
        plan = compiled[case, layout, "snakemake"].plan
        bound = {s.operation: s.tool for s in plan.steps}
        assert CASES[case][2].items() <= bound.items(), bound


def test_recalibration_sits_between_duplicate_marking_and_calling(compiled):
    """BQSR reads the duplicate-marked BAMs and HaplotypeCaller the recalibrated ones; the known sites
    come from the config (a reference the user fills in), not from an input."""
    plan = compiled["gatk_germline", "paired", "snakemake"].plan
    steps = {s.operation: s for s in plan.steps}
    assert steps["base_recalibration"].sources["bam"] == "duplicate_marking"
    assert steps["base_recalibration"].sources["known_sites"] == "config:known_variant_sites"
    assert steps["variant_calling"].sources["bams"] == "base_recalibration"


def test_somatic_calling_is_not_germline_calling(compiled, knowledge):
    """A somatic request plans Mutect2 alone (no germline caller beside it); the normal sample is the
    tool's `normal_sample` param, passed as -normal only when set (tumour-only otherwise)."""
    plan = compiled["somatic", "paired", "snakemake"].plan
    assert "variant_calling" not in {s.operation for s in plan.steps}
    rule = (compiled["somatic", "paired", "snakemake"].output_dir / GOLDEN_FILES["gatk4_mutect2"][1]).read_text()
    assert 'normal_sample=config["params"]["gatk4_mutect2"]["normal_sample"]' in rule
    assert 'inputs+=(-normal "$normal")' in rule
    module = (compiled["somatic", "paired", "nextflow"].output_dir / GOLDEN_FILES["gatk4_mutect2"][2]).read_text()
    assert "normal_sample ? \"--normal-sample ${normal_sample}\" : ''" in module


@pytest.mark.parametrize(("query", "tool"), [
    ("base quality score recalibration with BaseRecalibrator", "gatk4_bqsr"),
    ("call variants with GATK HaplotypeCaller", "gatk4_haplotypecaller"),
    ("call somatic variants with Mutect2", "gatk4_mutect2"),
    ("annotate the peaks with HOMER annotatePeaks", "homer_annotatepeaks"),
    ("motif discovery with HOMER findMotifsGenome", "homer_findmotifsgenome"),
])
def test_naming_the_tool_is_no_longer_refused(knowledge, query, tool):
    """The absent-tools entries of lexicon.yaml are gone: the tool is preferred, not unknown_tool."""
    request = parse_request(query, knowledge)
    assert not [a for a in request.absent if a.kind == "tool"], request.absent
    spec = build_spec(request, InputProfile(), knowledge)
    assert spec.preferred_tools == (tool,) and spec.required_operations == (knowledge.tools[tool].implements,)
    assert not spec.deviations


@pytest.mark.parametrize("layout", ["paired", "single"])
@pytest.mark.parametrize("case", CASES)
def test_snakemake_passes_dry_run_lint_and_snakefmt(compiled, case, layout):
    workdir = compiled[case, layout, "snakemake"].output_dir
    for check in validate_workflow(workdir):
        assert check.ok, f"{check.name} failed for {case}/{layout}:\n{check.output[-3000:]}"


@pytest.mark.parametrize("layout", ["paired", "single"])
@pytest.mark.parametrize("case", CASES)
def test_nextflow_passes_the_strict_parser(compiled, nf_lint, case, layout):
    workdir = compiled[case, layout, "nextflow"].output_dir
    result = nf_lint(workdir)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("layout", ["paired", "single"])
@pytest.mark.parametrize("case", CASES)
def test_every_nextflow_module_has_a_stub_and_a_version_command(compiled, knowledge, case, layout):
    workdir = compiled[case, layout, "nextflow"].output_dir
    for tool, (golden_case, _, module) in GOLDEN_FILES.items():
        if golden_case != case:
            continue
        text = (workdir / module).read_text()
        assert "stub:" in text and "topic: versions" in text
        assert knowledge.tools[tool].software.version_command.replace("'", "\\'") in text


@pytest.mark.parametrize("layout", ["paired", "single"])
@pytest.mark.parametrize("tool", GOLDEN_FILES)
def test_golden_rule_and_module(compiled, tool, layout):
    """The rule and module of each tool match tests/golden/tools/<tool>.<layout>.{smk,nf}."""
    case, rule, module = GOLDEN_FILES[tool]
    produced = {
        f"{tool}.{layout}.smk": (compiled[case, layout, "snakemake"].output_dir / rule).read_text(),
        f"{tool}.{layout}.nf": (compiled[case, layout, "nextflow"].output_dir / module).read_text(),
    }
    for name, text in produced.items():
        golden = TOOL_GOLDEN / name
        if os.environ.get("BIOPLAN_UPDATE_GOLDEN"):
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text)
        if not golden.exists():
            skip_or_fail_in_ci(f"no golden file {golden}; BIOPLAN_UPDATE_GOLDEN=1 writes it")
        assert text == golden.read_text(), f"{name} differs from the golden file"
