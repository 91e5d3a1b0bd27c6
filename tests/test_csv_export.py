"""A requested CSV output is written as .csv in both languages (issue 13): the format words set the
output format, the CSV export reads the analysis's final table (any result table, not only the
merged pathway table) and names the file after it."""

from __future__ import annotations

import pytest

from bioplan.compile import emit_files, plan_request
from bioplan.request.parse import parse_request


@pytest.fixture
def counts(tmp_path) -> list[str]:
    path = tmp_path / "counts.tsv"
    path.write_text("gene_id\tc1\tc2\tt1\tt2\n" + "".join(
        f"ENSMUSG{n:011d}\t{n * 10}\t{n * 11}\t{n * 30}\t{n * 29}\n" for n in range(1, 30)))
    samples = tmp_path / "samples.tsv"
    samples.write_text("sample\tcondition\nc1\tctrl\nc2\tctrl\nt1\ttrt\nt2\ttrt\n")
    return [str(path), str(samples)]


@pytest.mark.parametrize("query", [
    "differential expression, output as CSV",
    "differential expression, export to CSV",
    "差异表达分析，输出为CSV",
    "差异表达分析，导出为CSV",
    "差异表达分析，以CSV格式输出",
    "差异表达分析，结果以csv格式保存",
])
def test_csv_in_either_language_exports_the_de_table_as_csv(knowledge, counts, query, tmp_path):
    assert parse_request(query, knowledge).output_format == "csv"
    result = plan_request(query, counts, knowledge=knowledge)
    assert result.spec.target_output.semantic_type == "differential_expression_table"
    assert result.spec.target_output.format == "csv"
    steps = {s.operation: s for s in result.plans[0].steps}
    assert set(steps) == {"differential_expression", "csv_export"}  # nothing else pulled in
    assert steps["csv_export"].sources["table"] == "differential_expression"
    workflow, files = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path / "smk")
    export = next(s for s in workflow.steps if s.id == "csv_export")
    assert [p.ref.path for p in export.outputs if p.port == "csv"] == ["results/csv_export/deseq2_results.csv"]
    assert '"results/csv_export/deseq2_results.csv"' in files["workflow/rules/csv_export.smk"]
    _, nf = emit_files(knowledge, result, result.plans[0], "nextflow", tmp_path / "nf")
    assert '"${prefix}.deseq2_results.csv"' in nf["modules/local/table/tocsv/main.nf"]


def test_without_a_format_no_export_step(knowledge, counts):
    for query in ("differential expression", "差异表达分析"):
        result = plan_request(query, counts, knowledge=knowledge)
        assert result.spec.target_output.format is None
        assert [s.operation for s in result.plans[0].steps] == ["differential_expression"]


def test_the_merged_pathway_table_keeps_its_name(knowledge, tmp_path):
    from bioplan.evaluate.example_data import generate

    data = generate(tmp_path / "data", only=["bulk_de"])["bulk_de"]["dir"]
    inputs = [str(data / n) for n in ("counts.csv", "samples.tsv", "gene_sets_kegg.gmt", "gene_sets_go.gmt",
                                      "id_mapping.tsv")]
    query = "小鼠原始计数：差异表达分析，然后KEGG和GO富集，合并成一张表，以CSV格式输出"
    result = plan_request(query, inputs, knowledge=knowledge)
    assert result.spec.target_output.format == "csv"
    export = next(s for s in result.plans[0].steps if s.operation == "csv_export")
    assert export.sources["table"] == "pathway_merge"
    workflow, _ = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path / "smk")
    step = next(s for s in workflow.steps if s.id == "csv_export")
    assert [p.ref.path for p in step.outputs if p.port == "csv"] == ["results/csv_export/merged_pathways.csv"]
