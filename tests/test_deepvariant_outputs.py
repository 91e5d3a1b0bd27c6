"""DeepVariant's own VCF comes with its tabix index (postprocess_variants writes `<name>.vcf.gz.tbi` beside
it): the index is a declared output (`vcf_tbi`), so the Nextflow target publishes it with the VCF (only
declared outputs leave the task's work folder) and Snakemake knows the file is the rule's. Compiled once per
module; DeepVariant itself is not installed here (tests/tool_cases/variants.yaml says so)."""

from __future__ import annotations

import pytest

from bioplan.codegen.generator import NO_OPTIONS
from bioplan.codegen.ir import synthesize
from bioplan.codegen.nextflow import NextflowGenerator
from bioplan.codegen.snakemake import SnakemakeGenerator
from bioplan.compile import plan_request
from helpers import write_fastq

QUERY = ("align the reads with BWA-MEM, call per-sample GVCFs with DeepVariant, merge them with CombineGVCFs "
         "and joint-genotype the cohort with GenotypeGVCFs")


@pytest.fixture(scope="module")
def deepvariant(knowledge, tmp_path_factory):
    base = tmp_path_factory.mktemp("deepvariant")
    reads = [write_fastq(base / f"S{i}_R{m}.fastq.gz", m) for i in (1, 2) for m in (1, 2)]
    (base / "genome.fa").write_text(">chr1\n" + "ACGT" * 50 + "\n")
    result = plan_request(QUERY, [*reads, str(base / "genome.fa")], knowledge)
    workflow = synthesize(knowledge, result.spec, result.plans[0], workdir=str(base / "out"))
    step = next(s for s in workflow.steps if s.tool == "deepvariant")
    return (step, SnakemakeGenerator(knowledge).files(workflow)[f"workflow/rules/{step.id}.smk"],
            NextflowGenerator(knowledge).emit(workflow, NO_OPTIONS))


def test_the_vcfs_index_is_a_declared_output_of_the_step(deepvariant):
    step, rule, _ = deepvariant
    outputs = {p.name: p.ref.path for p in step.outputs}
    assert outputs["vcf_tbi"] == outputs["vcf"] + ".tbi"
    assert outputs["vcf_tbi"] == f"results/{step.id}/{{sample}}/{{sample}}.deepvariant.vcf.gz.tbi"
    assert outputs["tbi"] == outputs["gvcf"] + ".tbi"
    assert f'vcf_tbi="{outputs["vcf_tbi"]}",' in rule
    # written by run_deepvariant beside --output_vcf, not by a command of ours
    assert "--output_vcf={output.vcf:q}" in rule


def test_nextflow_emits_and_so_publishes_the_vcfs_index(deepvariant):
    emitted = deepvariant[2]
    assert emitted.problems == ()
    module = emitted.files["modules/local/deepvariant/rundeepvariant/main.nf"]
    assert 'tuple val(meta), path("${prefix}.deepvariant.vcf.gz.tbi"), emit: vcf_tbi' in module
    # the stub run makes every declared output
    stub = module[module.index("stub:"):]
    assert "${prefix}.deepvariant.vcf.gz.tbi" in stub and "${prefix}.deepvariant.g.vcf.gz.tbi" in stub
    # the step keeps the default publishDir (every declared file but versions.yml), none of its own
    config = emitted.files["conf/modules.config"]
    assert "saveAs: { filename -> filename.equals('versions.yml') ? null : filename }" in config
    block = config[config.index("withName: 'GVCF_CALLING' {"):]
    assert "publishDir" not in block[:block.index("\n    }")]
