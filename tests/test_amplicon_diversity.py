"""Diversity of amplicon (16S/ITS) data, as nf-core/ampliseq computes it: alpha diversity per sample
(observed richness, Shannon, Simpson) and the Bray-Curtis dissimilarity between samples, from the ASV
(or OTU) table. diversity_analysis read only a shotgun study's taxa abundance table: an amplicon request
("alpha and beta diversity of my ASV table", "DADA2 then diversity", "计算16S的alpha多样性") was refused
(it applies to shotgun_metagenomics) or planned through the taxonomy. Its port now reads a feature count
table (taxa, ASVs, OTUs x samples); from DADA2's reads the chimeras are removed first (ampliseq never
skips it), and reads of no named assay keep the shotgun route (Kraken2, merged reports)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError
from helpers import fastq_pairs
from test_step_scripts import assert_failed, read_tsv, step  # noqa: F401 (step is a fixture)

# an ASV table as DADA2 writes it (bioplan's dada2_denoising/dada2_rmchimera, ampliseq's ASV_table.tsv)
ASV_TABLE = ("asv_id\tsequence\tS1\tS2\tS3\n"
             "ASV_1\tTACGGAGGGTGCAAGCGTTAATCGGAATTACTGGGCGTAAAG\t60\t10\t0\n"
             "ASV_2\tTACGTAGGTGGCAAGCGTTGTCCGGATTTATTGGGCGTAAAG\t30\t10\t5\n"
             "ASV_3\tTACGGAGGATCCGAGCGTTATCCGGATTTATTGGGTTTAAAG\t10\t10\t0\n"
             "ASV_4\tTACGTAGGGGGCAAGCGTTATCCGGATTTACTGGGTGTAAAG\t0\t10\t0\n")

FROM_A_TABLE = ["alpha and beta diversity of my ASV table",
                "Shannon, Simpson and Bray-Curtis diversity of the samples in this 16S ASV table",
                "compute the alpha diversity of each sample of the 16S amplicon data",
                "计算16S的alpha多样性",
                "计算ASV表中每个样本的alpha多样性和beta多样性"]
FROM_DADA2 = ["DADA2 then diversity",
              "16S amplicon reads - denoise into ASVs with DADA2, then compute the alpha and beta diversity of "
              "every sample",
              "diversity of the samples after denoising with DADA2",
              "用DADA2去噪后计算alpha和beta多样性",
              "16S扩增子测序数据：用DADA2降噪得到ASV，然后计算每个样本的alpha多样性和样本间的beta多样性"]


def steps(result) -> list[tuple[str, str]]:
    return [(s.operation, s.tool) for s in result.plans[0].steps]


def sources(result) -> dict[str, dict[str, str]]:
    return {s.operation: dict(s.sources) for s in result.plans[0].steps}


@pytest.fixture
def asv_table(tmp_path) -> str:
    path = tmp_path / "asv_table.tsv"
    path.write_text(ASV_TABLE, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("query", FROM_A_TABLE)
def test_a_given_asv_table_is_the_diversity_steps_input(knowledge, asv_table, query):
    result = plan_request(query, [asv_table], knowledge=knowledge)
    assert steps(result) == [("diversity_analysis", "diversity_metrics")]
    (table,) = result.spec.inputs
    assert sources(result)["diversity_analysis"] == {"table": f"input:{table.datatype}"}
    assert result.spec.target_output.semantic_type == "diversity_table"


@pytest.mark.parametrize("query", ["alpha and beta diversity of my ASV table", "diversity of the OTU counts",
                                   "计算16S的alpha多样性"])
def test_without_files_the_amplicon_diversity_reads_a_count_table_not_a_taxonomy(knowledge, query):
    result = plan_request(query, [], knowledge=knowledge)
    assert steps(result) == [("diversity_analysis", "diversity_metrics")]
    assert result.spec.input_types[0] in {"asv_table", "otu_table", "feature_count_table", "abundance_table"}


@pytest.mark.parametrize("query", FROM_DADA2)
def test_from_dada2_the_chimeras_are_removed_before_the_diversity(knowledge, query):
    result = plan_request(query, [], knowledge=knowledge)
    ops = [op for op, _ in steps(result)]
    assert {"asv_inference", "chimera_removal", "diversity_analysis"} <= set(ops), ops
    assert not {"taxonomic_classification", "abundance_table_merge", "taxonomy_abundance_summary"} & set(ops), ops
    wired = sources(result)
    assert wired["chimera_removal"]["table"] == "asv_inference"
    assert wired["diversity_analysis"]["table"] == "chimera_removal"
    assert dict(steps(result))["asv_inference"] == "dada2_denoising"
    assert result.spec.constraints.get("assay") == "amplicon_sequencing"


def test_the_chimera_free_route_is_ampliseqs_motif(knowledge):
    result = plan_request("DADA2 then diversity", [], knowledge=knowledge)
    assert result.plans[0].motif == "motif.amplicon_asv_diversity"


def test_amplicon_fastq_pairs_plan_dada2_then_diversity(knowledge, tmp_path):
    reads = fastq_pairs(tmp_path, ["gut_a", "gut_b"])
    result = plan_request("16S rRNA amplicon sequencing: alpha and beta diversity of the samples", reads,
                          knowledge=knowledge)
    ops = [op for op, _ in steps(result)]
    assert ops.index("asv_inference") < ops.index("chimera_removal") or \
        sources(result)["chimera_removal"]["table"] == "asv_inference"
    assert sources(result)["diversity_analysis"]["table"] == "chimera_removal"
    assert "taxonomic_classification" not in ops


def test_shotgun_reads_keep_the_kraken2_route(knowledge, tmp_path):
    reads = fastq_pairs(tmp_path, ["gut_a", "gut_b"])
    result = plan_request("shotgun metagenomics: alpha and beta diversity of the samples", reads,
                          knowledge=knowledge)
    ops = [op for op, _ in steps(result)]
    assert {"taxonomic_classification", "abundance_table_merge", "diversity_analysis"} <= set(ops), ops
    assert not {"asv_inference", "chimera_removal"} & set(ops), ops
    assert sources(result)["diversity_analysis"]["table"] == "abundance_table_merge"


def test_diversity_still_applies_to_no_other_assay(knowledge):
    with pytest.raises(BioplanError) as err:
        plan_request("RNA-seq: compute the Shannon diversity of the samples", [], knowledge=knowledge)
    assert err.value.code in {"constraint_violation", "unsatisfiable"}


def test_the_port_reads_every_amplicon_and_shotgun_count_table(knowledge):
    from bioplan.knowledge.queries import is_subtype

    port = knowledge.operations["diversity_analysis"].inputs["table"].datatype
    for datatype in ("abundance_table", "asv_table", "nonchimeric_asv_table", "otu_table"):
        assert is_subtype(knowledge, datatype, port), datatype
    assert not is_subtype(knowledge, "raw_count_matrix", port)
    assert set(knowledge.operations["diversity_analysis"].assays) == {"shotgun_metagenomics", "amplicon_sequencing"}


def _shannon(counts: list[int]) -> float:
    total = sum(counts)
    return -sum(c / total * math.log(c / total) for c in counts if c)


@pytest.mark.e2e
def test_the_diversity_step_runs_on_an_asv_table(tmp_path, asv_table):
    """The compiled workflow reads DADA2's ASV table (asv_id, sequence, samples): the sequence column is
    annotation, the three samples' alpha diversity and Bray-Curtis are the formulas' values."""
    from bioplan.compile import compile_request

    workdir = tmp_path / "wf"
    compile_request("alpha and beta diversity of this 16S ASV table", [asv_table], str(workdir / "Snakefile"),
                    force=True)
    proc = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "--cores", "1"], cwd=workdir,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:]
    (alpha_path,) = workdir.glob("results/**/alpha_diversity.tsv")
    (beta_path,) = workdir.glob("results/**/bray_curtis.tsv")
    header, *rows = [line.split("\t") for line in alpha_path.read_text(encoding="utf-8").splitlines()]
    alpha = {row[0]: dict(zip(header, row)) for row in rows}
    assert sorted(alpha) == ["S1", "S2", "S3"]  # 'sequence' is no sample
    assert [int(alpha[s]["richness"]) for s in ("S1", "S2", "S3")] == [3, 4, 1]
    assert float(alpha["S1"]["shannon"]) == pytest.approx(_shannon([60, 30, 10]), rel=1e-5)
    assert float(alpha["S2"]["shannon"]) == pytest.approx(math.log(4), rel=1e-5)
    assert float(alpha["S2"]["simpson"]) == pytest.approx(0.75, rel=1e-5)
    assert float(alpha["S3"]["shannon"]) == 0.0
    beta = {line.split("\t")[0]: line.split("\t")[1:] for line in beta_path.read_text(encoding="utf-8").splitlines()}
    # S1 (60, 30, 10, 0) vs S2 (10, 10, 10, 10): |50| + |20| + 0 + |10| = 80 over 140
    assert float(beta["S1"][1]) == pytest.approx(80 / 140, rel=1e-5)
    # Jaccard on presence: S1 {1, 2, 3} vs S2 {1, 2, 3, 4}: 1 - 3/4; S1 vs S3 {2}: 1 - 1/3
    (jaccard_path,) = workdir.glob("results/**/jaccard.tsv")
    jaccard = {line.split("\t")[0]: line.split("\t")[1:]
               for line in jaccard_path.read_text(encoding="utf-8").splitlines()}
    assert float(jaccard["S1"][1]) == pytest.approx(0.25, rel=1e-5)
    assert float(jaccard["S1"][2]) == pytest.approx(2 / 3, rel=1e-5)


@pytest.mark.e2e
def test_rarefaction_subsamples_every_sample_to_the_depth_and_drops_shallow_ones(step, tmp_path, asv_table):
    outputs = {"table": tmp_path / "alpha.tsv", "beta": tmp_path / "bc.tsv", "jaccard": tmp_path / "jac.tsv"}
    run = step("diversity_metrics.py", {"table": asv_table}, outputs, {"min_count": 0, "rarefaction_depth": 20})
    assert run.code == 0, run.log
    header, *rows = read_tsv(outputs["table"])
    totals = {row[0]: int(row[header.index("total_count")]) for row in rows}
    assert totals == {"S1": 20, "S2": 20}  # S3 (5 reads) dropped
    assert "S3" in run.log and "dropped by the rarefaction" in run.log
    again = {**outputs, "table": tmp_path / "again.tsv"}
    assert step("diversity_metrics.py", {"table": asv_table}, again,
                {"min_count": 0, "rarefaction_depth": 20}).code == 0
    assert outputs["table"].read_text() == again["table"].read_text()  # seeded: the same subsample
    run = step("diversity_metrics.py", {"table": asv_table}, outputs, {"min_count": 0, "rarefaction_depth": 500})
    assert_failed(run, "no sample of", "has 500 reads")
