/*
 * The plan bioplan 0.1.0 chose, one process per step. Processes are aliased after the
 * plan's steps, so this graph matches the Snakemake target's rule graph.
 */

include { BIOPLAN_CHECK_ENTREZ_ID as CHECK_ENTREZ_ID } from '../modules/local/bioplan/check_entrez_id/main'
include { BIOPLAN_CHECK_RAW_INTEGER_COUNTS as CHECK_RAW_INTEGER_COUNTS } from '../modules/local/bioplan/check_raw_integer_counts/main'
include { BIOPLAN_CHECK_REPLICATES as CHECK_REPLICATES } from '../modules/local/bioplan/check_replicates/main'
include { DESEQ2_DIFFERENTIAL as DIFFERENTIAL_EXPRESSION } from '../modules/local/deseq2/differential/main'
include { DE_FILTER as GENE_FILTERING } from '../modules/local/de/filter/main'
include { GSEAPY_ENRICHGO as GO_ENRICHMENT } from '../modules/local/gseapy/enrichgo/main'
include { GSEAPY_ENRICHKEGG as KEGG_ENRICHMENT } from '../modules/local/gseapy/enrichkegg/main'
include { IDMAP_TABLE as GENE_ID_CONVERSION } from '../modules/local/idmap/table/main'
include { MERGE_PATHWAYTABLES as PATHWAY_MERGE } from '../modules/local/merge/pathwaytables/main'
include { TABLE_TOCSV as CSV_EXPORT } from '../modules/local/table/tocsv/main'

workflow BIOPLAN {
    take:
    ch_raw_count_matrix  // channel: [ val(meta), path(file) ]
    ch_sample_metadata  // channel: [ val(meta), path(file) ]
    ch_gene_id_mapping  // channel: path(file)
    ch_gene_set_library_go_enrichment  // channel: path(file)
    ch_gene_set_library_kegg_enrichment  // channel: path(file)

    main:

    CHECK_RAW_INTEGER_COUNTS (
        ch_raw_count_matrix
    )

    CHECK_REPLICATES (
        ch_sample_metadata
    )

    DIFFERENTIAL_EXPRESSION (
        ch_raw_count_matrix
            .combine(CHECK_RAW_INTEGER_COUNTS.out.ok)
            .map { meta, f, _ok_meta, _ok -> [meta, f] }
            .first(),
        ch_sample_metadata
            .combine(CHECK_REPLICATES.out.ok)
            .map { meta, f, _ok_meta, _ok -> [meta, f] }
            .first()
    )

    GENE_FILTERING (
        DIFFERENTIAL_EXPRESSION.out.table
    )

    GENE_ID_CONVERSION (
        GENE_FILTERING.out.genes,
        ch_gene_id_mapping
    )

    GO_ENRICHMENT (
        GENE_ID_CONVERSION.out.entrez,
        ch_gene_set_library_go_enrichment
    )

    CHECK_ENTREZ_ID (
        GENE_ID_CONVERSION.out.entrez
    )

    KEGG_ENRICHMENT (
        GENE_ID_CONVERSION.out.entrez
            .combine(CHECK_ENTREZ_ID.out.ok)
            .map { meta, f, _ok_meta, _ok -> [meta, f] }
            .first(),
        ch_gene_set_library_kegg_enrichment
    )

    PATHWAY_MERGE (
        KEGG_ENRICHMENT.out.table,
        GO_ENRICHMENT.out.table
    )

    CSV_EXPORT (
        PATHWAY_MERGE.out.merged
    )

    emit:
    csv_export_csv = CSV_EXPORT.out.csv
}
