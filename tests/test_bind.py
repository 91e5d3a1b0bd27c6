"""Tool binding: preferences are requirements, exclusions hold, formats agree along the plan."""

from __future__ import annotations

import pytest

from bioplan.compile import plan_request


def _tools(result) -> dict[str, str]:
    return {s.operation: s.tool for s in result.plans[0].steps}


@pytest.mark.parametrize("aligner, indexer", [("hisat2", "hisat2_build"), ("STAR", "star_genome_generate"),
                                              ("bowtie2", "bowtie2_build"), ("bwa", "bwa_index")])
def test_a_requested_aligner_brings_its_own_index(knowledge, aligner, indexer):
    tools = _tools(plan_request(f"align my reads with {aligner}", [], knowledge))
    assert tools["genome_indexing"] == indexer
    assert tools["read_alignment"].startswith(aligner.lower().split("_")[0])


def test_excluded_tool_is_never_bound(knowledge):
    result = plan_request("differential expression of raw counts, not DESeq2", [], knowledge)
    assert _tools(result)["differential_expression"] != "deseq2"
    assert any(p.id == "deseq2" and "excluded" in p.reason for p in result.pruned)


def test_consecutive_tools_agree_on_formats(knowledge):
    for query in ("align reads with STAR and count reads per gene", "call variants from FASTQ with bwa"):
        plan = plan_request(query, [], knowledge).plans[0]
        by_id = {s.id: s for s in plan.steps}
        for step in plan.steps:
            tool = knowledge.tools[step.tool]
            for port, src in step.sources.items():
                if src in by_id and port in tool.inputs:
                    producer = knowledge.tools[by_id[src].tool]
                    produced = {producer.outputs[p].format for p in by_id[src].outputs if p in producer.outputs}
                    accepted = set(tool.inputs[port].format.split("|"))
                    assert produced & accepted or {f.removesuffix(".gz") for f in produced} & {
                        f.removesuffix(".gz") for f in accepted}, (query, step.id, port)


def test_a_format_adapter_bridges_gff3_to_a_gtf_reader(knowledge, workspace):
    data = workspace / "data" / "variants"
    plan = plan_request("annotate the variants with SnpEff", [str(data / "calls.vcf"), str(data / "genome.fa"),
                                                              str(data / "genes.gff3")], knowledge).plans[0]
    steps = {s.id: s for s in plan.steps}
    assert steps["variant_annotation"].tool == "snpeff"
    adapter = steps[steps["variant_annotation"].sources["annotation"]]
    assert adapter.tool == "gffread_gtf" and adapter.sources["annotation"] == "input:gene_annotation"
    assert (adapter.id, "variant_annotation") in plan.edges
    # a GTF needs no adapter
    plan = plan_request("annotate the variants with SnpEff", [str(data / "calls.vcf"), str(data / "genome.fa"),
                                                              str(workspace / "data" / "rnaseq_fastq" / "genes.gtf")],
                        knowledge).plans[0]
    assert "annotation_format_conversion" not in {s.operation for s in plan.steps}
