/*
 * The plan bioplan 0.1.0 chose, one process per step. Processes are aliased after the
 * plan's steps, so this graph matches the Snakemake target's rule graph.
 */

include { GSEAPY_MARKERENRICH as MARKER_ENRICHMENT } from '../modules/local/gseapy/markerenrich/main'
include { SCANPY_LEIDEN as CELL_CLUSTERING } from '../modules/local/scanpy/leiden/main'
include { SCANPY_NORMALIZE as SC_NORMALIZATION } from '../modules/local/scanpy/normalize/main'
include { SCANPY_QC as SC_QUALITY_FILTERING } from '../modules/local/scanpy/qc/main'
include { SCANPY_RANKGENESGROUPS as MARKER_GENE_DETECTION } from '../modules/local/scanpy/rankgenesgroups/main'
include { SCANPY_UMAP as EMBEDDING_VISUALIZATION } from '../modules/local/scanpy/umap/main'

workflow BIOPLAN {
    take:
    ch_single_cell_matrix  // channel: [ val(meta), path(file) ]
    ch_gene_set_library  // channel: path(file)

    main:

    SC_QUALITY_FILTERING (
        ch_single_cell_matrix
    )

    SC_NORMALIZATION (
        SC_QUALITY_FILTERING.out.adata
    )

    CELL_CLUSTERING (
        SC_NORMALIZATION.out.adata
    )

    EMBEDDING_VISUALIZATION (
        CELL_CLUSTERING.out.adata
    )

    MARKER_GENE_DETECTION (
        CELL_CLUSTERING.out.adata
    )

    MARKER_ENRICHMENT (
        MARKER_GENE_DETECTION.out.markers,
        ch_gene_set_library
    )

    emit:
    marker_enrichment_table = MARKER_ENRICHMENT.out.table
    embedding_visualization_plot = EMBEDDING_VISUALIZATION.out.plot
}
