process SIMPLEAF_QUANT {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/simpleaf:0.25.0--b9f96d8b71a01864"

    input:
    tuple val(meta), val(sample_ids), path(reads, stageAs: 'reads/*')
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.quants.h5ad"), emit: adata
    tuple val("${task.process}"), val('simpleaf'), eval('{ simpleaf --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_simpleaf, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def chemistry = tp.chemistry ?: '10xv3'
    def resolution = tp.resolution ?: 'cr-like'
    def cell_filter = tp.cell_filter ?: 'knee'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    echo 'alevin-fry needs both reads of each library (R1: cell barcode + UMI, R2: cDNA); this workflow was compiled for single-end reads' >&2
    exit 1
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.quants.h5ad
    """
}
