"""The five reference examples compiled from their requests and run with real tools.

Each workflow runs once (`snakemake --cores 2`, indexes and databases built by its own rules);
the tests then check the science against the example's truth.json, not only that files exist.
"""

from __future__ import annotations

import csv
import gzip
import re
import subprocess

import numpy as np
import pandas as pd
import pytest
from e2e_support import (
    compile_workflow,
    few_fastqc_contaminants,
    generate,
    inputs,
    keep_intermediates,
    request,
    require_tools,
    run_ok,
    truth,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    base = tmp_path_factory.mktemp("e2e_examples")
    generate(base, "bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics")
    return base


def _run(base, name, configure=None):
    require_tools(name)
    data = base / "data"
    workdir = compile_workflow(request(name), inputs(data, name), base / "out" / name)
    if configure:
        configure(workdir)
    run_ok(workdir)
    return workdir, truth(data, name)


@pytest.fixture(scope="module")
def bulk_de(base):
    return _run(base, "bulk_de")


@pytest.fixture(scope="module")
def rnaseq_fastq(base):
    # 2,000 pairs a sample: the reads of the short transcripts repeat over FastQC's overrepresented threshold
    return _run(base, "rnaseq_fastq", configure=lambda workdir: few_fastqc_contaminants(workdir, base))


@pytest.fixture(scope="module")
def variants(base):
    return _run(base, "variants")


@pytest.fixture(scope="module")
def single_cell(base):
    # the defaults: QC thresholds adapt to the data (5 MADs), so 250 genes per cell need no setting;
    # the tests read the clustered .h5ad, an intermediate (temp()) unless kept
    return _run(base, "single_cell", configure=keep_intermediates)


@pytest.fixture(scope="module")
def metagenomics(base):
    return _run(base, "metagenomics")


def _tsv(path):
    return pd.read_csv(path, sep="\t")


def _general_stats(workdir):
    """MultiQC's general statistics: {sample: {column: value}}, empty cells left out (MultiQC 1.25
    names the columns <module>-<metric> and writes counts in millions)."""
    with open(workdir / "results/qc_report_aggregation/multiqc_data/multiqc_general_stats.txt") as handle:
        return {row["Sample"]: {k: float(v) for k, v in row.items() if k != "Sample" and v}
                for row in csv.DictReader(handle, delimiter="\t")}


# --------------------------------------------------------------------------- bulk_de
def test_bulk_de_planted_genes_are_significant(bulk_de):
    workdir, t = bulk_de
    de = _tsv(workdir / "results/differential_expression/deseq2_results.tsv").set_index("gene_id")
    up = {g["ensembl_gene_id"] for g in t["de_up"]}
    down = {g["ensembl_gene_id"] for g in t["de_down"]}
    assert len(up) == len(down) == 20
    assert (de.loc[sorted(up), "padj"] < 0.05).all() and (de.loc[sorted(up), "log2FoldChange"] > 1).all()
    assert (de.loc[sorted(down), "padj"] < 0.05).all() and (de.loc[sorted(down), "log2FoldChange"] < -1).all()
    called = set(de.index[(de["padj"] < 0.05) & (de["log2FoldChange"].abs() > 1)])
    assert called - up - down == set(), "false positives with |log2FC| > 1"
    # the significance filter passes exactly the planted genes on to enrichment
    sig = _tsv(workdir / "results/gene_filtering/significant_genes.tsv")
    assert set(sig.iloc[:, 0]) == up | down


def test_bulk_de_planted_sets_are_enriched(bulk_de):
    workdir, t = bulk_de
    merged = pd.read_csv(workdir / "results/csv_export/merged_pathways.csv")
    significant = merged[merged["padj"] < 0.05]
    assert set(significant["term"]) == set(t["planted_sets"])  # the planted sets and no decoy
    for term, planted in t["planted_sets"].items():
        row = significant[significant["term"] == term].iloc[0]
        assert row["source"] == planted["library"].upper()
        genes = {int(g) for g in str(row["genes"]).split(";")}
        assert genes == set(planted["planted_de_members_entrez"])


# --------------------------------------------------------------------------- rnaseq_fastq
def _log2fc(counts, samples):
    positive = counts[(counts > 0).all(axis=1)]
    geo = np.exp(np.log(positive).mean(axis=1))
    size = positive.div(geo, axis=0).median()  # median-of-ratios size factors
    norm = counts / size
    ctrl = [s for s, c in samples.items() if c == "control"]
    treated = [s for s, c in samples.items() if c != "control"]
    return np.log2(norm[treated].mean(axis=1) / norm[ctrl].mean(axis=1))


def test_rnaseq_reads_align(rnaseq_fastq):
    workdir, t = rnaseq_fastq
    for sample in t["samples"]:
        bam = workdir / "results/read_alignment" / sample / f"{sample}.bam"
        # mapped primary first mates, over the read pairs sampled
        mapped = int(subprocess.run(["samtools", "view", "-c", "-f", "0x40", "-F", "0x904", str(bam)],
                                    capture_output=True, text=True, check=True).stdout)
        rate = mapped / t["read_pairs_per_sample"]
        assert rate >= 0.95, f"{sample}: {rate:.1%} of read pairs aligned"


def test_rnaseq_multiqc_report_aggregates_every_qc_tool(rnaseq_fastq):
    """One MultiQC report of FastQC, fastp, STAR and featureCounts, with every sample's numbers."""
    workdir, t = rnaseq_fastq
    stats = _general_stats(workdir)
    pairs = t["read_pairs_per_sample"]
    assert (workdir / "results/qc_report_aggregation/multiqc_report.html").stat().st_size > 0
    for sample in t["samples"]:
        # FastQC (raw reads) and fastp per mate file, linked under the sample name
        for mate in (1, 2):
            assert round(stats[f"{sample}_{mate}"]["fastqc-total_sequences"] * 1e6) == pairs, (sample, mate)
        passed = round(stats[f"{sample}_1"]["fastp-filtering_result_passed_filter_reads"] * 1e6)  # both mates
        assert 0.9 * 2 * pairs <= passed <= 2 * pairs, sample  # a few short reads dropped at most
        # STAR and featureCounts per sample (read group and BAM named after it): STAR aligns the pairs fastp kept
        assert round(stats[sample]["star-total_reads"] * 1e6) == passed // 2, sample
        assert stats[sample]["star-uniquely_mapped_percent"] > 90, sample
        assert 0 < stats[sample]["featurecounts-Assigned"] * 1e6 <= passed // 2, sample


# how each rnaseq tool prints its own version (written out by hand, not the knowledge's commands)
INSTALLED_VERSION = {
    "star": (["STAR", "--version"], r"^(\S+)$"),
    "fastp": (["fastp", "--version"], r"^fastp (\S+)$"),
    "fastqc": (["fastqc", "--version"], r"^FastQC v(\S+)$"),
    "subread": (["featureCounts", "-v"], r"^featureCounts v(\S+)$"),
    "multiqc": (["multiqc", "--version"], r"^multiqc, version (\S+)$"),
}


def _installed_version(package):
    import re

    from e2e_support import env

    command, pattern = INSTALLED_VERSION[package]
    run = subprocess.run(command, capture_output=True, text=True, env=env())
    found = re.search(pattern, (run.stdout + run.stderr).strip(), re.M)
    assert found, (command, run.stdout, run.stderr)
    return found.group(1)


def test_rnaseq_software_versions_are_the_installed_tools(rnaseq_fastq):
    """results/pipeline_info/software_versions.yml: every package the workflow's tools come from, with
    the version its env runs; MultiQC's report shows the same table in its Software Versions section."""
    import yaml

    workdir, _ = rnaseq_fastq
    recorded = yaml.safe_load((workdir / "results/pipeline_info/software_versions.yml").read_text())
    assert recorded == {package: _installed_version(package) for package in INSTALLED_VERSION}
    # MultiQC merges the table with the versions its modules find (it names those 'FastQC', 'STAR')
    section = (workdir / "results/qc_report_aggregation/multiqc_data/multiqc_software_versions.txt").read_text()
    rows = {row[0].lower(): row[1:] for row in csv.reader(section.splitlines()[1:], delimiter="\t")}
    assert set(recorded) <= set(rows), section
    for package, version in recorded.items():
        assert any(version in cell for cell in rows[package]), (package, version, section)


def test_rnaseq_trimmed_reads_deleted_after_alignment(rnaseq_fastq):
    """The trimmed FASTQs are intermediates (temp()): gone once the aligner read them; fastp's
    reports and the indexed BAM stay."""
    workdir, t = rnaseq_fastq
    for sample in t["samples"]:
        folder = workdir / "results/read_trimming" / sample
        assert not list(folder.glob("trimmed_*.fastq.gz")), f"{sample}: trimmed reads kept"
        assert (folder / "fastp.json").is_file()
        assert (workdir / "results/read_alignment" / sample / f"{sample}.bam.bai").is_file()


def test_rnaseq_counts_recover_planted_fold_changes(rnaseq_fastq):
    workdir, t = rnaseq_fastq
    counts = _tsv(workdir / "results/read_counting/counts.tsv").set_index("gene_id")
    assert list(counts.columns) == sorted(t["samples"])
    true = pd.DataFrame(t["true_counts"]).loc[counts.index, counts.columns]
    # every read pair is counted once, to its gene: within 2 % (+3) of the truth
    assert ((counts - true).abs() <= 3 + 0.02 * true).all().all(), (counts - true)
    assert (counts.loc[t["not_expressed"]] == 0).all().all()
    observed, expected = _log2fc(counts, t["samples"]), _log2fc(true, t["samples"])
    expressed = counts.index[(counts > 0).all(axis=1)]
    assert (observed[expressed] - expected[expressed]).abs().max() < 0.15
    for gene, planted in t["planted_fold_changes"].items():
        assert np.sign(observed[gene]) == np.sign(planted["log2fc"]) and abs(observed[gene]) > 1.5, gene
    others = [g for g in expressed if g not in t["planted_fold_changes"]]
    assert observed[others].abs().max() < 1


# --------------------------------------------------------------------------- variants
# The plan may annotate with SnpEff (INFO/ANN, Sequence Ontology terms) or bcftools csq
# (INFO/BCSQ); truth.json gives each variant's SO term and bcftools csq consequence.
ANN_INTERGENIC = {"intergenic_region", "upstream_gene_variant", "downstream_gene_variant"}


def _annotated(workdir):
    # the annotated VCF as the user keeps it: bgzipped and indexed (the plain one is temporary),
    # or plain where no compression step follows (the Nextflow run publishes the annotation's own)
    found = [p for folder in ("results/variant_annotation_bgzip", "results/variant_annotation")
             for p in sorted((workdir / folder).glob("annotated.vcf*")) if not p.name.endswith((".tbi", ".csi"))]
    assert found, f"no annotated VCF under {workdir}/results"
    path = found[0]
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt") as handle:
        lines = handle.read().splitlines()
    field = "ANN" if any(line.startswith("##INFO=<ID=ANN,") for line in lines) else "BCSQ"
    records = {}
    for line in lines:
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        info = dict(kv.split("=", 1) for kv in cols[7].split(";") if "=" in kv)
        entries = [e.split("|") for e in info[field].split(",")] if field in info else []
        records[(cols[0], int(cols[1]))] = (cols, entries)
    return field, records


def _consequences(field, entries):
    """{(term, gene name)} of a record's annotations; intergenic ones with gene ''."""
    found = set()
    for e in entries:
        if field == "ANN":  # Allele|Annotation|Impact|Gene_Name|Gene_ID|...
            for term in e[1].split("&"):
                found.add((term, "" if term in ANN_INTERGENIC else e[3]))
        elif not e[0].startswith("@"):  # Consequence|gene|transcript|...
            found.update((term.lstrip("*"), e[1]) for term in e[0].split("&"))
    return found


def test_variants_every_variant_gets_its_consequence(variants):
    workdir, t = variants
    field, records = _annotated(workdir)
    kept = [v for v in t["variants"] if not v["low_quality"]]
    assert sorted(records) == sorted((v["chrom"], v["pos"]) for v in kept)  # the filter drops QUAL < 20
    for v in kept:
        cols, entries = records[(v["chrom"], v["pos"])]
        found = _consequences(field, entries)
        genic = {c for c in found if c[1]}
        if v["bcftools_csq"] is None:  # outside every transcript
            assert not genic, (v, found)
        else:
            expected = (v["so_term"] if field == "ANN" else v["bcftools_csq"], v["gene_name"])
            assert expected in found, (v, found)
        if field == "ANN":
            assert found, f"{v['chrom']}:{v['pos']} has no annotation"


def test_variants_summary_counts_match_the_vcf(variants):
    workdir, t = variants
    summary = {}
    with open(workdir / "results/variant_summary/variant_summary.tsv") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            summary.setdefault(row["summary"], {})[row["category"]] = int(row["count"])
    field, records = _annotated(workdir)
    kept = [v for v in t["variants"] if not v["low_quality"]]
    # the truth: 15 records, their types and the non-reference genotypes per sample
    assert summary["total"] == {"variants": len(kept)} == {"variants": t["n_variants"] - t["n_low_quality"]}
    assert summary["type"] == {"snv": sum(v["type"] == "SNP" for v in kept),
                               "indel": sum(v["type"] == "INDEL" for v in kept)}
    assert summary["sample"] == {s: sum(v["genotypes"][s] not in ("0/0", "./.") for v in kept)
                                 for s in t["samples"]}
    # consequences and genes: each count is the number of records of the annotated VCF with it
    terms, genes = {}, {}
    for _, entries in records.values():
        found = _consequences(field, entries)
        for term in {c[0] for c in found} or {"intergenic" if field == "BCSQ" else "none"}:
            terms[term] = terms.get(term, 0) + 1
        for gene in {c[1] for c in found if c[1]}:
            genes[gene] = genes.get(gene, 0) + 1
    assert summary["consequence"] == terms
    assert "none" not in summary["consequence"]  # every variant has a consequence
    assert summary["gene"] == genes
    # ... and they agree with the truth: each variant's consequence, and the genes hit
    def term(v):
        if v["bcftools_csq"] is None:
            return "intergenic_region" if field == "ANN" else "intergenic"
        return v["so_term"] if field == "ANN" else v["bcftools_csq"]

    for name in {term(v) for v in kept}:
        assert summary["consequence"][name] == sum(term(v) == name for v in kept), name
    in_genes = [v["gene_name"] for v in kept if v["bcftools_csq"]]
    assert genes == {g: in_genes.count(g) for g in set(in_genes)}  # gene symbols, variants inside them


def test_variants_vcf_is_bgzipped_and_indexed(variants):
    """The annotated VCF is a .vcf.gz with a valid tabix index: every kept variant is found by region."""
    pysam = pytest.importorskip("pysam")
    workdir, t = variants
    folder = workdir / "results/variant_annotation_bgzip"
    vcf = folder / "annotated.vcf.gz"
    assert (folder / "annotated.vcf.gz.tbi").is_file()
    with open(vcf, "rb") as handle:  # BGZF: gzip with the 'BC' extra subfield
        head = handle.read(16)
    assert head[:2] == b"\x1f\x8b" and head[3] & 4 and head[12:14] == b"BC"
    kept = [v for v in t["variants"] if not v["low_quality"]]
    with pysam.TabixFile(str(vcf), index=str(folder / "annotated.vcf.gz.tbi")) as tabix:
        assert set(tabix.contigs) == {v["chrom"] for v in kept}
        for v in kept:
            hits = [line.split("\t") for line in tabix.fetch(v["chrom"], v["pos"] - 1, v["pos"])]
            assert [(h[0], int(h[1])) for h in hits] == [(v["chrom"], v["pos"])], v


def test_variants_multiqc_reports_snpeff(variants):
    workdir, t = variants
    stats = _general_stats(workdir)
    kept = [v for v in t["variants"] if not v["low_quality"]]
    (row,) = stats.values()  # one annotated VCF for the cohort
    assert round(row["snpeff-Number_of_variants_before_filter"] * 1e6) == len(kept)


# --------------------------------------------------------------------------- single_cell
def test_single_cell_clusters_recover_cell_types(single_cell):
    import anndata
    from sklearn.metrics import adjusted_rand_score

    workdir, t = single_cell
    adata = anndata.read_h5ad(workdir / "results/cell_clustering/clustered.h5ad")
    assert not set(adata.obs_names) & set(t["high_mt_cells"])  # QC removed the high-MT cells
    # ... and kept the others, but for the few the MAD bounds call outliers (at most 1 %)
    healthy = t["shape"]["n_obs"] - len(t["high_mt_cells"])
    assert healthy - healthy // 100 <= adata.n_obs <= healthy
    truth_types = [t["cell_type_of"][b] for b in adata.obs_names]
    ari = adjusted_rand_score(truth_types, adata.obs["leiden"].astype(str))
    assert ari >= 0.9, f"ARI {ari:.3f}"


def _cluster_types(workdir, t):
    import anndata

    adata = anndata.read_h5ad(workdir / "results/cell_clustering/clustered.h5ad")
    frame = pd.DataFrame({"cluster": adata.obs["leiden"].astype(str).to_numpy(),
                          "type": [t["cell_type_of"][b] for b in adata.obs_names]})
    return frame.groupby("cluster")["type"].agg(lambda s: s.value_counts().index[0]).to_dict()


def test_single_cell_markers_and_enriched_sets_per_cluster(single_cell):
    workdir, t = single_cell
    types = _cluster_types(workdir, t)
    assert sorted(types.values()) == sorted(t["cell_types"])  # one cluster per planted type
    markers = _tsv(workdir / "results/marker_gene_detection/markers.tsv")
    markers["cluster"] = markers["cluster"].astype(str)
    enrichment = _tsv(workdir / "results/marker_enrichment/marker_enrichment.tsv")
    enrichment["cluster"] = enrichment["cluster"].astype(str)
    set_of = {cell_type: name for name, cell_type in t["planted_sets"].items()}
    for cluster, cell_type in types.items():
        top = markers[markers["cluster"] == cluster].sort_values("rank")["gene"].head(12)
        assert len(set(top) & set(t["markers"][cell_type])) >= 10, (cluster, cell_type, list(top))
        hits = enrichment[enrichment["cluster"] == cluster].sort_values("Adjusted P-value")
        assert hits.iloc[0]["Term"] == set_of[cell_type] and hits.iloc[0]["Adjusted P-value"] < 0.05


# --------------------------------------------------------------------------- metagenomics
def test_metagenomics_planted_taxa_detected(metagenomics):
    workdir, t = metagenomics
    table = _tsv(workdir / "results/abundance_table_merge/abundance_table.tsv")
    table["taxid"] = table["taxid"].astype(str)
    table = table.set_index("taxid")
    for sample, true in t["true_read_pairs"].items():
        for taxid, pairs in true.items():
            if taxid == "host":
                continue
            # species-level read pairs within 5 % of the truth (a few go to the genus by LCA)
            assert abs(table.loc[taxid, sample] - pairs) <= 0.05 * pairs + 5, (sample, taxid)
        # host reads were removed before classification: nothing beyond the bacterial pairs
        assert table[sample].sum() <= sum(v for k, v in true.items() if k != "host")


def test_metagenomics_planted_difference_is_differential(metagenomics):
    workdir, t = metagenomics
    da = _tsv(workdir / "results/differential_abundance/differential_abundance.tsv")
    da["taxid"] = da["taxid"].astype(str)
    planted = t["planted"]
    row = da[da["taxid"] == str(planted["taxid"])].iloc[0]
    assert (row["group_a"], row["group_b"]) == (t["reference_group"], planted["higher_in"])
    assert row["padj"] < 0.05 and row["effect"] > 1  # higher in B, on the CLR (natural log) scale
    assert da.loc[da["effect"].idxmax(), "taxid"] == str(planted["taxid"])  # the one taxon up in B


# A Kraken2 report line as MultiQC recognises a report by (its first lines): the rank code column is
# filled. Kraken2 up to 2.1.4 builds its rank code from `string rank_str(&rank_code, 0, 1)`, which some
# builds (Debian 12's 2.1.2) print empty; 2.1.5 fixed it (reports.cc). Such a report's first line is
# recognised only when it is the `U` line of unclassified reads.
KRAKEN_REPORT_LINE = re.compile(r"^\s{0,2}\d{1,3}\.\d{1,2}\t\d+\t\d+\t[\dUDKRPCOFGS-]{1,3}\t\d+\t")


def test_metagenomics_multiqc_reports_kraken2(metagenomics):
    """MultiQC reads every sample's Kraken2 report it recognises (all of them with a kraken2 that prints
    rank codes): host reads were removed before classification, so nearly nothing is unclassified, and
    the most abundant species has its planted share."""
    workdir, t = metagenomics
    stats = _general_stats(workdir)
    assert (workdir / "results/qc_report_aggregation/multiqc_report.html").stat().st_size > 0
    reports = {s: (workdir / f"results/taxonomic_classification/{s}/{s}.kreport").read_text()
               for s in t["true_read_pairs"]}
    recognised = {s for s, text in reports.items() if KRAKEN_REPORT_LINE.match(text)}
    rank_codes = all("\tR\t1\t" in text for text in reports.values())  # a kraken2 that prints them
    if rank_codes:
        assert recognised == set(reports)
    assert recognised and set(stats) == recognised, (set(stats), recognised)
    for sample in recognised:
        unclassified = re.match(r"\s*([\d.]+)\t\d+\t\d+\tU\t0\tunclassified", reports[sample])
        assert stats[sample]["kraken-pct_unclassified"] < 1, sample
        if unclassified:  # the report's own line, to MultiQC's rounding
            assert abs(stats[sample]["kraken-pct_unclassified"] - float(unclassified.group(1))) < 0.01, sample
        if rank_codes:  # the species shares (MultiQC ranks taxa by their rank codes)
            bacterial = [pairs for taxid, pairs in t["true_read_pairs"][sample].items() if taxid != "host"]
            top_share = 100 * max(bacterial) / sum(bacterial)
            assert abs(stats[sample]["kraken-pct_top_one"] - top_share) < 5, (sample, stats[sample], top_share)


# --------------------------------------------------------------------------- every class
@pytest.mark.parametrize("name", ["bulk_de", "rnaseq_fastq", "variants", "single_cell", "metagenomics"])
def test_every_example_writes_the_versions_table_of_its_packages(name, request):
    """results/pipeline_info/software_versions.yml: one real version per package a rule runs (the
    versions_<package> rules), and MultiQC's Software Versions section shows them where MultiQC runs."""
    import yaml

    workdir, _ = request.getfixturevalue(name)
    recorded = yaml.safe_load((workdir / "results/pipeline_info/software_versions.yml").read_text())
    rules = (workdir / "workflow/rules/software_versions.smk").read_text()
    packages = set(re.findall(r'^        package="([^"]+)",$', rules, re.M))
    assert packages and set(recorded) == packages, (recorded, packages)
    for package, version in recorded.items():
        assert re.fullmatch(r"[0-9]+(\.[0-9]+)+[a-z]?", str(version)), (package, version)
    if (workdir / "workflow/rules/qc_report_aggregation.smk").is_file():
        section = (workdir / "results/qc_report_aggregation/multiqc_data/multiqc_software_versions.txt").read_text()
        shown = {cell.lower() for row in csv.reader(section.splitlines(), delimiter="\t") for cell in row}
        assert set(recorded) <= shown, section
        assert all(any(str(version) in cell for cell in shown) for version in recorded.values()), section
