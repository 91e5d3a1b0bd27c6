"""Real files, round 4: tables of genomic positions (copy number, allele counts, per-CpG methylation, PLINK).

Each file in tests/data/real_round4/ is a slice of a Debian package's real example data (README there). Before
round 4 the table reader took their chromosome column for gene ids and their coordinates and counts for samples:
DSS's methylation counts were a raw count matrix of samples 'pos', 'N', 'X' (a differential expression would
have run on them), CNVkit's bins a normalised matrix of samples 'start', 'end', 'log2'; GATK's CNV tables were
'not a valid SAM file', PLINK's binary .bed 'semicolon-separated'. Now a cytosine report is read for what it is
and the rest are refused by name, each saying what to give instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bioplan.compile import organism_prefixes, plan_request
from bioplan.errors import BioplanError
from bioplan.knowledge.load import load_knowledge
from bioplan.request.sniff import sniff_inputs

DATA = Path(__file__).parent / "data" / "real_round4"


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def refusal(knowledge, query: str, *names: str) -> BioplanError:
    with pytest.raises(BioplanError) as e:
        plan_request(query, [str(DATA / n) for n in names], knowledge=knowledge)
    return e.value


COPY_NUMBER = "call copy number variants in the tumour"


@pytest.mark.parametrize("name, said", [
    ("cnvkit/p2-20_1.cnr", "CNVkit copy-number bins or segments"),  # was normalized_count_matrix of 'start', 'end'
    ("cnvkit/tr95t.cns", "CNVkit copy-number bins or segments"),
    ("cnvkit/reference-tr.cnn", "CNVkit copy-number bins or segments"),
    ("cnvkit/cw-tr-log2.seg", "copy-number segments in the SEG format"),  # was a matrix of 'chrom', 'loc.start'
    ("purecn/example_gatk4_denoised_cr.tsv.gz", "GATK CNV table of copy ratios"),  # was 'not a valid SAM file'
])
def test_copy_number_results_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, COPY_NUMBER, name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("tumour and normal BAMs" in h and "CNVkit" in h for h in e.hints)


@pytest.mark.parametrize("name, said", [
    ("purecn/example_allelic_counts.tsv", "GATK CollectAllelicCounts allele counts"),  # was 'not a valid SAM file'
    ("titancna/test_alleleCounts_chr2.txt", "allele counts at SNP positions"),  # was raw counts of 'position'
])
def test_allele_counts_at_snps_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, COPY_NUMBER, name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("read counts of each allele" in h for h in e.hints)


@pytest.mark.parametrize("name, said", [
    # the .bed itself is read since round 8 (a GWAS input: tests/test_gwas.py); its .bim and .fam alone are not
    ("snpstats/sample.bim", "PLINK variant table (.bim"),  # was a raw count matrix of 'column_3'...
    ("snpstats/sample.fam", "PLINK sample table (.fam"),  # was 'a table separated by spaces'
    ("biovizbase/plink.assoc.sub.txt", "PLINK per-variant output"),  # was 'a table separated by spaces'
])
def test_plink_files_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, "annotate the variants", name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("genome-wide association" in h and ".bed" in h for h in e.hints)


def test_picard_interval_list_is_refused_saying_how_to_make_a_bed(knowledge):
    e = refusal(knowledge, "call variants in the exome targets", "cnvkit/nv2_baits.interval_list")
    assert e.code == "unreadable_input" and "Picard/GATK interval list" in e.message  # was 'not a valid SAM file'
    assert any("IntervalListToBed" in h for h in e.hints)


def test_cytosine_report_is_read_whatever_its_name(knowledge):
    """bsseq's test_data.cytosineReport.gz (no Bismark extension) was 'a count matrix or a sample sheet'."""
    path = DATA / "bsseq" / "test_data.cytosineReport.gz"
    (f,) = sniff_inputs([str(path)], organism_prefixes(knowledge), knowledge.formats).files
    assert (f.datatype, f.format) == ("cytosine_report", "bismark_cytosine_report")
    assert f.fact("cytosine_contexts") == ["CG"]
    # no step of bioplan reads a cytosine report: a DMR request says which input it needs
    e = refusal(knowledge, "call differentially methylated regions between the conditions",
                "bsseq/test_data.cytosineReport.gz")
    assert e.code == "unsatisfiable" and any("methylation_calls" in h for h in e.hints)


def test_dss_counts_are_refused_with_a_conversion_that_works(knowledge, tmp_path):
    """DSS's own input (chr, pos, N, X) was a raw count matrix; the refusal's awk command turns each file into a
    Bismark coverage file that bioplan's DSS step reads, and the DMR request then plans."""
    e = refusal(knowledge, "call differentially methylated regions between the conditions",
                "dss/cond1_1.txt", "dss/cond2_1.txt")
    assert e.code == "unreadable_input" and "DSS's input format" in e.message
    (hint,) = [h for h in e.hints if "awk" in h]
    program = hint.split("awk '", 1)[1].split("' FILE", 1)[0]
    if shutil.which("awk") is None:
        pytest.skip("awk not installed")
    covs = []
    for name in ("cond1_1", "cond2_1"):
        out = tmp_path / f"{name}.bismark.cov"
        with out.open("w") as fh:
            subprocess.run(["awk", program, str(DATA / "dss" / f"{name}.txt")], stdout=fh, check=True)
        covs.append(str(out))
    first = (tmp_path / "cond1_1.bismark.cov").read_text().splitlines()[0].split("\t")
    # the file's first CpG, N=26 reads of which X=2 methylated: start = end = pos, 7.69 %, 2 methylated, 24 not
    assert first[:3] == ["chr18", "3014904", "3014904"] and first[4:] == ["2", "24"]
    assert float(first[3]) == pytest.approx(100 * 2 / 26, abs=1e-4)
    sheet = tmp_path / "samples.tsv"
    sheet.write_text("sample\tcondition\ncond1_1\tcontrol\ncond2_1\ttreated\n")
    result = plan_request("call differentially methylated regions between the conditions", [*covs, str(sheet)],
                          knowledge=knowledge)
    assert {i.datatype for i in result.spec.inputs} == {"methylation_calls", "sample_metadata"}
    assert [s.operation for s in result.plans[0].steps] == ["differential_methylation"]


@pytest.mark.parametrize("name, said, hint", [
    ("r_objects/sample_ranges.rds", "an R object saved with saveRDS", "write10xCounts"),  # saveRDS, gzipped
    ("r_objects/resultTable.Rda", "an R workspace saved with save()", "write.table(assay(x)"),  # RDX2
    ("r_objects/centromeres.rda", "xz-compressed and named as an R object", "zellkonverter::writeH5AD"),  # was
    # 'xz-compressed; bioplan reads plain or gzip-compressed files' (decompressed, it is still an R workspace)
    ("r_objects/dmel-1000-r5.11.filtered.sqlite", "an SQLite database (a Bioconductor TxDb",
     "GenomicFeatures::asGFF"),  # a TxDb; its hint's R command writes a GFF3 bioplan reads (checked by hand)
])
def test_r_objects_and_annotation_databases_are_refused_by_name(knowledge, name, said, hint):
    """GenomicFeatures' and AnnotationDbi's example objects were 'binary data of a type bioplan does not know'."""
    e = refusal(knowledge, "differential expression with DESeq2", name)
    assert e.code == "unreadable_input" and said in e.message
    assert any(hint in h for h in e.hints)


@pytest.mark.parametrize("name, said", [
    ("cummerbund/genes.fpkm_tracking", "Cufflinks/Cuffdiff FPKM tracking file"),  # was a normalised matrix of
    ("cummerbund/genes.count_tracking", "Cuffdiff's count tracking file"),  # samples 'iPS_FPKM', 'iPS_conf_lo'...
    ("cummerbund/genes.read_group_tracking", "Cuffdiff's per-replicate tracking file"),  # was a sample sheet
    ("cummerbund/isoform_exp.diff", "tests of transcripts, TSS groups or CDS"),  # was a sample sheet
    ("cummerbund/splicing.diff", "tests of isoform, promoter or CDS usage (sqrt(JS)"),  # was a sample sheet
])
def test_cufflinks_outputs_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, "differential expression between the conditions with DESeq2", name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("featureCounts" in h and "count matrix" in h for h in e.hints)


def test_cuffdiff_gene_tests_are_refused_with_a_conversion_that_works(knowledge, tmp_path):
    """cummeRbund's gene_exp.diff was a sample sheet of 'samples' XLOC_000001...; the refusal's awk writes its first
    comparison (iPS vs hESC) as a differential expression table of gene symbols, which plans a GSEA."""
    e = refusal(knowledge, "gene set enrichment analysis of the differentially expressed genes",
                "cummerbund/gene_exp.diff")
    assert e.code == "unreadable_input" and "Cuffdiff's differential expression tests" in e.message
    (hint,) = [h for h in e.hints if "awk" in h]
    command = hint.split("write it with ", 1)[1].split(" > de.tsv", 1)[0]
    assert "-v a=iPS -v b=hESC" in command
    if shutil.which("awk") is None:
        pytest.skip("awk not installed")
    shutil.copy(DATA / "cummerbund" / "gene_exp.diff", tmp_path)
    out = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "gene\tlog2FoldChange\tpvalue\tpadj" and lines[1].startswith("SAMD11\t")
    assert len(lines) == 1 + 27  # the slice's tested (status OK) iPS vs hESC genes with a name
    de = tmp_path / "de.tsv"
    de.write_text(out)
    result = plan_request("gene set enrichment analysis of the differentially expressed genes", [str(de)],
                          knowledge=knowledge)
    (f,) = result.spec.inputs
    assert f.datatype == "differential_expression_table"
    assert [s.operation for s in result.plans[0].steps] == ["gene_ranking", "gsea"]


@pytest.mark.parametrize("name", ["geo/GDS507.soft.gz", "geo/GSE105845_family.soft", "geo/GSM32878.txt",
                                  "geo/GPL4133.txt"])
def test_geo_soft_files_are_refused_saying_how_to_get_the_table(knowledge, name):
    """GEOquery's and GEOparse's SOFT files (a GDS, a series family, a sample, a platform) were 'one-column files
    whose values are not gene ids'. The GDS hint's R command (GEOquery 2.66) wrote a 22,645 x 17 table that bioplan
    reads as a normalised expression matrix (checked by hand)."""
    e = refusal(knowledge, "differential expression between tumour and normal with limma", name)
    assert e.code == "unreadable_input" and "a GEO SOFT file" in e.message
    assert any("GEOquery::GDS2eSet" in h and "genes x samples table" in h for h in e.hints)


@pytest.mark.parametrize("name, said", [
    ("pileup/ex1.mpileup", "samtools mpileup text output (chromosome, position, reference base, then the depth, read "
     "bases and base qualities of each of 1 BAM file)"),  # was 'a count matrix or a sample sheet'
    ("pileup/ex1_two.mpileup", "of each of 2 BAM files"),  # was a sample sheet of condition 'column_3'
    ("pileup/pileup.txt", "a samtools pileup -c consensus file"),  # was 'malformed table: row 25 has 15 fields'
])
def test_pileups_are_refused_saying_to_give_the_alignments(knowledge, name, said):
    e = refusal(knowledge, "call variants with bcftools", name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("give the alignments it was made from (BAM" in h for h in e.hints)


REPORTS = "reports"


@pytest.mark.parametrize("name, said", [
    ("ex1.markdup_metrics.txt", "a Picard or GATK metrics file"),  # were 'malformed table: row 3 has 2 fields'
    ("ex1.alignment_summary_metrics.txt", "a Picard or GATK metrics file"),
    ("ex1.insert_size_metrics.txt", "a Picard or GATK metrics file"),
    ("ex1.bcftools_stats.txt", "a bcftools stats report"),  # was 'one-column file whose values ... are not gene ids'
    ("ex1.coverage.txt", "a samtools coverage table"),  # was a normalised matrix of samples 'startpos', 'endpos'...
    ("ex1.fingerprint.tab", "deepTools plotFingerprint raw counts"),  # was an Entrez gene list
    ("ex1.multibam_counts.tab", "deepTools multiBamSummary or multiBigwigSummary raw counts"),  # was an ambiguous BED
    ("ex1.npz", "a NumPy archive (.npz of 'matrix.npy', 'labels.npy'"),  # was 'zip (or an Excel workbook)'
])
def test_tool_reports_alone_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, "call peaks with MACS2", f"{REPORTS}/{name}")
    assert e.code == "unreadable_input" and said in e.message
    assert any("give the alignments (BAM)" in h or "give the variant calls (VCF" in h for h in e.hints)


def test_picard_bcftools_and_deeptools_reports_are_aggregated_by_multiqc(knowledge):
    names = ["ex1.markdup_metrics.txt", "ex1.alignment_summary_metrics.txt", "ex1.insert_size_metrics.txt",
             "ex1.bcftools_stats.txt", "ex1.fingerprint.tab"]
    result = plan_request("aggregate these QC reports into one MultiQC report",
                          [str(DATA / REPORTS / n) for n in names], knowledge=knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [("qc_report_aggregation", "multiqc")]
    assert [(Path(i.path).name, i.datatype) for i in result.spec.inputs] == [(n, "qc_report") for n in names]


@pytest.mark.parametrize("name, said", [
    ("excel/CHK_clinical.xlsx", "an Excel workbook (.xlsx)"),  # was 'zip (or an Excel workbook)-compressed; decompress'
    ("excel/clippy.xls", "an Excel 97-2003 workbook (.xls)"),  # was 'binary data of a type bioplan does not know'
])
def test_excel_sample_sheets_are_refused_saying_to_save_them_as_csv(knowledge, name, said):
    """A sample sheet kept in Excel. The hint's R command (readxl 1.4.2) turned CHK_clinical.xlsx back into a CSV
    that bioplan reads as the sample sheet it came from (checked by hand)."""
    e = refusal(knowledge, "differential abundance between smokers and non-smokers", name)
    assert e.code == "unreadable_input" and said in e.message
    assert any("save the sheet as CSV or TSV" in h and "readxl::read_excel" in h for h in e.hints)


@pytest.mark.parametrize("name", ["maf/ucsc_test.maf", "maf/bug2453.maf"])
def test_ucsc_maf_genome_alignments_are_refused_by_name(knowledge, name):
    """Biopython's UCSC MAF files (one with a browser 'track' line first) were 'one-column files whose values are
    not gene ids'; the refusal also says it is not a Mutation Annotation Format file."""
    e = refusal(knowledge, "annotate the variants", name)
    assert e.code == "unreadable_input" and "a UCSC MAF multiple genome alignment" in e.message
    assert "not the Mutation Annotation Format" in e.message


@pytest.mark.parametrize("folder, said", [
    ("alevin_fry/fry-usa-basic", "an alevin-fry quantification folder"),
    ("alevin_fry/fry-usa-basic/alevin", "an alevin-fry count matrix folder (quants_mat.mtx: cells x genes"),
])
def test_alevin_fry_folders_are_refused_saying_how_to_make_an_h5ad(knowledge, folder, said):
    """fishpond's alevin-fry example (nf-core/scrnaseq's default quantifier writes this layout) was 'a directory
    bioplan does not recognise'."""
    e = refusal(knowledge, "cluster the cells and find marker genes", folder)
    assert e.code == "unreadable_input" and said in e.message
    assert any("load_fry(DIR)" in h and "loadFry(DIR)" in h and ".h5ad" in h for h in e.hints)


def test_biomart_export_with_coordinates_is_a_gene_id_mapping(knowledge, tmp_path):
    """An Ensembl BioMart export (cnvkit's ensembl-gene-info.hg38.tsv: stable id, % GC, chromosome, start, end, name,
    NCBI gene id, transcript length, TSL) was a normalised count matrix of 'samples' 'Gene start (bp)', 'Gene end
    (bp)'...: numeric columns whose header names a coordinate, length or GC content are annotation, not values."""
    path = DATA / "biomart" / "ensembl-gene-info.hg38.tsv"
    (f,) = sniff_inputs([str(path)], organism_prefixes(knowledge), knowledge.formats).files
    assert (f.datatype, f.format) == ("gene_id_mapping", "tsv")
    assert f.fact("namespaces") == {"ensembl": "Gene stable ID", "symbol": "Gene name", "entrez": "NCBI gene ID"}
    assert f.fact("organism") == "organism_human"
    genes = tmp_path / "genes.txt"
    genes.write_text("".join(f"{ln.split(chr(9))[0]}\n" for ln in path.read_text().splitlines()[1:11]))
    result = plan_request("convert these Ensembl gene ids to Entrez ids", [str(genes), str(path)],
                          knowledge=knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [("gene_id_conversion", "idmap_table")]
    assert {i.datatype for i in result.spec.inputs} == {"ensembl_gene_list", "gene_id_mapping"}


@pytest.mark.parametrize("name, said", [
    ("multiqc_general_stats.txt", "MultiQC's general statistics table"),  # was a normalised count matrix
    ("multiqc_star.txt", "a file MultiQC wrote beside its report (multiqc_star.txt"),  # was a normalised matrix
    ("multiqc_fastqc.txt", "a file MultiQC wrote beside its report (multiqc_fastqc.txt"),  # was a sample sheet
])
def test_multiqc_tables_are_refused_by_name(knowledge, name, said):
    e = refusal(knowledge, "differential expression with DESeq2", f"multiqc/multiqc_data/{name}")
    assert e.code == "unreadable_input" and said in e.message
    assert any("give the data they describe" in h for h in e.hints)


def test_multiqc_data_folder_is_refused_by_name(knowledge):
    e = refusal(knowledge, "aggregate the QC reports with MultiQC", "multiqc/multiqc_data")
    assert e.code == "unreadable_input" and "MultiQC's data folder" in e.message  # was 'a directory bioplan does not
    assert any("the tools' own reports" in h for h in e.hints)  # recognise'


@pytest.mark.parametrize("name", ["featurecounts_cut/sample1.length.counts.txt",  # was 'table without numeric sample
                                  "featurecounts_cut/sample1.length_nocomment.counts.txt"])  # columns'; was 2 samples
def test_featurecounts_counts_cut_to_their_length_column_keep_one_sample(knowledge, name):
    """featureCounts output cut to Geneid, Length and the counts (`cut -f1,6-`, with or without its '# Program:'
    comment): the Length column is annotation, not a sample."""
    (f,) = sniff_inputs([str(DATA / name)], organism_prefixes(knowledge), knowledge.formats).files
    assert (f.datatype, f.fact("n_samples")) == ("raw_count_matrix", 1)
    assert f.fact("sample_names") == ["sample1_Aligned.sortedByCoord.out.bam"]
    assert f.fact("annotation_columns") == ["Length"]


def test_a_count_matrix_with_coordinates_after_its_ids_stays_a_count_matrix(knowledge, tmp_path):
    """The guard beside the tables of positions: a genes x samples matrix whose id column comes before chr, start and
    end (GEO count tables often carry them) is counts of its samples, not a table of positions, and its coordinates
    are not samples."""
    path = tmp_path / "counts.tsv"
    path.write_text("ID\tchr\tstart\tend\tS1\tS2\n"
                    "ENSG00000000003\tX\t100627108\t100639991\t12\t30\n"
                    "ENSG00000000005\tX\t100584936\t100599885\t0\t2\n")
    (f,) = sniff_inputs([str(path)], organism_prefixes(knowledge), knowledge.formats).files
    assert f.datatype == "raw_count_matrix"
    assert (f.fact("sample_names"), f.fact("annotation_columns")) == (["S1", "S2"], ["chr", "start", "end"])
