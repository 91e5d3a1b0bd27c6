"""`bioplan plan --json` and `bioplan compile`: the plan report, error codes, exit statuses,
and the guarantees around -o (no overwrite without --force, nothing half-written)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bioplan.cli import main
from conftest import example_inputs, example_request


def run(*args: str):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


def error_of(result) -> dict:
    assert result.exit_code == 2, result.output
    return json.loads(result.output)["error"]


def test_plan_report_shape(workspace):
    inputs = [arg for p in example_inputs(workspace, "bulk_de") for arg in ("-i", p)]
    result = run("plan", example_request("bulk_de"), *inputs, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in ("bioplan_version", "query", "task_spec", "operation_anchors", "plans", "warnings", "pruned"):
        assert key in report
    spec = report["task_spec"]
    assert spec["input_types"][:2] == ["raw_count_matrix", "sample_metadata"]
    assert spec["target_output"] == {"semantic_type": "merged_pathway_table", "format": "csv"}
    assert spec["constraints"]["organism"] == "mouse"
    assert {"organism_mouse", "bulk_rna_seq", "requires_replicates", "requires_raw_integer_counts"} <= set(
        spec["constraint_ids"])
    assert spec["workflow_type"] == "multi_branch_join"
    counts = next(i for i in spec["inputs"] if i["datatype"] == "raw_count_matrix")
    assert counts["format"] == "csv" and counts["evidence"]
    plan = report["plans"][0]
    assert plan["rank"] == 1
    ids = [s["id"] for s in plan["steps"]]
    assert len(ids) == len(set(ids))
    for a, b in plan["edges"]:
        assert a in ids and b in ids
    de = next(s for s in plan["steps"] if s["operation"] == "differential_expression")
    assert de["inputs"] == {"counts": "raw_count_matrix", "samples": "sample_metadata"}
    assert set(de["preconditions"]) >= {"requires_raw_integer_counts", "requires_replicates"}
    assert all(p["reason"] for p in report["pruned"])


def test_empty_query():
    err = error_of(run("plan", "", "--json"))
    assert err["code"] == "empty_query" and err["hints"]


def test_nothing_recognised_suggests_terms():
    err = error_of(run("plan", "please make me a sandwich with extra cheese", "--json"))
    assert err["code"] == "no_operation_recognized"
    assert "sandwich" in err["message"]
    assert err["hints"]


def test_typo_is_understood_with_fuzzy_evidence():
    result = run("plan", "do the alignmnt on my reads", "--json")
    assert result.exit_code == 0, result.output
    spec = json.loads(result.output)["task_spec"]
    assert "read_alignment" in spec["required_operations"]
    assert any(e["how"] == "fuzzy" and e["id"] == "read_alignment" for e in spec["evidence"])


def test_unrecognised_word_gets_a_did_you_mean():
    err = error_of(run("plan", "please algnmnt my stuff", "--json"))
    assert err["code"] == "no_operation_recognized"
    assert any("did you mean" in h and "align" in h for h in err["hints"])


def test_no_path_names_the_missing_input(workspace):
    vcf = example_inputs(workspace, "variants")[0]
    err = error_of(run("plan", "differential expression between treated and control", "-i", vcf, "--json"))
    assert err["code"] in ("unsatisfiable", "constraint_violation")
    assert "raw_count_matrix" in err["message"] or "raw_count_matrix" in json.dumps(err["details"])
    assert any("-i" in h or "input" in h for h in err["hints"])


def test_unreadable_input(tmp_path):
    missing = tmp_path / "nope.csv"
    err = error_of(run("plan", "differential expression", "-i", str(missing), "--json"))
    assert err["code"] == "unreadable_input" and str(missing) in err["message"]
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    err = error_of(run("plan", "differential expression", "-i", str(garbage), "--json"))
    assert err["code"] == "unreadable_input"


def test_normalized_counts_violate_raw_count_constraint(tmp_path):
    counts = tmp_path / "tpm.csv"
    counts.write_text("gene,a1,a2,b1,b2\n" + "".join(f"ENSMUSG{i:011d},{i*1.5+0.3},{i*2.25},{i*1.1+0.7},{i*3.3}\n"
                                                     for i in range(1, 60)))
    samples = tmp_path / "samples.tsv"
    samples.write_text("sample\tcondition\na1\tctrl\na2\tctrl\nb1\ttreated\nb2\ttreated\n")
    err = error_of(run("plan", "differential expression", "-i", str(counts), "-i", str(samples), "--json"))
    assert err["code"] == "constraint_violation"
    assert "raw" in err["message"] or "integer" in err["message"]


def test_one_sample_per_condition_violates_replicates(tmp_path):
    counts = tmp_path / "counts.csv"
    counts.write_text("gene,a1,b1\n" + "".join(f"ENSMUSG{i:011d},{i},{i*2}\n" for i in range(1, 60)))
    samples = tmp_path / "samples.tsv"
    samples.write_text("sample\tcondition\na1\tctrl\nb1\ttreated\n")
    err = error_of(run("plan", "differential expression", "-i", str(counts), "-i", str(samples), "--json"))
    assert err["code"] == "constraint_violation"
    assert "replicate" in err["message"] or "replicate" in " ".join(err["hints"])


def test_organism_in_query_contradicts_files(workspace):
    inputs = example_inputs(workspace, "bulk_de")[:2]
    err = error_of(run("plan", "human differential expression", *sum((["-i", p] for p in inputs), []), "--json"))
    assert err["code"] == "constraint_violation"
    assert "mouse" in err["message"].lower() or "mus musculus" in err["message"].lower()


def test_without_json_the_error_goes_to_stderr():
    result = CliRunner().invoke(main, ["plan", ""])
    assert result.exit_code == 2
    assert "empty_query" in result.stderr


def test_compile_never_overwrites_without_force(workspace, tmp_path):
    out = tmp_path / "wf" / "workflow" / "Snakefile"
    args = ["compile", example_request("bulk_de"), *sum((["-i", p] for p in example_inputs(workspace, "bulk_de")), []),
            "-o", str(tmp_path / "wf"), "--no-validate"]
    assert run(*args).exit_code == 0
    out.write_text("# my own edits\n")
    err = error_of(run(*args, "--json"))
    assert err["code"] == "output_exists"
    assert out.read_text() == "# my own edits\n"
    assert run(*args, "--force").exit_code == 0
    assert out.read_text() != "# my own edits\n"


def test_failed_compile_leaves_nothing(tmp_path):
    out = tmp_path / "wf" / "Snakefile"
    err = error_of(run("compile", "please make me a sandwich", "-o", str(out), "--json"))
    assert err["code"] == "no_operation_recognized"
    assert not out.parent.exists()
    assert not any(p.name.startswith(".bioplan-") for p in tmp_path.iterdir())


def test_invalid_knowledge_is_reported_with_file_and_key(tmp_path, monkeypatch):
    extra = tmp_path / "extra"
    (extra / "ontology" / "tools").mkdir(parents=True)
    (extra / "ontology" / "tools" / "broken_tool.yaml").write_text(
        "id: broken_tool\nname: Broken\nimplements: differential_expresion\ndescription: x\nhomepage: x\n"
        "citation: x\nsoftware: {conda: [x], container: x, version: '1', version_command: x}\n"
        "inputs: {}\noutputs: {}\ntemplates: {snakemake: snakemake/missing.smk.j2}\n")
    monkeypatch.setenv("BIOPLAN_KNOWLEDGE", str(extra))
    err = error_of(run("plan", "differential expression", "--json"))
    assert err["code"] == "invalid_knowledge"
    problems = err["details"]["problems"]
    assert any("broken_tool.yaml" in p and "differential_expresion" in p and "did you mean" in p for p in problems)


def test_input_type_declaration(workspace):
    inputs = example_inputs(workspace, "bulk_de")
    result = run("plan", "differential expression", "-i", inputs[0], "--input-type", f"{inputs[1]}=sample_metadata",
                 "--json")
    assert result.exit_code == 0, result.output
    spec = json.loads(result.output)["task_spec"]
    declared = next(i for i in spec["inputs"] if i["path"] == inputs[1])
    assert declared["datatype"] == "sample_metadata"
    err = error_of(run("plan", "differential expression", "-i", inputs[0], "--input-type",
                       f"{inputs[1]}=sample_metadta", "--json"))
    assert err["code"] == "unreadable_input" and "sample_metadata" in " ".join(err["hints"])


def test_a_declared_fasta_takes_the_format_of_its_declared_datatype(knowledge, tmp_path):
    """--input-type FILE=rrna_database on a .fasta: plain FASTA, not the DADA2 training FASTA that
    shares the extension (that format is recognised as another datatype, taxonomy_training_set)."""
    from bioplan.compile import declared_file

    fasta = tmp_path / "rrna.fasta"
    fasta.write_text(">planted_rRNA\nACGT\n")
    assert declared_file(knowledge, str(fasta), "rrna_database").format == "fasta"
    assert declared_file(knowledge, str(fasta), "taxonomy_training_set").format == "dada2_training_fasta"


def test_a_declared_table_takes_a_format_its_datatype_lists_among_those_of_its_extension(knowledge, tmp_path):
    """A .tsv declared as an ASV table is tsv, not the PLINK phenotype table (plink_pheno also reads .tsv
    and has a longer extension, .pheno, that this file does not end with: only the matching extension counts)."""
    from bioplan.compile import declared_file

    table = tmp_path / "asv_table.tsv"
    table.write_text("asv_id\tsequence\tgut_a\nASV_1\tACGT\t10\n")
    assert declared_file(knowledge, str(table), "nonchimeric_asv_table").format == "tsv"
    assert declared_file(knowledge, str(table), "phenotype_table").format == "plink_pheno"
    pheno = tmp_path / "cohort.pheno"
    pheno.write_text("FID\tIID\tcase\nf1\ti1\t2\n")
    assert declared_file(knowledge, str(pheno), "phenotype_table").format == "plink_pheno"
