"""Real files, round 9: GWAS inputs and outputs that are not PLINK binary filesets (regenie's association results,
a BGEN file and its Oxford .sample file, PLINK's text .ped/.map fileset), files of a sequencing run before its FASTQ
(Oxford Nanopore's sequencing summary, Illumina's run sample sheets of bcl2fastq and BCL Convert) and DeepVariant's
VCF and gVCF (tests/data/real_round9, README: sources and licences).

Before round 9 regenie's results, the .sample file and the .ped/.map pair were 'a table separated by spaces', the
BGEN 'binary data of a type bioplan does not know', the nanopore summary a normalised count matrix and both Illumina
sheets sample sheets whose 'samples' were their section and setting names ('[Reads]', 'IEM1FileVersion', ...).
Now each is refused by name saying what to give instead (the conversion commands were run with Debian's plink2). The
DeepVariant files were read right the first time: they are kept so it stays so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError, UnreadableInputError
from bioplan.request.sniff import sniff_inputs

R9 = Path(__file__).parent / "data" / "real_round9"
REGENIE, PLINK, DV, KB = R9 / "regenie", R9 / "plink", R9 / "deepvariant", R9 / "kb"
SHEETS = [("paired-end-single-index.csv", 7, "'1823A', '1823B', '1824A', '1825A' and 3 more"),  # IEM, v1
          ("V2-paired-end.csv", 3, "'1823A', '1823B', '1823C'")]  # BCL Convert, v2: [BCLConvert_Data]


def one(path: Path):
    return sniff_inputs([str(path)], {"ENSG": "organism_human"}).files[0]


def refused(path: Path) -> BioplanError:
    with pytest.raises(BioplanError) as e:
        one(path)
    assert str(path) in str(e.value)  # the refusal names the file
    return e.value


# ------------------------------------------------------------------------------- GWAS files that are not PLINK's

def test_regenie_results_are_refused_as_gwas_summary_statistics():
    e = refused(REGENIE / "test_bin_out_firth_Y1.regenie")
    assert "GWAS summary statistics (regenie step 2 association results" in str(e)
    assert "'CHROM', 'GENPOS', 'ID'" in str(e)
    assert any("runs the association test itself" in h and "FID IID" in h for h in e.hints)


def test_summary_statistics_are_told_by_their_columns_whoever_wrote_them(tmp_path):
    """The GWAS Catalog's format (tab-separated, another header) is the same family; a differential expression table
    with a chromosome and a position column is not summary statistics."""
    rows = (REGENIE / "test_bin_out_firth_Y1.regenie").read_text().splitlines()[1:]
    ssf = tmp_path / "GCST90000001.tsv"
    ssf.write_text("chromosome\tbase_pair_location\teffect_allele\tother_allele\tbeta\tstandard_error\t"
                   "effect_allele_frequency\tp_value\n"
                   + "".join(f"{r[0]}\t{r[1]}\t{r[4]}\t{r[3]}\t{r[9]}\t{r[10]}\t{r[5]}\t{10 ** -float(r[12])}\n"
                             for r in (line.split() for line in rows)))
    assert "in the GWAS Catalog's format" in str(refused(ssf))
    de = tmp_path / "de_annotated.tsv"
    de.write_text("chr\tpos\tgene_id\tlog2FoldChange\tse\tpvalue\n"
                  + "".join(f"1\t{100 * i}\tENSG{i:011d}\t0.5\t0.1\t0.01\n" for i in range(1, 30)))
    with pytest.raises(BioplanError) as e:
        one(de)
    assert "summary statistics" not in str(e.value)


def test_a_bgen_file_is_refused_with_the_plink2_command_that_converts_it():
    e = refused(REGENIE / "example.head4k.bgen")
    assert "a BGEN genotype file" in str(e) and "1,000 variants of 500 samples" in str(e)
    assert any("plink2 --bgen FILE.bgen ref-first --sample FILE.sample --make-pgen" in h for h in e.hints)


def test_an_oxford_sample_file_is_refused_as_the_samples_of_a_bgen():
    e = refused(REGENIE / "example_3chr.sample")
    assert "an Oxford .sample file" in str(e) and any("plink2 --bgen" in h for h in e.hints)


@pytest.mark.parametrize("name, what", [("toy.ped", "a PLINK text genotype file (.ped"),
                                        ("toy.map", "a PLINK text variant map (.map")])
def test_a_plink_text_fileset_is_refused_with_the_command_that_makes_the_bed(name, what):
    e = refused(PLINK / name)
    assert what in str(e)
    assert any("plink --file PREFIX --make-bed --out PREFIX" in h for h in e.hints)


def test_plink_allele_frequencies_stay_named_as_plink_output():
    assert "is PLINK per-variant output" in str(refused(PLINK / "expected.plink.frq"))


def test_a_gwas_request_on_the_ped_file_names_the_file_and_the_fix(knowledge):
    with pytest.raises(UnreadableInputError) as e:
        plan_request("run a GWAS of case-control status", [str(PLINK / "toy.ped"), str(PLINK / "toy.map")],
                     knowledge=knowledge)
    assert "toy.ped" in str(e.value) and "--make-bed" in " ".join(e.value.hints)


# ----------------------------------------------------------------------------- files of a run before its FASTQ

def test_a_nanopore_sequencing_summary_is_refused_not_read_as_a_count_matrix():
    e = refused(R9 / "nanopore" / "sequencing_summary_barcode09.txt")
    assert "an Oxford Nanopore sequencing summary" in str(e)
    assert any("basecalled FASTQ" in h for h in e.hints)


@pytest.mark.parametrize("name, n, listed", SHEETS)
def test_an_illumina_run_sample_sheet_is_refused_listing_its_samples(name, n, listed):
    e = refused(R9 / "illumina" / name)
    assert f"an Illumina run sample sheet of {n} samples ({listed})" in str(e)
    assert any("demultiplexed reads" in h and "fastq_1" in h for h in e.hints)


def test_a_run_sample_sheet_saved_by_excel_is_refused_the_same(tmp_path):
    sheet = tmp_path / "SampleSheet.csv"
    sheet.write_bytes(b"\xef\xbb\xbf" + (R9 / "illumina" / SHEETS[0][0]).read_bytes().replace(b"\n", b"\r\n"))
    assert "an Illumina run sample sheet of 7 samples" in str(refused(sheet))


def test_a_table_with_read_ids_but_no_run_columns_is_not_a_nanopore_summary(tmp_path):
    reads = tmp_path / "assignments.tsv"
    reads.write_text("read_id\ttaxid\tscore\n" + "".join(f"r{i}\t{i}\t0.{i}\n" for i in range(1, 20)))
    try:
        said = one(reads).datatype
    except BioplanError as e:
        said = str(e)
    assert "Nanopore" not in said


# ------------------------------------------------------------------------------------------------- DeepVariant

def test_a_deepvariant_vcf_is_variant_calls_and_plans_annotation(knowledge):
    f = one(DV / "golden.postprocess_single_site_output.vcf")
    assert (f.datatype, f.format) == ("variant_calls", "vcf") and f.fact("samples") == ["NA12878"]
    result = plan_request("annotate these variants with VEP", [str(DV / "golden.postprocess_single_site_output.vcf")],
                          knowledge=knowledge)
    assert [s.tool for s in result.plans[0].steps] == ["vep"]


def test_a_deepvariant_gvcf_is_a_sample_gvcf_as_bioplans_own_deepvariant_step_writes():
    """DeepVariant's gVCF carries <*> (not GATK's <NON_REF>); bioplan's deepvariant step feeds the same files to
    GATK's joint genotyping, so reading it as a sample gVCF is the knowledge's own view of it."""
    f = one(DV / "golden.postprocess_gvcf_output.g.vcf")
    assert (f.datatype, f.format) == ("sample_gvcf", "vcf")
    assert any("<*>" in e and "genomic VCF" in e for e in f.evidence)


# ------------------------------------------------------------------------------ kallisto | bustools (kb count)

@pytest.mark.parametrize("given, matrices", [("counts", "genes.mtx with its"),
                                             ("counts/genes.mtx", "genes.mtx with its"),
                                             ("lamanno_counts", "spliced.mtx, unspliced.mtx each with its"),
                                             ("lamanno_counts/unspliced.mtx", "spliced.mtx, unspliced.mtx each")])
def test_kb_count_output_is_refused_with_the_conversion_to_h5ad(given, matrices):
    """kb writes cells as rows (cells_x_genes); read as a 10x matrix it would be genes x cells, so it is refused by
    name, folder or matrix alone, with the command (run here with scanpy 1.11) whose .h5ad bioplan reads."""
    e = refused(KB / given)
    assert f"is kallisto | bustools (kb count) output ({matrices}" in str(e) and "cells as rows" in str(e)
    stem = "spliced" if "lamanno" in given else "genes"
    assert any("kb count with --h5ad" in h and f"scanpy.read_mtx('{stem}.mtx')" in h for h in e.hints)


def test_a_10x_folder_is_still_read_as_10x():
    f = one(Path(__file__).parent / "data" / "real_studies" / "seurat" / "cr3.0")
    assert (f.datatype, f.format) == ("single_cell_matrix", "mtx")


def test_kbs_loom_output_is_refused_with_the_conversion_to_h5ad():
    assert any("read_loom" in h for h in refused(KB / "genes.loom").hints)


# ------------------------------------------------------------------- tools' reports (MultiQC's test data)

VCFTOOLS = ["test.TsTv.qual", "dup.TsTv.count", "duplicate.relatedness.relatedness2"]


@pytest.mark.parametrize("name", VCFTOOLS)
def test_vcftools_tables_are_named_reports_not_count_matrices(name):
    """test.TsTv.qual holds 'inf' and '-nan' (vcftools' ratios over zero): it raised OverflowError in the count
    matrix reader; the other two were count matrices of 'samples' N_Ts, N_Tv, RELATEDNESS_PHI."""
    e = refused(R9 / "vcftools" / name)
    assert "is a vcftools report" in str(e) and e.hints[0] == "give the variant calls (VCF) it describes"


def test_non_finite_values_are_no_numbers_for_the_table_reader(tmp_path):
    """The cause of the traceback, for any table: 'inf' and '-nan' cells are not numbers (a sample column of
    counts with one ratio over zero is read, not crashed on)."""
    table = tmp_path / "counts.tsv"
    table.write_text("gene_id\ta\tb\tc\n" + "".join(f"ENSG{i:011d}\t{i}\t{2 * i}\t{3 * i}\n" for i in range(1, 40))
                     + "ENSG99999999999\tinf\t-nan\t1\n")
    assert one(table).datatype == "raw_count_matrix"


def test_vep_run_statistics_are_a_report_and_vcftools_tables_with_them_aggregated_by_multiqc(knowledge):
    e = refused(R9 / "vep" / "S66716txt.vep.txt")
    assert "Ensembl VEP's run statistics" in str(e) and any("annotated VCF" in h for h in e.hints)
    reports = [R9 / "vep" / "S66716txt.vep.txt", *(R9 / "vcftools" / n for n in VCFTOOLS)]
    result = plan_request("aggregate these QC reports into one MultiQC report", [str(p) for p in reports],
                          knowledge=knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [("qc_report_aggregation", "multiqc")]
    assert {i.datatype for i in result.spec.inputs} == {"qc_report"}


def test_a_homer_peak_file_is_refused_with_the_conversion_to_bed(tmp_path, knowledge):
    e = refused(R9 / "homer" / "A01.peaks1kb.truncated.txt")
    assert "HOMER's peak file" in str(e)
    hint = e.hints[0]
    assert "pos2bed.pl" in hint and "awk 'BEGIN{OFS=\"\\t\"} !/^#/ {print $2, $3-1, $4, $1, int($6), $5}'" in hint
    bed = tmp_path / "A01.bed"  # what the awk command writes (1-based start made 0-based), done here in Python
    bed.write_text("".join("\t".join([f[1], str(int(f[2]) - 1), f[3], f[0], str(int(float(f[5]))), f[4]]) + "\n"
                           for line in (R9 / "homer" / "A01.peaks1kb.truncated.txt").read_text().splitlines()
                           if not line.startswith("#") for f in [line.split("\t")]))
    result = plan_request("annotate these ATAC-seq peaks with the nearest genes", [str(bed)], knowledge=knowledge)
    assert [i.datatype for i in result.spec.inputs] == ["peak_calls"]


QC_LOGS = [("SRR4238351_subsamp_m_9999999999.cutadapt.log", "a read trimming report"),  # were one-column files
           ("GSM7431887_NB18_32F_TNTtoKSR_553_rep3_Homo_1.fastq.gz_trimming_report.txt", "a read trimming report"),
           ("180518_mATAC_t10_1_trimmomatic.err", "a read trimming report"),
           ("fastqc_data.txt", "FastQC's (or Falco's) data file"),  # was a malformed table
           ("SRR4238351_subsamp.hisat2_summary.txt", "a HISAT2 alignment summary"),
           ("MethylC-Seq_mm_fc_1wk_SRR921767_1_trimmed.fq.gz_bismark_bt2_SE_report.txt", "a Bismark alignment report"),
           ("genome_results.txt", "a Qualimap report"),
           ("PE_example_infer_experiment.txt", "an RSeQC report"),  # was a one-column file
           ("lane1_NoCode_L001_R1_screen.txt", "a FastQ Screen report"),  # was a malformed table
           ("bt2_pe_log.txt", "a Bowtie2 or HISAT2 alignment summary"),  # bowtie2 -t: timings before the summary
           ("P1339_1001.collectInsertSize.txt", "a Picard or GATK metrics file"),  # Picard 1.x's net.sf.picard header
           ("rsubread/counts.txt.summary", "featureCounts' read assignment summary")]  # R's write.table: quotes, CRLF


@pytest.mark.parametrize("name, what", QC_LOGS)
def test_trimmer_fastqc_and_aligner_logs_are_named_reports(name, what):
    e = refused(R9 / "qc_logs" / name)
    assert f"is {what}" in str(e) and e.hints[0].startswith("give the ")


def test_the_logs_are_qc_reports_when_the_request_aggregates_them(knowledge):
    result = plan_request("aggregate these QC reports into one MultiQC report",
                          [str(R9 / "qc_logs" / n) for n, _ in QC_LOGS], knowledge=knowledge)
    assert [(s.operation, s.tool) for s in result.plans[0].steps] == [("qc_report_aggregation", "multiqc")]
    assert [Path(i.path).name for i in result.spec.inputs if i.datatype == "qc_report"] == \
        [Path(n).name for n, _ in QC_LOGS]


def test_a_salmon_run_log_is_refused_naming_the_folder_to_give():
    e = refused(R9 / "qc_logs" / "salmon_quant.log")
    assert "Salmon's run log" in str(e) and "Salmon output folder" in e.hints[0]
