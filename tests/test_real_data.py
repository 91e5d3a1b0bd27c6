"""Real public files as they come from the tools and the archives, offline (issue 13).

Data: scanpy's bundled PBMC 68k (reduced) AnnData (inside the scanpy wheel), samtools' packaged
example alignments (Debian samtools), 1000 Genomes chr22 VCF of Bioconductor's VariantAnnotation
(Debian r-bioc-variantannotation, installed by scripts/install-tools.sh). Each test checks what
bioplan reads from the file and that a natural request plans from where the data is. Missing
data skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bioplan.compile import organism_prefixes, plan_request
from bioplan.knowledge.load import load_knowledge
from bioplan.request.sniff import sniff_inputs

CHR22 = Path("/usr/lib/R/site-library/VariantAnnotation/extdata/chr22.vcf.gz")
SAMTOOLS_EX1 = Path("/usr/share/doc/samtools/examples/ex1.sam.gz")


def need(path: Path, what: str) -> Path:
    if path.exists():
        return path
    message = f"{what} not found at {path}; install it with `bash scripts/install-tools.sh`"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def pbmc68k_path() -> Path:
    scanpy = pytest.importorskip("scanpy")
    return need(Path(scanpy.__file__).parent / "datasets" / "10x_pbmc68k_reduced.h5ad",
                "scanpy's bundled pbmc68k_reduced")


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def one(path: Path, knowledge):
    profile = sniff_inputs([str(path)], organism_prefixes(knowledge))
    assert len(profile.files) == 1
    return profile.files[0]


def test_pbmc68k_state_is_read_from_the_values(knowledge):
    f = one(pbmc68k_path(), knowledge)
    # X is scaled (z-scores), .raw holds the log-normalised matrix, louvain is an earlier clustering
    assert f.datatype == "normalized_single_cell_matrix"
    assert f.fact("x_state") == "scaled" and "negative values" in next(e for e in f.evidence if e.startswith("X is"))
    assert f.fact("raw_state") == "log_normalized"
    assert f.fact("raw_counts_at") is None
    assert f.fact("cluster_columns") == ["louvain"]
    assert f.fact("label_columns") == ["bulk_labels"]  # published cell labels: groups too, not a clustering
    assert {"X_pca", "X_umap"} <= set(f.fact("embeddings"))
    assert (f.fact("n_cells"), f.fact("n_genes")) == (700, 765)


@pytest.mark.parametrize("query", [
    "cluster the cells and find marker genes",
    "cluster these single cells with leiden, then marker genes per cluster",
    "单细胞数据聚类并找每个亚群的marker基因",
])
def test_pbmc68k_clustering_requests_start_where_the_data_is(knowledge, query):
    result = plan_request(query, [str(pbmc68k_path())], knowledge=knowledge)
    ops = [s.operation for s in result.plans[0].steps]
    assert ops[:2] == ["cell_clustering", "marker_gene_detection"]
    assert "sc_quality_filtering" not in ops and "sc_normalization" not in ops


@pytest.mark.parametrize("query, column", [
    ("find marker genes", "louvain"),
    ("找marker基因", "louvain"),
    ("find marker genes for each bulk_labels group", "bulk_labels"),
])
def test_pbmc68k_markers_use_the_existing_clusters(knowledge, query, column, tmp_path):
    """Markers on an already clustered file: the file's grouping, named in the warning, no re-clustering."""
    from bioplan.compile import emit_files

    result = plan_request(query, [str(pbmc68k_path())], knowledge=knowledge)
    (step,) = result.plans[0].steps
    assert step.operation == "marker_gene_detection" and step.sources["adata"] == "input:clustered_single_cell_data"
    assert result.spec.cluster_column == column
    assert any(f"obs column '{column}'" in w and "louvain, bulk_labels" in w for w in result.spec.warnings)
    workflow, _ = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path)
    assert workflow.params["scanpy_rank_genes_groups"]["cluster_key"] == column


def test_pbmc68k_a_request_to_cluster_re_clusters(knowledge, tmp_path):
    from bioplan.compile import emit_files

    result = plan_request("cluster the cells, then find marker genes", [str(pbmc68k_path())], knowledge=knowledge)
    assert [s.operation for s in result.plans[0].steps][:2] == ["cell_clustering", "marker_gene_detection"]
    assert result.spec.cluster_column is None
    workflow, _ = emit_files(knowledge, result, result.plans[0], "snakemake", tmp_path)
    assert workflow.params["scanpy_rank_genes_groups"]["cluster_key"] == "leiden"
    assert workflow.params["scanpy_leiden"]["cluster_key"] == "leiden"  # never overwrites the file's louvain


def test_pbmc68k_normalisation_request_is_already_done(knowledge):
    """Asking to normalise data that is normalised: the step is skipped with a warning, not an error."""
    result = plan_request("single-cell normalization, then cluster the cells", [str(pbmc68k_path())],
                          knowledge=knowledge)
    ops = [s.operation for s in result.plans[0].steps]
    assert ops == ["cell_clustering"]
    assert any("already past it" in w and "scaled" in w for w in result.spec.warnings)


@pytest.mark.parametrize("query", [
    "QC, normalize and cluster the cells, then find marker genes",
    "质控、标准化、聚类，然后找marker基因",
])
def test_pbmc68k_qc_normalise_cluster_markers_starts_where_the_data_is(knowledge, query):
    """'QC' and 'normalize' beside an .h5ad are the single-cell steps (not read QC or bulk normalisation);
    the data is past both, so they are dropped with a warning saying why, and the rest is planned."""
    result = plan_request(query, [str(pbmc68k_path())], knowledge=knowledge)
    assert [s.operation for s in result.plans[0].steps] == ["cell_clustering", "marker_gene_detection"]
    past = [w for w in result.spec.warnings if "already past it" in w]
    assert any(w.startswith("Single-cell QC filtering is not run") for w in past)
    assert any(w.startswith("Single-cell normalisation is not run") for w in past)
    assert not any("read quality control" in w or "describing the data" in w for w in result.spec.warnings)


def test_chr22_vcf_with_its_index(knowledge):
    vcf = need(CHR22, "VariantAnnotation's chr22.vcf.gz")
    profile = sniff_inputs([str(vcf), str(vcf) + ".tbi"], organism_prefixes(knowledge))
    (f,) = profile.files
    assert (f.datatype, f.format) == ("variant_calls", "vcf.gz")
    assert f.fact("bgzipped") is True and f.fact("index") == str(vcf) + ".tbi"
    assert f.fact("samples") == ["HG00096", "HG00097", "HG00099", "HG00100", "HG00101"]
    assert any("read as the index of" in w for w in profile.warnings)


def test_chr22_filter_plan_checks_the_fields(knowledge):
    vcf = need(CHR22, "VariantAnnotation's chr22.vcf.gz")
    result = plan_request("filter the variants", [str(vcf)], knowledge=knowledge)
    (step,) = result.plans[0].steps
    assert step.operation == "variant_filtering" and step.tool == "bcftools_filter"
    assert "requires_vcf_filter_fields" in result.spec.constraint_ids


def test_samtools_example_alignments(knowledge):
    f = one(need(SAMTOOLS_EX1, "samtools' example ex1.sam.gz"), knowledge)
    # headerless SAM: recognised from its 11-column records; no @HD, so not declared sorted
    assert (f.datatype, f.format) == ("aligned_reads", "sam")
    assert any("11-column alignment records" in e for e in f.evidence) and f.fact("sorted") is False


def test_index_without_its_data_says_what_to_give(knowledge, tmp_path):
    from bioplan.errors import UnreadableInputError

    lone = tmp_path / "calls.vcf.gz.tbi"
    lone.write_bytes(b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00\x1b\x00" + b"\x00" * 40)
    with pytest.raises(UnreadableInputError, match="index file") as e:
        sniff_inputs([str(lone)], organism_prefixes(knowledge))
    assert any("--input-type" in h for h in e.value.hints)
