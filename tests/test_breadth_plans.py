"""Plans of the analyses added for breadth (once refused by name as unsupported): what the planner binds
and reads, and what it still refuses. Plans only (no compile, no tool run): the runs with a science
check are tests/e2e/test_methylation_dss_run.py and the others named in tests/tool_cases/."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import UnknownToolError, UnsatisfiableError, UnsupportedAnalysisError

SAMPLES = {"ctrl_1": "control", "ctrl_2": "control", "treated_1": "treated", "treated_2": "treated"}


@pytest.fixture(scope="module")
def coverage_files(tmp_path_factory) -> list[str]:
    """Bismark coverage files as bismark_methylation_extractor names them, and a sample sheet."""
    folder = tmp_path_factory.mktemp("bismark")
    paths = []
    for sample in SAMPLES:
        path = folder / f"{sample}.bismark.cov.gz"
        with gzip.open(path, "wt") as fh:
            fh.writelines(f"chr1\t{p}\t{p}\t50\t5\t5\n" for p in range(100, 400, 20))
        paths.append(str(path))
    sheet = folder / "samples.tsv"
    sheet.write_text("sample\tcondition\n" + "".join(f"{s}\t{c}\n" for s, c in SAMPLES.items()))
    return [*paths, str(sheet)]


def _steps(result) -> dict[str, str]:
    return {s.operation: s.tool for s in result.plans[0].steps}


def test_dmrs_from_coverage_files_bind_dss_with_the_samples_named_by_the_files(knowledge, coverage_files):
    result = plan_request("find the differentially methylated regions between treated and control",
                          coverage_files, knowledge)
    assert _steps(result) == {"differential_methylation": "dss_calldmr"}
    spec = result.spec
    assert spec.target_output.semantic_type == "differentially_methylated_regions"
    calls = [i for i in spec.inputs if i.datatype == "methylation_calls"]
    assert sorted(i.sample for i in calls) == sorted(SAMPLES)
    assert "bisulfite_sequencing" in spec.constraint_ids


def test_dmrs_from_bisulfite_reads_follow_the_bismark_route(knowledge):
    result = plan_request("call the DMRs between tumour and normal from the WGBS reads with DSS", [], knowledge)
    steps = _steps(result)
    assert steps["differential_methylation"] == "dss_calldmr"
    assert steps["methylation_calling"] == "bismark_methylationextractor"
    assert "bisulfite_deduplication" in steps


@pytest.mark.parametrize(("query", "error"), [
    ("call the DMRs between treated and control with metilene", UnknownToolError),
    ("differential methylation with methylKit between the groups", UnknownToolError),
])
def test_tools_bioplan_lacks_for_it_are_refused_by_name(knowledge, query, error):
    with pytest.raises(error) as err:
        plan_request(query, [], knowledge)
    assert "DSS" in err.value.message


def test_without_a_sample_sheet_nothing_compares_conditions(knowledge, coverage_files):
    with pytest.raises(UnsatisfiableError) as err:
        plan_request("find the differentially methylated regions", coverage_files[:-1], knowledge)
    assert "sample_metadata" in err.value.message


def test_the_bismark_coverage_signature_names_the_sample(tmp_path: Path, knowledge):
    from bioplan.request.sniff import sniff_file

    path = tmp_path / "liver_3_val_1_bismark_bt2_pe.deduplicated.bismark.cov.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("chr1\t100\t100\t66.6667\t2\t1\n")
    found = sniff_file(str(path), {}, formats=knowledge.formats)
    assert (found.datatype, found.format) == ("methylation_calls", "bismark_coverage")
    assert found.sample == "liver_3_val_1_bismark_bt2_pe.deduplicated"


# --------------------------------------------------------------------------- OTU clustering (VSEARCH)
ASV_TABLE = "asv_id\tsequence\tgut_a\tgut_b\nASV_1\tACGTACGTAC\t10\t3\nASV_2\tACGTACGTAA\t2\t0\n"


def test_otus_of_the_denoised_asvs_follow_dada2(knowledge):
    steps = _steps(plan_request("denoise the 16S reads into ASVs with DADA2, remove chimeras, then cluster the ASVs "
                                "into 97% OTUs", [], knowledge))
    assert steps["otu_clustering"] == "vsearch_cluster"
    assert steps["chimera_removal"] == "dada2_rmchimera" and steps["asv_inference"] == "dada2_denoising"


def test_otus_from_an_asv_table_then_their_taxonomy(knowledge, tmp_path):
    table = tmp_path / "asv_table.tsv"
    table.write_text(ASV_TABLE)
    result = plan_request("cluster into OTUs at 97% identity with VSEARCH, then assign taxonomy against SILVA",
                          [str(table)], knowledge, declared={str(table): "nonchimeric_asv_table"})
    plan = result.plans[0]
    assert {s.operation: s.tool for s in plan.steps} == {"otu_clustering": "vsearch_cluster",
                                                        "asv_taxonomy_assignment": "dada2_assigntaxonomy"}
    taxonomy = next(s for s in plan.steps if s.operation == "asv_taxonomy_assignment")
    assert taxonomy.sources["table"] == "otu_clustering"  # the centroids are classified, as ampliseq does
    assert not result.spec.unrecognized


@pytest.mark.parametrize("query", ["OTU clustering of the ASVs at 99% identity", "post-clustering with VSEARCH",
                                   "otu聚类"])
def test_otu_words_name_the_operation(knowledge, query):
    from bioplan.request.parse import parse_request

    request = parse_request(query, knowledge)
    assert "otu_clustering" in request.operations and not request.unrecognized


@pytest.mark.parametrize("query", ["Picking OTU's", "cluster the 16S amplicon reads into 97% OTUs",
                                   "pick OTUs at 97% identity with UPARSE", "cluster the OTUs with mothur",
                                   "closed reference OTU picking against Greengenes"])
def test_otus_picked_from_the_reads_stay_refused_saying_what_bioplan_does(knowledge, query):
    """QIIME's pick_otus, UPARSE and the mothur SOP cluster the reads themselves: not what clustering the
    denoised ASVs is, so refused as an analysis, the hint naming the ASV route."""
    with pytest.raises(UnsupportedAnalysisError) as err:
        plan_request(query, [], knowledge)
    assert "OTU picking from the reads" in err.value.message
    assert any("cluster the chimera-free ASVs into OTUs with VSEARCH" in h for h in err.value.hints)


# --------------------------------------------------------------------------- gene-body meta-profile (deepTools)
def test_a_gene_body_meta_profile_is_scale_regions_then_the_plot(knowledge):
    steps = _steps(plan_request("ChIP-seq: align the reads, make bigWig tracks and plot the gene-body meta-profile",
                                [], knowledge))
    assert steps["gene_body_signal_computation"] == "deeptools_computematrix_scaleregions"
    assert "signal_profile_plotting" in steps and "signal_matrix_computation" not in steps


# --------------------------------------------------------------------------- signal over peaks or other regions
@pytest.mark.parametrize(("query", "plot"), [
    ("Heatmap peak analysis (deepTools)", "deeptools_plotheatmap"),
    ("ChIP-seq: call peaks and draw a heatmap of the signal over the peaks", "deeptools_plotheatmap"),
    ("ATAC-seq: plot the signal profile around the peaks", "deeptools_plotprofile"),
    ("ChIP-seq数据：绘制峰信号热图", "deeptools_plotheatmap"),
])
def test_profiles_over_peaks_are_the_peak_centred_matrix_then_its_plot(knowledge, query, plot):
    steps = _steps(plan_request(query, [], knowledge))
    assert steps["region_signal_computation"] == "deeptools_computematrix_peaks"
    assert steps["signal_profile_plotting"] == plot
    assert "signal_matrix_computation" not in steps and "gene_body_signal_computation" not in steps


def test_a_heatmap_word_chooses_plotheatmap_and_says_so(knowledge):
    result = plan_request("ChIP-seq: plot a TSS heatmap of the bigWig tracks", [], knowledge)
    steps = _steps(result)
    assert steps["signal_matrix_computation"] == "deeptools_computematrix"
    assert steps["signal_profile_plotting"] == "deeptools_plotheatmap"
    assert any("signal heatmap" in w and "plotHeatmap" in w for w in result.warnings)
