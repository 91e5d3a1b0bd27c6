"""Tools bioinformaticians name (issue 18): kallisto (index + quant), Trim Galore, htseq-count,
MEGAHIT and Prodigal, SeqKit stats, bcftools norm and stats, StringTie, AMRFinderPlus (not runnable
here: compiled and checked only); the ChIP-seq tools (Picard MarkDuplicates, MACS2 and MACS3, deepTools
bamCoverage), Harmony (on the single-cell example's AnnData), kb-python count (not runnable here:
kb-python 0.28.2 needs pandas < 2), STARsolo and alevin-fry (simpleaf) get the same checks.

Each is planned when a request names it, compiles for both targets and both read layouts, passes
`snakemake -n`, `snakemake --lint`, `snakefmt --check`, the Nextflow structural checks and
Nextflow's strict parser, and its rule and module match the golden files in
tests/golden/tools/ (BIOPLAN_UPDATE_GOLDEN=1 rewrites them). Runs with the real tools:
tests/e2e/test_named_tools_run.py.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from bioplan.compile import compile_request, plan_request
from bioplan.models import InputProfile
from bioplan.request.parse import parse_request
from bioplan.request.spec import build_spec
from bioplan.validate.snakemake_checks import validate_workflow
from conftest import GOLDEN, skip_or_fail_in_ci

TOOL_GOLDEN = GOLDEN / "tools"
SAMPLES = ("ctrl_1", "ctrl_2", "treated_1", "treated_2")

KALLISTO = "mouse RNA-seq: quantify with kallisto, then gene-level counts with tximport"
TRIM_COUNT = ("mouse RNA-seq FASTQ: trim with Trim Galore, align the reads to the reference genome "
              "and count reads per gene with htseq-count")
ASSEMBLY = "shotgun metagenomics: assemble each sample with MEGAHIT, then predict genes on the contigs with Prodigal"
CHIPSEQ = ("ChIP-seq: align the reads with Bowtie2, mark duplicates with Picard, call peaks with MACS3 "
           "and make CPM-normalised bigWig coverage tracks with deepTools bamCoverage")
VCF_NORM_STATS = ("left-align and normalise the variants in this VCF with bcftools norm, "
                  "then report call set statistics with bcftools stats")
# (request, the -i files besides the reads, {operation: tool} the plan must bind)
CASES = {
    "kallisto": (KALLISTO, ("transcripts.fa", "genes.gtf", "samples.tsv"),
                 {"transcriptome_indexing": "kallisto_index", "transcript_quantification": "kallisto_quant",
                  "quantification_aggregation": "tximport"}),
    "trimgalore_htseq": (TRIM_COUNT, ("genome.fa", "genes.gtf", "samples.tsv"),
                         {"read_trimming": "trimgalore", "read_alignment": "star", "read_counting": "htseq_count"}),
    "assembly_genes": (ASSEMBLY, (), {"genome_assembly": "megahit", "gene_prediction": "prodigal"}),
    "read_stats": ("mouse RNA-seq reads: read statistics with seqkit stats", (), {"read_qc": "seqkit_stats"}),
    "chipseq": (CHIPSEQ, ("genome.fa",), {"read_alignment": "bowtie2", "duplicate_marking": "picard_markduplicates",
                                          "peak_calling": "macs3_callpeak", "coverage_computation": "bamcoverage"}),
    # MACS2 by name is MACS2 (nf-core/chipseq's peak caller, the one tests/e2e/test_chipseq_run.py runs)
    "chipseq_macs2": ("ChIP-seq: align the reads with Bowtie2, mark duplicates and call peaks with MACS2",
                      ("genome.fa",), {"read_alignment": "bowtie2", "duplicate_marking": "picard_markduplicates",
                                       "peak_calling": "macs2_callpeak"}),
    # a call set, no reads (the variants example's VCF and genome)
    "vcf_norm_stats": (VCF_NORM_STATS, ("../variants/calls.vcf", "../variants/genome.fa"),
                       {"variant_normalization": "bcftools_norm", "variant_statistics": "bcftools_stats"}),
    "stringtie": ("mouse RNA-seq: align the reads with HISAT2 and assemble the transcripts with StringTie guided by "
                  "the annotation", ("genome.fa", "genes.gtf"),
                  {"read_alignment": "hisat2", "transcript_assembly": "stringtie"}),
    "assembly_amr": ("shotgun metagenomics: assemble each sample with MEGAHIT and screen the contigs for "
                     "antimicrobial resistance genes with AMRFinderPlus", (),
                     {"genome_assembly": "megahit", "amr_detection": "amrfinderplus"}),
    # the single-cell example's AnnData (two donors), no reads
    "harmony": ("Correct the batch effect between the donors with Harmony, then cluster the cells with Leiden and "
                "find marker genes", ("../single_cell/pbmc_tiny.h5ad",),
                {"batch_correction": "harmonypy", "cell_clustering": "scanpy_leiden"}),
    # the rnaseq example's reads stand in for a droplet library's R1/R2 (compiled and checked, not run)
    "kb_count": ("10x Genomics single-cell RNA-seq FASTQ: make the count matrix with kb-python, then cluster the "
                 "cells and find marker genes", ("genome.fa", "genes.gtf"),
                 {"single_cell_quantification": "kallistobustools_count", "cell_clustering": "scanpy_leiden"}),
    "starsolo": ("Build the count matrix from the 10x single-cell FASTQ files with STARsolo, then cluster the cells "
                 "and find marker genes", ("genome.fa", "genes.gtf"),
                 {"single_cell_quantification": "star_starsolo", "cell_clustering": "scanpy_leiden"}),
    "alevin_fry": ("Quantify the 10x single-cell FASTQ files with alevin-fry (simpleaf), then cluster the cells",
                   ("genome.fa", "genes.gtf"), {"single_cell_quantification": "simpleaf_quant"}),
}
NO_READS = {"vcf_norm_stats", "harmony"}
CONFIG_REFERENCES = {"assembly_amr": ("resources/amr_database.amrfinder_db",)}
# golden file of each new tool: (case, the Snakemake rule file, the Nextflow module)
GOLDEN_FILES = {
    "kallisto_index": ("kallisto", "workflow/rules/transcriptome_indexing.smk", "modules/local/kallisto/index/main.nf"),
    "kallisto_quant": ("kallisto", "workflow/rules/transcript_quantification.smk",
                       "modules/local/kallisto/quant/main.nf"),
    "trimgalore": ("trimgalore_htseq", "workflow/rules/read_trimming.smk", "modules/local/trimgalore/main.nf"),
    "htseq_count": ("trimgalore_htseq", "workflow/rules/read_counting.smk", "modules/local/htseq/count/main.nf"),
    "megahit": ("assembly_genes", "workflow/rules/genome_assembly.smk", "modules/local/megahit/main.nf"),
    "prodigal": ("assembly_genes", "workflow/rules/gene_prediction.smk", "modules/local/prodigal/main.nf"),
    "seqkit_stats": ("read_stats", "workflow/rules/read_qc.smk", "modules/local/seqkit/stats/main.nf"),
    "picard_markduplicates": ("chipseq", "workflow/rules/duplicate_marking.smk",
                              "modules/local/picard/markduplicates/main.nf"),
    "macs3_callpeak": ("chipseq", "workflow/rules/peak_calling.smk", "modules/local/macs3/callpeak/main.nf"),
    "macs2_callpeak": ("chipseq_macs2", "workflow/rules/peak_calling.smk", "modules/local/macs2/callpeak/main.nf"),
    "bamcoverage": ("chipseq", "workflow/rules/coverage_computation.smk", "modules/local/bamcoverage/main.nf"),
    "bcftools_norm": ("vcf_norm_stats", "workflow/rules/variant_normalization.smk",
                      "modules/local/bcftools/norm/main.nf"),
    "bcftools_stats": ("vcf_norm_stats", "workflow/rules/variant_statistics.smk",
                       "modules/local/bcftools/stats/main.nf"),
    "stringtie": ("stringtie", "workflow/rules/transcript_assembly.smk", "modules/local/stringtie/main.nf"),
    "amrfinderplus": ("assembly_amr", "workflow/rules/amr_detection.smk", "modules/local/amrfinderplus/main.nf"),
    "harmonypy": ("harmony", "workflow/rules/batch_correction.smk", "modules/local/harmonypy/main.nf"),
    "kallistobustools_count": ("kb_count", "workflow/rules/single_cell_quantification.smk",
                               "modules/local/kallistobustools/count/main.nf"),
    "star_starsolo": ("starsolo", "workflow/rules/single_cell_quantification.smk",
                      "modules/local/star/starsolo/main.nf"),
    "simpleaf_quant": ("alevin_fry", "workflow/rules/single_cell_quantification.smk",
                       "modules/local/simpleaf/quant/main.nf"),
}


def write_transcriptome(genome: Path, gtf: Path, out: Path) -> None:
    """The spliced transcripts of the GTF (what `gffread -w` writes), without needing gffread."""
    contigs, name = {}, None
    for line in genome.read_text().splitlines():
        if line.startswith(">"):
            name = line[1:].split()[0]
            contigs[name] = []
        elif name:
            contigs[name].append(line.strip())
    seqs = {k: "".join(v) for k, v in contigs.items()}
    exons: dict[str, list[tuple[str, int, int, str]]] = {}
    for line in gtf.read_text().splitlines():
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 9 or cols[2] != "exon":
            continue
        tx = cols[8].split('transcript_id "')[1].split('"')[0]
        exons.setdefault(tx, []).append((cols[0], int(cols[3]), int(cols[4]), cols[6]))
    complement = str.maketrans("ACGTNacgtn", "TGCANtgcan")
    with out.open("w") as fh:
        for tx, parts in sorted(exons.items()):
            seq = "".join(seqs[c][s - 1:e] for c, s, e, _ in sorted(parts, key=lambda p: p[1]))
            if parts[0][3] == "-":
                seq = seq.translate(complement)[::-1]
            fh.write(f">{tx}\n{seq}\n")


@pytest.fixture(scope="module")
def data(workspace) -> Path:
    d = workspace / "data" / "rnaseq_fastq"
    if not (d / "transcripts.fa").exists():
        write_transcriptome(d / "genome.fa", d / "genes.gtf", d / "transcripts.fa")
    return d


def single_end(data: Path) -> Path:
    """The example's single-end reads as a single-end run writes them: under names no one reads as
    mates ('ctrl_1.fastq.gz' and 'ctrl_2.fastq.gz' look like the mates of a sample 'ctrl') and
    without the '1:N:0:' mate comment of the paired run they were cut from; with a sample sheet."""
    se = data.parent / "rnaseq_fastq_se"
    if not se.exists():
        se.mkdir()
        rows = ["sample\tcondition"]
        for sample in SAMPLES:
            name = sample.replace("_", "")
            with gzip.open(data / "reads_se" / f"{sample}.fastq.gz", "rt") as src:
                lines = src.read().splitlines()
            lines[::4] = [header.split()[0] for header in lines[::4]]
            with gzip.open(se / f"{name}.fastq.gz", "wt") as dst:
                dst.write("\n".join(lines) + "\n")
            rows.append(f"{name}\t{'control' if sample.startswith('ctrl') else 'treated'}")
        (se / "samples.tsv").write_text("\n".join(rows) + "\n")
    return se


def case_inputs(data: Path, case: str, layout: str) -> list[str]:
    if case in NO_READS:  # the same files for both layouts
        return [str(data / f) for f in CASES[case][1]]
    if layout == "paired":
        reads = [str(data / "reads" / f"{s}_R{m}.fastq.gz") for s in SAMPLES for m in (1, 2)]
        return reads + [str(data / f) for f in CASES[case][1]]
    se = single_end(data)
    reads = [str(se / f"{s.replace('_', '')}.fastq.gz") for s in SAMPLES]
    return reads + [str((se if f == "samples.tsv" else data) / f) for f in CASES[case][1]]


@pytest.fixture(scope="module")
def compiled(data, workspace, knowledge):
    """Every case x layout x target compiled, without compile's `snakemake -n` pre-check: the e2e test
    test_snakemake_passes_dry_run_lint_and_snakefmt dry-runs, lints and formats each Snakefile itself."""
    out = {}
    for case, (query, _, _) in CASES.items():
        for layout in ("paired", "single"):
            for target, entry in (("snakemake", "Snakefile"), ("nextflow", "main.nf")):
                dest = workspace / "named_tools" / f"{case}_{layout}_{target}" / entry
                out[case, layout, target] = compile_request(query, case_inputs(data, case, layout), str(dest),
                                                            target=target, force=True, validate=False,
                                                            knowledge=knowledge)
                # a reference no input supplies (the AMRFinderPlus database) is checked before any job runs:
                # an empty folder at its configured path stands in for it in the dry run
                for ref in CONFIG_REFERENCES.get(case, ()):
                    (dest.parent / ref).mkdir(parents=True, exist_ok=True)
    return out


@pytest.mark.parametrize("case", CASES)
def test_the_named_tools_are_bound(compiled, case):
    for layout in ("paired", "single"):
        plan = compiled[case, layout, "snakemake"].plan
        bound = {s.operation: s.tool for s in plan.steps}
        assert CASES[case][2].items() <= bound.items(), bound


@pytest.mark.parametrize(("query", "tool"), [("quantify with kallisto", "kallisto_quant"),
                                           ("trim with Trim Galore", "trimgalore"),
                                           ("count reads with htseq-count", "htseq_count"),
                                           ("assemble the metagenome with MEGAHIT", "megahit"),
                                           ("predict genes with Prodigal", "prodigal"),
                                           ("read statistics with seqkit stats", "seqkit_stats"),
                                           ("assemble transcripts with StringTie", "stringtie"),
                                           ("screen the contigs for resistance genes with AMRFinderPlus",
                                            "amrfinderplus"),
                                           ("integrate the samples with Harmony", "harmonypy"),
                                           ("call peaks on the ChIP-seq alignments with MACS2", "macs2_callpeak"),
                                           ("make the single-cell count matrix with kb-python",
                                            "kallistobustools_count"),
                                           ("make the single-cell count matrix with STARsolo", "star_starsolo"),
                                           ("make the single-cell count matrix with simpleaf", "simpleaf_quant")])
def test_naming_the_tool_is_no_longer_refused(knowledge, query, tool):
    """The absent-tools entries of lexicon.yaml are gone: the tool is preferred, not unknown_tool."""
    request = parse_request(query, knowledge)
    assert not [a for a in request.absent if a.kind == "tool"], request.absent
    spec = build_spec(request, InputProfile(), knowledge)
    assert spec.preferred_tools == (tool,) and spec.required_operations == (knowledge.tools[tool].implements,)
    assert not spec.deviations


def test_kallisto_index_and_quant_come_together(knowledge, data):
    """A kallisto index is read only by kallisto quant (and a Salmon index only by Salmon)."""
    files = case_inputs(data, "kallisto", "paired")
    for word, index_tool, quant_tool in (("kallisto", "kallisto_index", "kallisto_quant"),
                                         ("salmon", "salmon_index", "salmon_quant")):
        result = plan_request(f"quantify transcripts with {word} and summarise to genes with tximport", files,
                              knowledge)
        tools = {s.operation: s.tool for s in result.plans[0].steps}
        assert (tools["transcriptome_indexing"], tools["transcript_quantification"]) == (index_tool, quant_tool)


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
        assert knowledge.tools[tool].software.version_command in text


@pytest.mark.parametrize("layout", ["paired", "single"])
@pytest.mark.parametrize("tool", GOLDEN_FILES)
def test_golden_rule_and_module(compiled, tool, layout):
    """The rule and module of each new tool match tests/golden/tools/<tool>.<layout>.{smk,nf}."""
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
