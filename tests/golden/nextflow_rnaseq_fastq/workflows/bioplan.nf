/*
 * The plan bioplan 0.1.0 chose, one process per step. Processes are aliased after the
 * plan's steps, so this graph matches the Snakemake target's rule graph.
 */

include { BIOPLAN_CHECK_GENE_ANNOTATION as CHECK_GENE_ANNOTATION } from '../modules/local/bioplan/check_gene_annotation/main'
include { BIOPLAN_CHECK_GENE_ANNOTATION_READ_COUNTING as CHECK_GENE_ANNOTATION_READ_COUNTING } from '../modules/local/bioplan/check_gene_annotation_read_counting/main'
include { BIOPLAN_CHECK_PAIRED_END_READS as CHECK_PAIRED_END_READS } from '../modules/local/bioplan/check_paired_end_reads/main'
include { BIOPLAN_CHECK_REFERENCE_GENOME as CHECK_REFERENCE_GENOME } from '../modules/local/bioplan/check_reference_genome/main'
include { FASTP as READ_TRIMMING } from '../modules/local/fastp/main'
include { FASTQC as READ_QC } from '../modules/local/fastqc/main'
include { FEATURECOUNTS as READ_COUNTING } from '../modules/local/featurecounts/main'
include { MULTIQC as QC_REPORT_AGGREGATION } from '../modules/local/multiqc/main'
include { STAR_ALIGN as READ_ALIGNMENT } from '../modules/local/star/align/main'
include { STAR_GENOMEGENERATE as GENOME_INDEXING } from '../modules/local/star/genomegenerate/main'

workflow BIOPLAN {
    take:
    ch_reference_genome  // channel: path(file)
    ch_gene_annotation  // channel: path(file)
    ch_reads  // channel: [ val(meta), [ reads ] ]
    ch_software_versions  // channel: path(software_versions_mqc_versions.yml)

    main:

    CHECK_REFERENCE_GENOME (
        ch_reference_genome
    )

    CHECK_GENE_ANNOTATION (
        ch_reference_genome,
        ch_gene_annotation
    )

    GENOME_INDEXING (
        ch_reference_genome
            .combine(CHECK_REFERENCE_GENOME.out.ok)
            .map { f, _ok -> f }
            .first()
            .combine(CHECK_GENE_ANNOTATION.out.ok)
            .map { f, _ok -> f }
            .first(),
        ch_gene_annotation
            .combine(CHECK_GENE_ANNOTATION.out.ok)
            .map { f, _ok -> f }
            .first()
    )

    CHECK_PAIRED_END_READS (
        ch_reads
    )

    READ_QC (
        ch_reads
            .join(CHECK_PAIRED_END_READS.out.ok, failOnMismatch: true)
            .map { meta, f0, _ok -> [meta, f0] }
    )

    READ_TRIMMING (
        ch_reads
            .join(CHECK_PAIRED_END_READS.out.ok, failOnMismatch: true)
            .map { meta, f0, _ok -> [meta, f0] }
    )

    READ_ALIGNMENT (
        READ_TRIMMING.out.trimmed,
        GENOME_INDEXING.out.index
    )

    CHECK_GENE_ANNOTATION_READ_COUNTING (
        ch_gene_annotation
    )

    READ_COUNTING (
        READ_ALIGNMENT.out.bam
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] },
        ch_gene_annotation
            .combine(CHECK_GENE_ANNOTATION_READ_COUNTING.out.ok)
            .map { f, _ok -> f }
            .first()
    )

    QC_REPORT_AGGREGATION (
        READ_QC.out.report
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] },
        READ_TRIMMING.out.report
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] },
        READ_ALIGNMENT.out.log
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] },
        READ_COUNTING.out.summary,
        ch_software_versions
    )

    emit:
    read_qc_report = READ_QC.out.report
    read_counting_counts = READ_COUNTING.out.counts
    read_trimming_report = READ_TRIMMING.out.report
    read_alignment_log = READ_ALIGNMENT.out.log
    read_counting_summary = READ_COUNTING.out.summary
    qc_report_aggregation_report = QC_REPORT_AGGREGATION.out.report
    qc_report_aggregation_data = QC_REPORT_AGGREGATION.out.data
    versions_multiqc = QC_REPORT_AGGREGATION.out.versions_multiqc
}
