/*
 * The plan bioplan 0.1.0 chose, one process per step. Processes are aliased after the
 * plan's steps, so this graph matches the Snakemake target's rule graph.
 */

include { BCFTOOLS_FILTER as VARIANT_FILTERING } from '../modules/local/bcftools/filter/main'
include { BIOPLAN_CHECK_GENE_ANNOTATION as CHECK_GENE_ANNOTATION } from '../modules/local/bioplan/check_gene_annotation/main'
include { BIOPLAN_CHECK_REFERENCE_GENOME as CHECK_REFERENCE_GENOME } from '../modules/local/bioplan/check_reference_genome/main'
include { BIOPLAN_CHECK_VCF_FILTER_FIELDS as CHECK_VCF_FILTER_FIELDS } from '../modules/local/bioplan/check_vcf_filter_fields/main'
include { GFFREAD_GTF as ANNOTATION_FORMAT_CONVERSION } from '../modules/local/gffread/gtf/main'
include { MULTIQC as QC_REPORT_AGGREGATION } from '../modules/local/multiqc/main'
include { SNPEFF_BUILD as VARIANT_ANNOTATION_BUILD_DB } from '../modules/local/snpeff/build/main'
include { SNPEFF_SNPEFF as VARIANT_ANNOTATION } from '../modules/local/snpeff/snpeff/main'
include { TABIX_BGZIPTABIX as VARIANT_ANNOTATION_BGZIP } from '../modules/local/tabix/bgziptabix/main'
include { VARIANT_SUMMARYTABLE as VARIANT_SUMMARY } from '../modules/local/variant/summarytable/main'

workflow BIOPLAN {
    take:
    ch_gene_annotation  // channel: path(file)
    ch_variant_calls  // channel: [ val(meta), path(file) ]
    ch_reference_genome  // channel: path(file)
    ch_software_versions  // channel: path(software_versions_mqc_versions.yml)

    main:

    ANNOTATION_FORMAT_CONVERSION (
        ch_gene_annotation
    )

    CHECK_VCF_FILTER_FIELDS (
        ch_variant_calls
    )

    VARIANT_FILTERING (
        ch_variant_calls
            .combine(CHECK_VCF_FILTER_FIELDS.out.ok)
            .map { meta, f, _ok_meta, _ok -> [meta, f] }
            .first()
    )

    CHECK_REFERENCE_GENOME (
        ch_reference_genome
    )

    CHECK_GENE_ANNOTATION (
        ch_reference_genome,
        ANNOTATION_FORMAT_CONVERSION.out.annotation
    )

    VARIANT_ANNOTATION_BUILD_DB (
        ch_reference_genome
            .combine(CHECK_REFERENCE_GENOME.out.ok)
            .map { f, _ok -> f }
            .first()
            .combine(CHECK_GENE_ANNOTATION.out.ok)
            .map { f, _ok -> f }
            .first(),
        ANNOTATION_FORMAT_CONVERSION.out.annotation
            .combine(CHECK_GENE_ANNOTATION.out.ok)
            .map { f, _ok -> f }
            .first()
    )

    VARIANT_ANNOTATION (
        VARIANT_FILTERING.out.vcf,
        VARIANT_ANNOTATION_BUILD_DB.out.database
    )

    VARIANT_ANNOTATION_BGZIP (
        VARIANT_ANNOTATION.out.vcf
    )

    VARIANT_SUMMARY (
        VARIANT_ANNOTATION_BGZIP.out.vcf
    )

    QC_REPORT_AGGREGATION (
        VARIANT_ANNOTATION.out.csv,
        ch_software_versions
    )

    emit:
    variant_summary_table = VARIANT_SUMMARY.out.table
    variant_annotation_bgzip_vcf = VARIANT_ANNOTATION_BGZIP.out.vcf
    variant_annotation_bgzip_tbi = VARIANT_ANNOTATION_BGZIP.out.tbi
    variant_annotation_csv = VARIANT_ANNOTATION.out.csv
    qc_report_aggregation_report = QC_REPORT_AGGREGATION.out.report
    qc_report_aggregation_data = QC_REPORT_AGGREGATION.out.data
    versions_multiqc = QC_REPORT_AGGREGATION.out.versions_multiqc
}
