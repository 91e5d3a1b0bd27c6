"""Real public files as they come from the tools and the archives, offline (issue 13).

Data: scanpy's bundled PBMC 68k (reduced) AnnData (inside the scanpy wheel), samtools' packaged
example alignments (Debian samtools), 1000 Genomes chr22 VCF of Bioconductor's VariantAnnotation
(Debian r-bioc-variantannotation, installed by scripts/install-tools.sh), genome browser and bedtools
files of Bioconductor's rtracklayer and Rsamtools (Debian r-bioc-rtracklayer, r-bioc-rsamtools), htslib's test
files (Debian htslib-test), and tool outputs vendored in tests/data/real (README there). Each test checks what
bioplan reads from the file and that a natural request plans from where the data is. Missing
data skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import importlib.util
import os
import re
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
    # the installed package is located, not imported: the file is read by bioplan's own reader (h5py), and
    # importing scanpy cost each worker that ran these tests ~2 CPU-s
    spec = importlib.util.find_spec("scanpy")
    if spec is None or spec.origin is None:
        pytest.skip("scanpy is not installed (its wheel carries the pbmc68k_reduced data)")
    return need(Path(spec.origin).parent / "datasets" / "10x_pbmc68k_reduced.h5ad",
                "scanpy's bundled pbmc68k_reduced")


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def one(path: Path, knowledge):
    profile = sniff_inputs([str(path)], organism_prefixes(knowledge), knowledge.formats)
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


# --------------------------------------------------------------------------- genome browser and bedtools files
# Real files of Bioconductor's rtracklayer and Rsamtools (Debian r-bioc-rtracklayer, r-bioc-rsamtools, brought
# by r-bioc-variantannotation in scripts/install-tools.sh) and samtools' examples: UCSC track files with their
# track lines, a MACS narrowPeak, TopHat's junctions BED, bigWig/bigBed/2bit, a FASTA index.

RTRACKLAYER = Path("/usr/lib/R/site-library/rtracklayer")
RSAMTOOLS = Path("/usr/lib/R/site-library/Rsamtools/extdata")
SAMTOOLS_EX1_FA = Path("/usr/share/doc/samtools/examples/ex1.fa")


def rtracklayer(name: str) -> Path:
    return need(RTRACKLAYER / name, f"rtracklayer's {name}")


@pytest.mark.parametrize("name, fmt", [
    ("tests/test.bw", "bigwig"), ("tests/variableStep.bw", "bigwig"),  # by the bigWig magic (formats.yaml)
    ("tests/test.bedGraph", "bedgraph"),  # 'track type=bedGraph' above the intervals
])
def test_coverage_tracks(knowledge, name, fmt):
    f = one(rtracklayer(name), knowledge)
    assert (f.datatype, f.format) == ("coverage_track", fmt)


def test_macs_narrowpeak(knowledge):
    f = one(rtracklayer("extdata/demo.narrowPeak.gz"), knowledge)
    assert (f.datatype, f.format) == ("peak_calls", "narrowpeak") and f.fact("n_peaks") > 0


@pytest.mark.parametrize("path", [
    RTRACKLAYER / "tests/test.bed",  # a comment and a UCSC track line above BED12
    RTRACKLAYER / "tests/test.bed15",  # track type="array", BED15
])
def test_browser_bed_is_peaks_or_a_blacklist(knowledge, path):
    from bioplan.errors import AmbiguousInputError

    with pytest.raises(AmbiguousInputError, match="BED file of") as e:
        one(need(path, path.name), knowledge)
    assert e.value.details["readings"] == ["peak_calls", "genome_blacklist"]
    assert any("--input-type" in h for h in e.value.hints)


def test_bed_is_settled_by_what_the_request_reads(knowledge):
    result = plan_request("annotate the peaks", [str(rtracklayer("tests/test.bed"))], knowledge=knowledge)
    (f,) = result.spec.inputs
    assert f.datatype == "peak_calls" and "the requested peak annotation reads" in f.evidence[-1]


def test_bed_beside_peaks_is_the_blacklist(knowledge, tmp_path):
    """'filter the peaks against the blacklist' reads peaks and a blacklist: the narrowPeak file is the
    peaks, so the plain BED (rtracklayer's, renamed to say nothing) is the blacklist."""
    bed = tmp_path / "regions.bed"
    bed.write_bytes(rtracklayer("tests/test.bed").read_bytes())
    peaks = rtracklayer("extdata/demo.narrowPeak.gz")
    result = plan_request("filter the peaks against the blacklist", [str(peaks), str(bed)], knowledge=knowledge)
    kinds = {Path(f.path).name: f.datatype for f in result.spec.inputs}
    assert kinds == {"demo.narrowPeak.gz": "peak_calls", "regions.bed": "genome_blacklist"}
    assert [s.operation for s in result.plans[0].steps] == ["blacklist_filtering"]


@pytest.mark.parametrize("name, said", [
    ("tests/test.bedpe", "BEDPE"),
    ("tests/bed.wig", "WIG coverage track"), ("tests/variableStep.wig", "WIG coverage track"),
    ("tests/quickload/T_species_Oct_2011/mod_chromInfo.txt", "chromosome sizes"),
    ("tests/test.bb", "bigBed"), ("tests/test.2bit", "2bit genome"),
])
def test_interval_files_bioplan_does_not_take_are_named(knowledge, name, said):
    from bioplan.errors import UnreadableInputError

    with pytest.raises(UnreadableInputError, match=said):
        one(rtracklayer(name), knowledge)


def test_fasta_index_alone_is_an_index_and_beside_its_fasta_is_attached(knowledge, tmp_path):
    from bioplan.errors import UnreadableInputError

    fai = need(RSAMTOOLS / "ce2dict1.fa.fai", "Rsamtools' ce2dict1.fa.fai")
    with pytest.raises(UnreadableInputError, match="index file .* without its data file"):  # was a count matrix
        sniff_inputs([str(fai)], organism_prefixes(knowledge))
    reads = tmp_path / "s1.fastq"
    reads.write_text("@r1\nACGTACGTAC\n+\nIIIIIIIIII\n")
    fasta = RSAMTOOLS / "ce2dict1.fa"  # sequences 'pattern01'...: a genome because the request aligns to it
    result = plan_request("align the reads to the genome", [str(fasta), str(fai), str(reads)], knowledge=knowledge)
    assert [f.datatype for f in result.spec.inputs] == ["reference_genome", "raw_reads"]
    assert any(w == f"{fai} is read as the index of {fasta}" for w in result.spec.warnings)


@pytest.mark.parametrize("query, datatype", [
    ("align the reads to the reference genome with bwa", "reference_genome"),  # named
    ("call variants", "reference_genome"),  # variant calling reads a reference genome
    ("quantify the reads with salmon", "transcriptome"),  # Salmon's index is made from transcripts
])
def test_fasta_of_seq1_seq2_is_settled_by_the_request(knowledge, query, datatype, tmp_path):
    """samtools' ex1.fa names its sequences 'seq1', 'seq2': alone it is ambiguous, in a request it is what
    the request reads (the reads beside it are two records cut from it)."""
    from bioplan.errors import AmbiguousInputError

    fasta = need(SAMTOOLS_EX1_FA, "samtools' example ex1.fa")
    with pytest.raises(AmbiguousInputError):
        one(fasta, knowledge)
    seq = "".join(fasta.read_text().splitlines()[1:3])[:60]
    reads = tmp_path / "s1.fastq"
    reads.write_text("".join(f"@r{i}\n{seq}\n+\n{'I' * len(seq)}\n" for i in range(2)))
    result = plan_request(query, [str(fasta), str(reads)], knowledge=knowledge)
    f = next(f for f in result.spec.inputs if f.path == str(fasta))
    assert f.datatype == datatype and f.evidence[-1].startswith(f"read as {datatype}")


# --------------------------------------------------------------------------- real tool outputs (tests/data/real)
# Written by STAR, featureCounts, samtools, MACS2, bcftools, Salmon and kallisto on public example data;
# tests/data/real/README.md says how. Vendored: these tests never skip.

REAL = Path(__file__).parent / "data" / "real"


@pytest.mark.parametrize("name, datatype, fmt", [
    ("featurecounts/sample1.featureCounts.txt", "raw_count_matrix", "tsv"),
    ("macs2/sample1_peaks.narrowPeak", "peak_calls", "narrowpeak"),
    ("macs2/sample1_summits.bed", "peak_calls", "bed"),  # 'summits' in the name says peaks
    ("bcftools/sample1.vcf.gz", "variant_calls", "vcf.gz"),
    ("salmon/sample1", "transcript_quantification", "salmon_quant"),
    ("salmon/sample1/quant.sf", "transcript_quantification", "salmon_quant"),
    ("kallisto/sample1", "transcript_quantification", "kallisto_quant"),
    ("rsem/S1.genes.results", "transcript_quantification", "rsem_quant"),
    ("macs2/broad_peaks.broadPeak", "peak_calls", "broadpeak"),
    ("bedtools/sample1.genomecov.bg.txt", "coverage_track", "bedgraph"),  # 'seq1' repeated down the file
    ("mosdepth/sample1.per-base.bed.gz", "coverage_track", "bedgraph"),  # a number, not a name, in column 4
])
def test_tool_outputs_are_recognised(knowledge, name, datatype, fmt):
    f = one(REAL / name, knowledge)
    assert (f.datatype, f.format) == (datatype, fmt)


@pytest.mark.parametrize("name, said", [
    ("star/sample1_Log.final.out", "STAR's alignment summary"),  # was: 'one-column file ... not gene ids'
    ("star/sample1_SJ.out.tab", "STAR's splice junctions"),
    ("star/sample1_ReadsPerGene.out.tab", "per-gene read counts of one sample"),  # was: a 3-sample count matrix
    ("featurecounts/sample1.featureCounts.txt.summary", "featureCounts' read assignment summary"),
    ("samtools/sample1.flagstat", "samtools flagstat"),
    ("samtools/sample1.idxstats", "samtools idxstats"),  # was: a count matrix
    ("samtools/sample1.stats", "samtools stats"),
    ("macs2/sample1_peaks.xls", "MACS2's peak table"),  # was: a normalised count matrix
    ("kallisto/sample1/run_info.json", "kallisto's run_info.json"),
    ("salmon/sample1/cmd_info.json", "Salmon's cmd_info.json"),
    ("samtools/sample1.depth.txt", "samtools depth output"),  # was: a count matrix
    ("mosdepth/sample1.mosdepth.summary.txt", "mosdepth's coverage summary"),  # was: a normalised count matrix
    ("mosdepth/sample1.mosdepth.global.dist.txt", "mosdepth's coverage distribution"),
    ("macs2/broad_peaks.gappedPeak", "gappedPeak"),  # was: a normalised count matrix
    ("rsem/S1.bowtie2.log", "Bowtie2 or HISAT2 alignment summary"),  # was: 'not gene ids'
])
def test_tool_reports_are_refused_by_name(knowledge, name, said):
    from bioplan.errors import UnreadableInputError

    with pytest.raises(UnreadableInputError, match=re.escape(said)) as e:
        one(REAL / name, knowledge)
    assert e.value.hints and any("--input-type" in h for h in e.value.hints)


def test_bcftools_vcf_with_its_index(knowledge):
    vcf = REAL / "bcftools/sample1.vcf.gz"
    profile = sniff_inputs([str(vcf), str(vcf) + ".tbi"], organism_prefixes(knowledge), knowledge.formats)
    (f,) = profile.files
    assert f.fact("index") == str(vcf) + ".tbi" and f.fact("bgzipped") is True


# --------------------------------------------------------------------------- annotation and variant quirks


def test_gtf_with_a_tab_after_the_attributes(knowledge):
    f = one(rtracklayer("tests/gtf.gff"), knowledge)  # Ensembl mouse GTF lines ending in a tab
    assert (f.datatype, f.format) == ("gene_annotation", "gtf")


def test_gff3_with_sequences_after_the_features(knowledge):
    f = one(rtracklayer("tests/genes.gff3"), knowledge)  # '>' lines follow the features, no ##FASTA line
    assert (f.datatype, f.format) == ("gene_annotation", "gff3")


def test_vcf_records_without_their_header_are_refused(knowledge, tmp_path):
    """What `bcftools view -H` writes: the records of a real VCF without its header lines."""
    from bioplan.errors import UnreadableInputError

    vcf = need(Path("/usr/lib/R/site-library/VariantAnnotation/extdata/ex2.vcf"), "VariantAnnotation's ex2.vcf")
    body = tmp_path / "calls.vcf"
    body.write_text("".join(ln for ln in vcf.read_text().splitlines(keepends=True) if not ln.startswith("#")))
    with pytest.raises(UnreadableInputError, match="without the VCF header lines"):  # was: a sample sheet
        one(body, knowledge)


def test_loom_is_refused_saying_how_to_convert(knowledge):
    from bioplan.errors import UnreadableInputError

    loom = need(Path("/usr/lib/R/site-library/SummarizedExperiment/extdata/example.loom"),
                "SummarizedExperiment's example.loom")
    pytest.importorskip("h5py")
    with pytest.raises(UnreadableInputError, match="loom file") as e:
        one(loom, knowledge)
    assert any("read_loom" in h for h in e.value.hints)


def test_bam_gzipped_again_is_refused(knowledge, tmp_path):
    import gzip

    from bioplan.errors import UnreadableInputError

    bam = need(RSAMTOOLS / "ex1.bam", "Rsamtools' ex1.bam")
    twice = tmp_path / "ex1.bam.gz"
    twice.write_bytes(gzip.compress(bam.read_bytes()))
    with pytest.raises(UnreadableInputError, match="compressed twice"):
        one(twice, knowledge)


def test_saf_annotation_is_not_a_count_matrix(knowledge, tmp_path):
    """featureCounts' SAF (the head of subread's hg38_RefSeq_exon.txt): GeneID, Chr, Start, End, Strand."""
    from bioplan.errors import UnreadableInputError

    saf = tmp_path / "hg38_RefSeq_exon.txt"
    saf.write_text("GeneID\tChr\tStart\tEnd\tStrand\n100287102\tchr1\t11874\t12227\t+\n"
                   "100287102\tchr1\t12613\t12721\t+\n653635\tchr1\t14362\t14829\t-\n")
    with pytest.raises(UnreadableInputError, match="SAF annotation"):
        one(saf, knowledge)


# --------------------------------------------------------------------------- htslib's test files (Debian htslib-test)

HTSLIB_TEST = Path("/usr/share/htslib-test/test")


def htslib_test(name: str) -> Path:
    return need(HTSLIB_TEST / name, f"htslib-test's {name}")


def test_multi_line_fastq_is_refused_saying_how_to_rewrap(knowledge):
    """fastqs.fq: the FASTQ examples of Cock et al. 2010 (NAR 38:1767), sequences wrapped over lines."""
    from bioplan.errors import UnreadableInputError

    with pytest.raises(UnreadableInputError, match="multi-line FASTQ") as e:
        one(htslib_test("fastqs.fq"), knowledge)
    assert any("seqtk seq -l0" in h for h in e.value.hints)


@pytest.mark.parametrize("name", ["fastq/r1.fa", "fastq/interleaved.fa"])
def test_reads_in_fasta_are_refused_as_reads(knowledge, name):
    """Illumina read names ('HS25_09827:2:1201:1505:59795#49/1') say reads, not a genome or transcripts."""
    from bioplan.errors import UnreadableInputError

    with pytest.raises(UnreadableInputError, match="FASTA of sequencing reads"):
        one(htslib_test(name), knowledge)


@pytest.mark.parametrize("name", ["c1#pad1.sam", "range.cram", "auxf#values.sam"])
def test_htslib_alignments(knowledge, name):
    f = one(htslib_test(name), knowledge)
    assert f.datatype == "aligned_reads" and f.format == ("cram" if name.endswith(".cram") else "sam")


@pytest.mark.parametrize("name, fmt, sample", [
    ("kraken2/A_1.kreport", "kraken2_report", "A_1"),
    ("kraken2/A_2.kraken2.report.txt", "kraken2_report", "A_2"),  # nf-core/taxprofiler's name; was: ambiguous table
    ("kraken2/A_1.kraken2", "kraken2_output", "A_1"),  # was: a sample sheet
])
def test_kraken2_outputs(knowledge, name, fmt, sample):
    f = one(REAL / name, knowledge)
    assert (f.datatype, f.format, f.sample) == ("taxonomic_classification", fmt, sample)


def test_kraken2_reports_merge_with_taxpasta(knowledge):
    reports = [str(REAL / "kraken2/A_1.kreport"), str(REAL / "kraken2/A_2.kraken2.report.txt")]
    result = plan_request("merge the Kraken2 reports into one table with taxpasta", reports, knowledge=knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["taxpasta_merge"]


def test_bracken_table_by_its_header(knowledge, tmp_path):
    """Bracken's output header (its README); the rows are made up."""
    table = tmp_path / "A_1.bracken"
    table.write_text("name\ttaxonomy_id\ttaxonomy_lvl\tkraken_assigned_reads\tadded_reads\tnew_est_reads\t"
                     "fraction_total_reads\nEscherichia coli\t562\tS\t1200\t30\t1230\t0.61500\n"
                     "Bacillus subtilis\t1423\tS\t760\t10\t770\t0.38500\n")
    f = one(table, knowledge)
    assert (f.datatype, f.format, f.sample) == ("taxonomic_profile", "bracken_report", "A_1")


@pytest.mark.parametrize("name, datatype, fmt, sample", [
    ("megahit/A_1/final.contigs.fa", "assembled_contigs", "fasta", "A_1"),  # was: ambiguous genome/transcriptome
    ("prodigal/A_1.gff", "predicted_genes", "gff3", None),  # was: a gene annotation
    ("freebayes/sample1.vcf.gz", "variant_calls", "vcf.gz", None),
])
def test_assembler_gene_caller_and_caller_outputs(knowledge, name, datatype, fmt, sample):
    f = one(REAL / name, knowledge)
    assert (f.datatype, f.format, f.sample) == (datatype, fmt, sample)


def test_contigs_plan_assembly_qc(knowledge):
    result = plan_request("assess the assembly quality with QUAST", [str(REAL / "megahit/A_1/final.contigs.fa")],
                          knowledge=knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["quast"]


@pytest.mark.parametrize("name, fmt, sample", [
    ("fastqc/r1_fastqc.zip", "zip", "r1"),  # was: refused as a zip archive
    ("fastp/S1.fastp.json", "json", "S1"),  # was: a one-column gene list
])
def test_read_qc_reports(knowledge, name, fmt, sample):
    f = one(REAL / name, knowledge)
    assert (f.datatype, f.format, f.sample) == ("read_qc_report", fmt, sample)


def test_multiqc_aggregates_given_reports(knowledge):
    reports = [str(REAL / "fastqc/r1_fastqc.zip"), str(REAL / "fastp/S1.fastp.json")]
    result = plan_request("aggregate the QC reports with MultiQC", reports, knowledge=knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["multiqc"]
