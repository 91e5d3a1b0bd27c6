"""Whole studies of real public files, as users hold them, each with the request an expert would write
(tests/data/real_studies/README.md says where every file comes from). A study checks what bioplan reads
from each file and the plan's key steps, or the refusal naming what the file is and what to give.
The files are small real slices of Bioconductor packages' example data and real tool outputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bioplan.compile import plan_request
from bioplan.errors import BioplanError, UnsupportedAnalysisError
from bioplan.knowledge.load import load_knowledge

DATA = Path(__file__).parent / "data" / "real_studies"


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def files(*names: str) -> list[str]:
    return [str(DATA / n) for n in names]


def read_as(result) -> dict[str, tuple[str, str | None, int | None]]:
    """input file name -> (datatype, sample, mate) as the plan's spec holds it."""
    return {Path(i.path).name: (i.datatype, i.sample, i.mate) for i in result.spec.inputs}


def steps(result) -> list[tuple[str, str | None]]:
    return [(s.operation, s.tool) for s in result.plans[0].steps]


SALMON = ("data_cond1_rep1", "data_cond1_rep2", "data_cond2_rep1", "data_cond2_rep2")


def test_salmon_folders_with_gzipped_quant_and_a_sheet_plan_tximport_then_deseq2(knowledge):
    """IsoformSwitchAnalyzeR's Drosophila Salmon folders keep quant.sf.gz (as tximportData does): each folder is
    one sample's Salmon output, read through its gzipped table, beside the sample sheet."""
    result = plan_request("differential expression of cond1 vs cond2 from these Salmon quantifications with "
                          "tximport and DESeq2",
                          files(*(f"isoformswitch_salmon/{s}" for s in SALMON), "isoformswitch_salmon/samples.tsv"),
                          knowledge=knowledge)
    found = read_as(result)
    assert {found[s] for s in SALMON} == {("transcript_quantification", s, None) for s in SALMON}
    assert found["samples.tsv"][0] == "sample_metadata"
    assert steps(result) == [("quantification_aggregation", "tximport"), ("differential_expression", "deseq2")]
    folder = next(i for i in result.spec.inputs if i.datatype == "transcript_quantification")
    assert any("read through quant.sf.gz" in e for e in folder.evidence)
    assert any("cmd_info.json: salmon 0.14.1" in e for e in folder.evidence)
    assert any("Drosophila melanogaster" in w for w in result.spec.warnings)  # FBtr ids


def test_salmon_parent_folder_without_a_sheet_asks_for_one(knowledge):
    with pytest.raises(BioplanError) as e:
        plan_request("differential expression between the conditions with DESeq2",
                     files(*(f"isoformswitch_salmon/{s}" for s in SALMON)), knowledge=knowledge)
    assert e.value.code == "unsatisfiable" and "sample_metadata" in e.value.message


def test_dada2_forward_reverse_files_pair_by_their_reads(knowledge):
    """dada2's sam1F/sam1R: no _R1/_R2 suffix, but each pair's files start with the same MiSeq read
    (1:N / 2:N in the ids): one paired sample per pair, named by what the names share."""
    result = plan_request("16S amplicon sequence variants with DADA2",
                          files("dada2/sam1F.fastq.gz", "dada2/sam1R.fastq.gz", "dada2/sam2F.fastq.gz",
                                "dada2/sam2R.fastq.gz"), knowledge=knowledge)
    assert read_as(result) == {"sam1F.fastq.gz": ("raw_reads", "sam1", 1), "sam1R.fastq.gz": ("raw_reads", "sam1", 2),
                               "sam2F.fastq.gz": ("raw_reads", "sam2", 1), "sam2R.fastq.gz": ("raw_reads", "sam2", 2)}
    assert [op for op, _ in steps(result)][:3] == ["amplicon_read_filtering", "error_model_learning",
                                                    "asv_inference"]
    r1 = next(i for i in result.spec.inputs if i.path.endswith("sam1F.fastq.gz"))
    assert any("first read (M02273:28:000000000-ADV3A:1:2108:18106:16197)" in e for e in r1.evidence)


def test_rsubread_reads1_reads2_pair_and_align(knowledge):
    """Rsubread's reads1.txt.gz/reads2.txt.gz: FASTQ under a .txt name, mates by their /1 /2 read ids."""
    result = plan_request("align the paired reads to the reference with bwa",
                          files("rsubread/reads1.txt.gz", "rsubread/reads2.txt.gz", "rsubread/reference.fa"),
                          knowledge=knowledge)
    found = read_as(result)
    assert found["reads1.txt.gz"] == ("raw_reads", "reads", 1) and found["reads2.txt.gz"] == ("raw_reads", "reads", 2)
    assert found["reference.fa"][0] == "reference_genome"
    assert steps(result) == [("genome_indexing", "bwa_index"), ("read_alignment", "bwa_mem")]


def test_a_lone_read1_file_is_not_paired_with_another_samples_read2(knowledge):
    """The read-name pairing needs the same first read: sam1F with sam2R stay two unpaired samples."""
    with pytest.raises(BioplanError) as e:
        plan_request("16S amplicon sequence variants with DADA2",
                     files("dada2/sam1F.fastq.gz", "dada2/sam2R.fastq.gz"), knowledge=knowledge)
    assert "lack a mate" in e.value.message


@pytest.mark.parametrize("name, said", [
    ("s_1_1_0001_qseq.txt", "an Illumina qseq file"),
    ("s_2_export.txt", "an Illumina export file"),
    ("s_1_0001_seq.txt", "an Illumina _seq.txt file"),
    ("s_1_aligned_bowtie.txt", "Bowtie 1 alignments"),
    ("out.aln.1.txt", "MAQ alignments"),
])
def test_per_read_tables_are_refused_by_name_not_read_as_counts(knowledge, name, said):
    """ShortRead's legacy Illumina and aligner files: their tile/x/y/position numbers read as a count matrix
    (or a BED) before; a column of read sequences says what they are."""
    with pytest.raises(BioplanError) as e:
        plan_request("quality control of the reads", files(f"shortread/{name}"), knowledge=knowledge)
    assert e.value.code == "unreadable_input"
    assert said in e.value.message and "holds read sequences" in e.value.message
    assert any("FASTQ" in h for h in e.value.hints)


def test_biom_convert_table_plans_diversity(knowledge):
    """`biom convert --to-tsv` output (biom-format 2.1.18 on biomformat's rich_sparse_otu_table_hdf5.biom): a taxa
    x samples abundance table with its taxonomy column, not a gene count matrix."""
    result = plan_request("alpha and beta diversity of these samples", files("biom/rich_sparse_otu_table.tsv"),
                          knowledge=knowledge)
    assert not result.spec.unrecognized  # 'alpha' was left not understood
    (table,) = result.spec.inputs
    assert table.datatype == "abundance_table"
    assert any("biom convert" in e for e in table.evidence) and any("'taxonomy'" in e for e in table.evidence)
    assert steps(result) == [("diversity_analysis", "diversity_metrics")]


@pytest.mark.parametrize("name, said", [
    ("rich_dense_otu_table.biom", "BIOM table (JSON"),
    ("rich_sparse_otu_table_hdf5.biom", "BIOM table (HDF5"),
    ("esophagus.fn.shared", "mothur shared file"),
])
def test_biom_and_mothur_files_are_refused_saying_how_to_convert(knowledge, name, said):
    with pytest.raises(BioplanError) as e:
        plan_request("beta diversity of these samples", files(f"biom/{name}"), knowledge=knowledge)
    assert said in e.value.message
    assert any("biom convert" in h for h in e.value.hints)


def test_metagenomeseq_otu_counts_clinical_and_taxonomy(knowledge):
    """metagenomeSeq's lung microbiome study: OTU counts (first column 'OTU'), the clinical sheet and the OTU
    lineages. The counts are an abundance table (were a gene count matrix), the lineages a taxonomy table
    (were a second sample sheet, which blocked the study)."""
    result = plan_request("differential abundance of OTUs between sample types",
                          files("metagenomeseq/CHK_NAME.otus.count.csv", "metagenomeseq/CHK_clinical.csv",
                                "metagenomeseq/CHK_otus.taxonomy.csv"), knowledge=knowledge)
    found = read_as(result)
    assert found["CHK_NAME.otus.count.csv"][0] == "abundance_table"
    assert found["CHK_clinical.csv"][0] == "sample_metadata"
    assert found["CHK_otus.taxonomy.csv"][0] == "asv_taxonomy"
    assert [op for op, _ in steps(result)] == ["differential_abundance"]


def test_stringtie_output_is_assembled_transcripts_not_the_annotation(knowledge):
    """StringTie 2.2.1 on a slice of dupRadar's GM12878 BAM: its GTF (source StringTie, cov/FPKM/TPM) is that
    sample's assembly; counting reads per gene takes the reference annotation (genes.gtf) and says the
    assembly is not used."""
    result = plan_request("count reads per gene with featureCounts",
                          files("stringtie/GM12878.chr1.bam", "stringtie/GM12878.stringtie.gtf", "stringtie/genes.gtf"),
                          knowledge=knowledge)
    found = read_as(result)
    assert found["GM12878.stringtie.gtf"][0] == "assembled_transcripts"
    assert found["genes.gtf"][0] == "gene_annotation"
    (step,) = result.plans[0].steps
    assert (step.operation, step.tool) == ("read_counting", "featurecounts")
    assert step.sources["annotation"] == "input:gene_annotation"  # genes.gtf: the only gene annotation given
    assert any("GM12878.stringtie.gtf (assembled_transcripts) is not used" in w for w in result.spec.warnings)
    assembly = next(i for i in result.spec.inputs if i.datatype == "assembled_transcripts")
    assert any("StringTie version 2.2.1" in e for e in assembly.evidence)


def test_mutational_signatures_are_refused_by_name(knowledge):
    with pytest.raises(UnsupportedAnalysisError) as e:
        plan_request("mutational signature analysis of these somatic SNVs",
                     files("mutationalpatterns/colon1-sample.vcf"), knowledge=knowledge)
    assert "mutational signatures" in e.value.message


def test_ballgown_folder_is_refused_by_name_saying_what_to_give(knowledge):
    """ballgown's sample01: the tables `stringtie -B` writes (t_data.ctab, e_data.ctab, ...)."""
    with pytest.raises(BioplanError) as e:
        plan_request("differential expression with DESeq2", files("ballgown/sample01"), knowledge=knowledge)
    assert "StringTie -B (Ballgown) table folder" in e.value.message
    assert any("prepDE.py" in h for h in e.value.hints)


def test_multiqc_aggregates_alignment_qc_of_a_bam(knowledge):
    """MultiQC over samtools stats of a BAM: aggregation takes any QC report MultiQC parses, not only read QC
    (the request was refused before: 'nothing derives it without read_qc_report')."""
    result = plan_request("alignment QC with samtools stats and MultiQC", files("stringtie/GM12878.chr1.bam"),
                          knowledge=knowledge)
    assert steps(result) == [("alignment_qc", "samtools_stats"), ("qc_report_aggregation", "multiqc")]
    assert result.plans[0].steps[1].sources["reports"] == result.plans[0].steps[0].id
    # no @RG SM: the file names the sample, without its extension (was 'GM12878.chr1.bam', which no sheet lists)
    (bam,) = result.spec.inputs
    assert bam.sample == "GM12878.chr1"


def test_bcf_with_its_csi_is_filtered_and_summarised_by_bcftools(knowledge):
    """Rsamtools' ex1.bcf.gz: bcftools reads BCF as it reads VCF (the plan was refused: 'bcftools_filter reads
    vcf/vcf.gz, the input is bcf'); the .csi beside it is read as its index."""
    result = plan_request("filter the variants with bcftools, then variant statistics with bcftools stats",
                          files("rsamtools/ex1.bcf.gz", "rsamtools/ex1.bcf.gz.csi"), knowledge=knowledge)
    (calls,) = result.spec.inputs
    assert (calls.datatype, calls.format) == ("variant_calls", "bcf")
    assert sorted(steps(result)) == [("variant_filtering", "bcftools_filter"), ("variant_statistics", "bcftools_stats")]
    assert any("ex1.bcf.gz.csi is read as the index" in w for w in result.spec.warnings)


@pytest.mark.parametrize("target", ["snakemake", "nextflow"])
def test_sam_given_to_a_bam_reader_is_converted_first(knowledge, target, tmp_path):
    """A SAM where a tool reads BAM (StringTie; TopHat's accepted_hits.sam, an aligner run with -S): the binder
    inserts samtools sort + index (the plan was refused: 'stringtie.bam reads bam, the input is sam')."""
    from bioplan.compile import emit_files

    result = plan_request("assemble transcripts with StringTie", files("rsamtools/example_from_SAM_Spec.sam"),
                          knowledge=knowledge)
    (sam,) = result.spec.inputs
    assert (sam.datatype, sam.format) == ("aligned_reads", "sam")
    convert, assemble = result.plans[0].steps
    assert (convert.operation, convert.tool) == ("alignment_format_conversion", "samtools_sam_to_bam")
    assert (assemble.tool, assemble.sources["bam"]) == ("stringtie", convert.id)
    _, emitted = emit_files(knowledge, result, result.plans[0], target, tmp_path)
    rule = "workflow/rules/alignment_format_conversion.smk" if target == "snakemake" else \
        "modules/local/samtools/samtobam/main.nf"
    text = str(emitted[rule])
    assert "samtools sort" in text and "@SQ" in text  # a SAM without its header stops saying so


def test_tophat_junctions_are_refused_by_name(knowledge):
    """Rsamtools' TopHat output: junctions.bed (BED12, two blocks per junction, 'TopHat junctions' track) was an
    ambiguous 'peaks or blacklist' BED."""
    with pytest.raises(BioplanError) as e:
        plan_request("count reads per gene", files("rsamtools/tophat/junctions.bed"), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "splice-junction BED" in e.value.message



def test_dense_genes_by_cells_table_is_single_cell_data(knowledge):
    """Seurat's pbmc_raw.txt (230 genes x 80 PBMC barcodes, as GEO series ship counts): was a bulk count matrix of
    80 'samples' and 'cluster the cells' was refused; now a single-cell matrix, QC'd and normalised first (the
    emitted workflow ran: cluster 0's top markers CD3D, IL7R, LTB)."""
    result = plan_request("cluster the cells and find marker genes", files("seurat/pbmc_raw.txt"), knowledge=knowledge)
    (table,) = result.spec.inputs
    assert (table.datatype, table.format) == ("single_cell_matrix", "tsv")
    assert any("genes x cells" in e and "ATGCCAGAACGACT" in e for e in table.evidence)
    assert [op for op, _ in steps(result)] == ["sc_quality_filtering", "sc_normalization", "cell_clustering",
                                               "marker_gene_detection"]


@pytest.mark.parametrize("folder", ["seurat/cr2", "seurat/cr3.0"])
def test_cell_ranger_matrix_folders(knowledge, folder):
    result = plan_request("QC, normalize and cluster the cells, then find marker genes", files(folder),
                          knowledge=knowledge)
    (matrix,) = result.spec.inputs
    assert matrix.datatype == "single_cell_matrix"
    assert steps(result)[0] == ("sc_quality_filtering", "scanpy_qc")


def test_gzipped_cell_ranger_h5_is_refused_then_read_once_gunzipped(knowledge, tmp_path):
    import gzip
    import shutil

    gz = DATA / "seurat/visium/filtered_feature_bc_matrix.h5.gz"
    with pytest.raises(BioplanError) as e:
        plan_request("QC, normalize and cluster the cells", [str(gz)], knowledge=knowledge)
    assert "gzip-compressed HDF5" in e.value.message and any("gunzip" in h for h in e.value.hints)
    h5 = tmp_path / "filtered_feature_bc_matrix.h5"
    with gzip.open(gz, "rb") as src, open(h5, "wb") as dst:
        shutil.copyfileobj(src, dst)
    result = plan_request("QC, normalize and cluster the cells", [str(h5)], knowledge=knowledge)
    (matrix,) = result.spec.inputs
    assert (matrix.datatype, matrix.format) == ("single_cell_matrix", "10x_h5")


# --------------------------------------------------------------------------- round 3: variant call kinds, reads in
# other containers, coverage and annotation flavours, protein FASTA (README: Debian and PyPI sources)


@pytest.mark.parametrize("name", ["variantannotation/structural.vcf", "vcfpy/example-4.1-sv.vcf"])
def test_structural_variant_vcfs_are_sv_calls_not_small_variants(knowledge, name):
    """The 1000 Genomes pilot SV VCF (VariantAnnotation) and the VCF 4.1 specification's SV example (vcfpy):
    <DEL>, <DUP:TANDEM>, <INS:ME:L1>, breakends. They were small-variant calls, and bcftools filter + SnpEff
    were planned on them; now the small-variant steps are refused naming the SV calls."""
    with pytest.raises(BioplanError) as e:
        plan_request("filter the variants with bcftools, then variant statistics with bcftools stats",
                     files(name), knowledge=knowledge)
    assert "structural_variant_calls" in e.value.message and any("variant_calls" in h for h in e.value.hints)


def test_strelka_somatic_calls_stay_small_variant_calls_and_are_annotated(knowledge):
    result = plan_request("annotate the somatic variants with SnpEff", files("vcfpy/strelka.vcf"), knowledge=knowledge)
    (vcf,) = result.spec.inputs
    assert vcf.datatype == "variant_calls"
    assert steps(result) == [("variant_annotation", "snpeff")]


def test_bcftools_mpileup_output_is_refused_saying_to_call_it(knowledge):
    """htslib-test's index.vcf: `bcftools mpileup` (ALT <*> at every site, PL but no GT) is genotype likelihoods."""
    with pytest.raises(BioplanError) as e:
        plan_request("filter the variants with bcftools", files("htslib/index.vcf"), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "bcftools mpileup output" in e.value.message
    assert any("bcftools call" in h for h in e.value.hints)


def test_bcftools_gvcf_is_refused_for_gatk_joint_genotyping(knowledge):
    """`bcftools call -g 5` on Rsamtools' ex1.bam: reference blocks GATK's GenotypeGVCFs does not read."""
    with pytest.raises(BioplanError) as e:
        plan_request("joint genotyping of these gVCFs with GATK GenotypeGVCFs", files("bcftools_gvcf/ex1.g.vcf.gz"),
                     knowledge=knowledge)
    assert "bcftools gVCF" in e.value.message and any("bcftools merge --gvcf" in h for h in e.value.hints)


def test_ena_fastq_pair_with_the_original_read_names_is_one_paired_sample(knowledge):
    """ArrayExpress E-MTAB-1147 as ENA serves it (ShortRead): '@ERR127302.8493430 HWI-EAS350_0441:...#0/1'.
    The mate is in the instrument's read name after the accession, the files end _1_subset/_2_subset: they were
    two single-end samples 'ERR127302_1_subset' and 'ERR127302_2_subset'."""
    result = plan_request("quality control with FastQC, then trim the reads with fastp",
                          files("ena/ERR127302_1_subset.fastq.gz", "ena/ERR127302_2_subset.fastq.gz"),
                          knowledge=knowledge)
    assert read_as(result) == {"ERR127302_1_subset.fastq.gz": ("raw_reads", "ERR127302", 1),
                               "ERR127302_2_subset.fastq.gz": ("raw_reads", "ERR127302", 2)}
    assert steps(result) == [("read_qc", "fastqc"), ("read_trimming", "fastp")]


@pytest.mark.parametrize("name", ["htslib/interleaved.fq", "htslib/interleaved_casava.fq"])
def test_interleaved_fastq_is_qc_d_but_not_trimmed_or_aligned_as_single_end(knowledge, name):
    """htslib-test's interleaved files (/1 /2 ids; CASAVA 1.8 '1:N:0' / '2:N:0' comments): FastQC reads them as they
    are; trimming and alignment were planned on them as single-end reads (fastp without --interleaved_in, bwa mem
    without -p: each mate aligned alone), now refused saying how to split the mates."""
    result = plan_request("quality control of the reads with FastQC", files(name), knowledge=knowledge)
    (reads,) = result.spec.inputs
    assert reads.mate is None and any("interleaved" in e for e in reads.evidence)
    assert steps(result) == [("read_qc", "fastqc")]
    with pytest.raises(BioplanError) as e:
        plan_request("trim the reads with fastp, then align them to the genome with bwa",
                     files(name, "rsubread/reference.fa"), knowledge=knowledge)
    assert "interleaved paired-end reads" in e.value.message and any("seqtk seq -1" in h for h in e.value.hints)


def test_cram_is_refused_saying_how_to_make_the_bam(knowledge):
    """htslib-test's ce#5b_java.cram (htsjdk-written CRAM 3): no tool of the plan reads CRAM; the hint says how to
    convert it with its reference (the message was only 'add a format adapter to the knowledge base')."""
    with pytest.raises(BioplanError) as e:
        plan_request("alignment QC with samtools stats", files("htslib/ce#5b_java.cram"), knowledge=knowledge)
    assert "the input is cram" in e.value.message
    assert any("samtools view -b -T REF.fa" in h for h in e.value.hints)


@pytest.mark.parametrize("name, said", [("pbcore/pb.subreads.bam", "PacBio subreads"),
                                        ("pbcore/pb.ccs.bam", "PacBio CCS reads")])
def test_pacbio_unaligned_bams_are_refused_by_name(knowledge, name, said):
    """pbcore's subreads and CCS BAMs hold unaligned reads (no @SQ): they were aligned reads, and variant calling
    was planned on them."""
    with pytest.raises(BioplanError) as e:
        plan_request("call variants from the PacBio reads", files(name), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and "unaligned BAM" in e.value.message and said in e.value.message
    assert any("samtools fastq" in h for h in e.value.hints)


def test_nanopore_2d_read_is_read_qc_d_and_long_read_assembly_is_refused_by_name(knowledge):
    """The 2D basecall of NanoOK's E. coli FAST5 (its Fastq dataset, as poretools extracts it)."""
    result = plan_request("quality control of the nanopore reads", files("nanook/ch327_file62.2D.fastq"),
                          knowledge=knowledge)
    # long reads by the read name (ch327_file62: NanoOK/poretools), so long-read QC (tests/test_long_reads.py)
    assert [i.datatype for i in result.spec.inputs] == ["long_reads"]
    assert steps(result) == [("read_qc_long_reads", "fastqc_long_reads")]
    with pytest.raises(UnsupportedAnalysisError) as e:
        plan_request("assemble the E. coli genome from the nanopore reads with Flye",
                     files("nanook/ch327_file62.2D.fastq", "nanook/ecoli_dh10b_cs.fasta"), knowledge=knowledge)
    assert "long-read assembly" in e.value.message


def test_bedgraph_where_deeptools_reads_bigwig_says_how_to_convert(knowledge):
    with pytest.raises(BioplanError) as e:
        plan_request("compute a signal matrix around the genes with deepTools", files("rtracklayer/test.bedGraph"),
                     knowledge=knowledge)
    assert "the input is bedgraph" in e.value.message and any("bedGraphToBigWig" in h for h in e.value.hints)


@pytest.mark.parametrize("name, fmt, facts", [
    ("genomicfeatures/NC_011025.gff", "gff3", {"annotation_provider": "RefSeq", "seqid_style": "refseq",
                                               "taxon_id": 243272}),
    ("genomicfeatures/dmel-1000-r5.11.filtered.gff", "gff3", {}),  # FlyBase ids through gffread
    ("genomicfeatures/Aedes_aegypti.partial.gtf", "gtf", {}),  # VectorBase supercontigs
])
def test_annotations_of_other_sources_feed_featurecounts(knowledge, name, fmt, facts):
    result = plan_request("count reads per gene with featureCounts", files("stringtie/GM12878.chr1.bam", name),
                          knowledge=knowledge)
    from bioplan.request.sniff import sniff_file

    annotation = next(i for i in result.spec.inputs if i.datatype == "gene_annotation")
    assert annotation.format == fmt
    sniffed = sniff_file(str(DATA / name), {})
    assert {k: sniffed.fact(k) for k in facts} == facts
    assert steps(result)[-1] == ("read_counting", "featurecounts")
    assert (steps(result)[0] == ("annotation_format_conversion", "gffread_gtf")) == (fmt == "gff3")


def test_protein_fasta_builds_the_diamond_database(knowledge):
    """HMMER's globins45.fa (45 globin proteins) beside MEGAHIT's contigs."""
    result = plan_request("annotate the contigs by similarity to these proteins with DIAMOND",
                          [str(DATA.parent / "real/megahit/A_1/final.contigs.fa"), *files("hmmer/globins45.fa")],
                          knowledge=knowledge)
    found = read_as(result)
    assert found["globins45.fa"][0] == "protein_reference_sequences"
    assert [s for s in steps(result)][:2] == [("protein_database_build", "diamond_makedb"),
                                              ("protein_similarity_search", "diamond_blastx")]


@pytest.mark.parametrize("name", ["hmmer/globins45.fa", "prodigal/ex1.proteins.faa"])
def test_protein_fasta_given_as_the_genome_is_said_to_be_unused(knowledge, name):
    """A protein FASTA (HMMER's globins, Prodigal's translations) beside 'align to the genome': the genome comes
    from the config, and the plan says the proteins are not used (it said nothing)."""
    result = plan_request("align the reads to the genome with bwa",
                          files("rsubread/reads1.txt.gz", "rsubread/reads2.txt.gz", name), knowledge=knowledge)
    assert read_as(result)[Path(name).name][0] == "protein_reference_sequences"
    assert any(w.startswith(str(DATA / name)) and "is not used" in w for w in result.spec.warnings)


REAL = DATA.parent / "real"  # tool outputs vendored for tests/test_real_data.py (its README says how they were made)
REPORTS = ("featurecounts/sample1.featureCounts.txt.summary", "star/sample1_Log.final.out",
           "star/sample1_ReadsPerGene.out.tab", "samtools/sample1.stats", "samtools/sample1.flagstat",
           "samtools/sample1.idxstats", "mosdepth/sample1.mosdepth.summary.txt",
           "mosdepth/sample1.mosdepth.global.dist.txt", "macs2/sample1_peaks.xls", "rsem/S1.bowtie2.log",
           "fastp/S1.fastp.json", "fastqc/r1_fastqc.zip")


def test_multiqc_over_the_reports_tools_wrote(knowledge):
    """A run's reports as a user gathers them for MultiQC (featureCounts .summary, STAR Log.final.out and
    ReadsPerGene, samtools stats/flagstat/idxstats, mosdepth, MACS2's .xls, a Bowtie2 log, fastp, FastQC): each
    was refused ('a report rather than data to plan from'); asked to aggregate them, each is a QC report, one sheet
    row per file (a sample's several reports were one row, all but one dropped)."""
    result = plan_request("aggregate the QC reports with MultiQC", [str(REAL / r) for r in REPORTS],
                          knowledge=knowledge)
    found = read_as(result)
    assert {d for d, _, _ in found.values()} == {"qc_report"}
    assert len({s for _, s, _ in found.values()}) == len(REPORTS)
    assert steps(result) == [("qc_report_aggregation", "multiqc")]
    with pytest.raises(BioplanError) as e:  # asked for something else, a report is still refused saying what it is
        plan_request("differential expression with DESeq2", [str(REAL / "star/sample1_ReadsPerGene.out.tab")],
                     knowledge=knowledge)
    assert "ReadsPerGene.out.tab" in e.value.message and e.value.code == "unreadable_input"


@pytest.mark.parametrize("name, said, hint", [
    ("mudata/pbmc_raw.h5mu", "MuData multimodal container (.h5mu)", "write_h5ad"),
    ("nanook/N79596_dh10b_8kb_11022015_0627_1_ch327_file62_strand.fast5", "Oxford Nanopore FAST5", "basecall"),
])
def test_other_hdf5_containers_are_refused_by_name(knowledge, name, said, hint):
    """A MuData file (mudata 0.3.10 on Seurat's pbmc_raw; HDF5 after a 512-byte user block) was 'binary data of a
    type bioplan does not know'; NanoOK's FAST5 was 'HDF5 without the AnnData groups'."""
    with pytest.raises(BioplanError) as e:
        plan_request("cluster the cells and find marker genes", files(name), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message
    assert any(hint in h for h in e.value.hints)


@pytest.mark.parametrize("name, said, hint", [
    # a slice of the alignment (its first lines): the tree tools would stop on its uneven rows
    ("biostrings/msx2_mRNA.aln", "Clustal multiple sequence alignment in Clustal: it has sequences of different "
     "lengths", "aligned FASTA"),
    # PHYLIP 'W' (weights) option with a 'Mask' row: no form of PHYLIP holds its 25 sequences
    ("biostrings/Phylip.txt", "PHYLIP multiple sequence alignment in PHYLIP: it does not hold 25", "aligned FASTA"),
    ("hmmer/globins4.sto", "Stockholm multiple sequence alignment", "unaligned sequences as FASTA"),
])
def test_multiple_sequence_alignments_are_refused_by_name(knowledge, name, said, hint):
    """Biostrings' Clustal and PHYLIP alignments and HMMER's Stockholm file were 'one-column files whose values are
    not gene ids'. A Clustal or PHYLIP alignment the tree tools read is the alignment of a tree since round 5
    (tests/test_real_data_round5.py); these two are not whole ones."""
    with pytest.raises(BioplanError) as e:
        plan_request("build a phylogenetic tree of these sequences", files(name), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message
    assert any(hint in h for h in e.value.hints)


def test_htseq_count_output_is_one_samples_counts(knowledge):
    """htseq-count (HTSeq 2.1.2) on the GM12878 slice with genes.gtf: 'gene<TAB>count' without a header, closed by
    __no_feature, __ambiguous, ... It was read as a count matrix (its first gene row taken for the header); now refused
    saying to join the samples' files, and a QC report when MultiQC aggregates reports (its htseq module)."""
    with pytest.raises(BioplanError) as e:
        plan_request("differential expression with DESeq2", files("htseq/GM12878.htseq.counts"), knowledge=knowledge)
    assert "HTSeq-count output of one sample" in e.value.message
    assert any("DESeqDataSetFromHTSeqCount" in h for h in e.value.hints)
    result = plan_request("aggregate the QC reports with MultiQC",
                          [*files("htseq/GM12878.htseq.counts"), str(REAL / "star/sample1_Log.final.out")],
                          knowledge=knowledge)
    assert {d for d, _, _ in read_as(result).values()} == {"qc_report"}
    assert steps(result) == [("qc_report_aggregation", "multiqc")]


@pytest.mark.parametrize("name, said", [
    ("error_diff_ids.fastq", "repeats another read id on its '+' line"),
    *((f"error_qual_{kind}.fastq", "quality character outside '!'..'~'")
      for kind in ("del", "escape", "space", "tab", "unit_sep", "vtab")),
])
def test_fastq_with_broken_records_is_refused_saying_where(knowledge, name, said):
    """Biopython's FASTQ test suite (Cock et al. 2010): a '+' line naming another read, qualities holding DEL,
    ESC, space, tab, unit separator or vertical tab. They were read as reads and planned."""
    with pytest.raises(BioplanError) as e:
        plan_request("quality control of the reads with FastQC", files(f"biopython/{name}"), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message and "record" in e.value.message


@pytest.mark.parametrize("name, said", [
    ("tab_2226_tblastn_001.txt", "sequence similarity hits in BLAST's tabular form (12 columns"),  # was a normalised
    ("tab_2226_tblastn_005.txt", "sequence similarity hits in BLAST's tabular form (with its '# Fields:'"),  # matrix
    ("muscle.fa", "aligned FASTA"),  # was protein reference sequences
    ("kalign.aln", "Clustal multiple sequence alignment"),  # Kalign's ClustalW-format output
    ("horses.phy", "PHYLIP multiple sequence alignment"),  # strict PHYLIP: names glued to the residues
    ("horses.tree", "Newick phylogenetic tree"),  # was a sample sheet
])
def test_search_hits_alignments_and_trees_are_refused_by_name(knowledge, name, said):
    """Biopython's test files of BLAST+ tabular output, MUSCLE/Kalign alignments, PHYLIP and Newick."""
    with pytest.raises(BioplanError) as e:
        plan_request("functional annotation of these sequences with DIAMOND", files(f"biopython/{name}"),
                     knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message


@pytest.mark.parametrize("name, said", [
    ("GU949562.1.gb", "GenBank flat file"), ("DS830848.embl", "EMBL flat file"),
    ("O23729.txt", "UniProt/EMBL protein flat file"), ("E3MFGYR02_random_10_reads.sff", "Roche 454 SFF file"),
    ("mock_actin.xml", "BLAST XML output"),
])
def test_database_flat_files_and_454_sff_are_refused_by_name(knowledge, name, said):
    """Biopython's GenBank, EMBL and UniProt records and BLAST XML were 'one-column files whose values are not gene
    ids'; its 454 SFF file was 'binary data of a type bioplan does not know'."""
    with pytest.raises(BioplanError) as e:
        plan_request("annotate the genome with Prokka", files(f"biopython/{name}"), knowledge=knowledge)
    assert e.value.code == "unreadable_input" and said in e.value.message
    assert any("FASTA" in h or "FASTQ" in h for h in e.value.hints)
