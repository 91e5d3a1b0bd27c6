/*
 * The plan bioplan 0.1.0 chose, one process per step. Processes are aliased after the
 * plan's steps, so this graph matches the Snakemake target's rule graph.
 */

include { BIOPLAN_CHECK_PAIRED_END_READS as CHECK_PAIRED_END_READS } from '../modules/local/bioplan/check_paired_end_reads/main'
include { BIOPLAN_CHECK_REFERENCE_GENOME as CHECK_REFERENCE_GENOME } from '../modules/local/bioplan/check_reference_genome/main'
include { BIOPLAN_CHECK_REPLICATES as CHECK_REPLICATES } from '../modules/local/bioplan/check_replicates/main'
include { BOWTIE2_BUILD as GENOME_INDEXING } from '../modules/local/bowtie2/build/main'
include { BOWTIE2_HOSTREMOVAL as HOST_READ_REMOVAL } from '../modules/local/bowtie2/hostremoval/main'
include { DA_CLRWELCH as DIFFERENTIAL_ABUNDANCE } from '../modules/local/da/clrwelch/main'
include { KRAKEN2_BUILDCUSTOM as TAXONOMIC_DATABASE_BUILD } from '../modules/local/kraken2/buildcustom/main'
include { KRAKEN2_KRAKEN2 as TAXONOMIC_CLASSIFICATION } from '../modules/local/kraken2/kraken2/main'
include { MERGE_KRAKENREPORTS as ABUNDANCE_TABLE_MERGE } from '../modules/local/merge/krakenreports/main'
include { MULTIQC as QC_REPORT_AGGREGATION } from '../modules/local/multiqc/main'

workflow BIOPLAN {
    take:
    ch_reference_genome  // channel: path(file)
    ch_reads  // channel: [ val(meta), [ reads ] ]
    ch_reference_sequences  // channel: path(file)
    ch_taxonomy_dump  // channel: path(file)
    ch_sample_metadata  // channel: [ val(meta), path(file) ]
    ch_software_versions  // channel: path(software_versions_mqc_versions.yml)

    main:

    CHECK_REFERENCE_GENOME (
        ch_reference_genome
    )

    GENOME_INDEXING (
        ch_reference_genome
            .combine(CHECK_REFERENCE_GENOME.out.ok)
            .map { f, _ok -> f }
            .first()
    )

    CHECK_PAIRED_END_READS (
        ch_reads
    )

    HOST_READ_REMOVAL (
        ch_reads
            .join(CHECK_PAIRED_END_READS.out.ok, failOnMismatch: true)
            .map { meta, f0, _ok -> [meta, f0] },
        GENOME_INDEXING.out.index
    )

    TAXONOMIC_DATABASE_BUILD (
        ch_reference_sequences,
        ch_taxonomy_dump
    )

    TAXONOMIC_CLASSIFICATION (
        HOST_READ_REMOVAL.out.depleted,
        TAXONOMIC_DATABASE_BUILD.out.database
    )

    ABUNDANCE_TABLE_MERGE (
        TAXONOMIC_CLASSIFICATION.out.classification
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] }
    )

    CHECK_REPLICATES (
        ch_sample_metadata
    )

    DIFFERENTIAL_ABUNDANCE (
        ABUNDANCE_TABLE_MERGE.out.table,
        ch_sample_metadata
            .combine(CHECK_REPLICATES.out.ok)
            .map { meta, f, _ok_meta, _ok -> [meta, f] }
            .first()
    )

    QC_REPORT_AGGREGATION (
        TAXONOMIC_CLASSIFICATION.out.classification
            .toSortedList { a, b -> a[0].id <=> b[0].id }
            .map { items -> [[id: 'all_samples'], items.collect { item -> item[0].id }, items.collect { item -> item[1] }.flatten()] },
        ch_software_versions
    )

    emit:
    differential_abundance_table = DIFFERENTIAL_ABUNDANCE.out.table
    taxonomic_classification_classification = TAXONOMIC_CLASSIFICATION.out.classification
    qc_report_aggregation_report = QC_REPORT_AGGREGATION.out.report
    qc_report_aggregation_data = QC_REPORT_AGGREGATION.out.data
    versions_multiqc = QC_REPORT_AGGREGATION.out.versions_multiqc
}
