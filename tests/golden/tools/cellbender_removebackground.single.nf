process CELLBENDER_REMOVEBACKGROUND {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/cellbender_webcolors:9cfb55914fc5dcea"

    input:
    tuple val(meta), path(adata)

    output:
    tuple val(meta), path("${prefix}_filtered.h5"), emit: adata
    tuple val("${task.process}"), val('cellbender'), eval('{ cellbender --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_cellbender, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def epochs = tp.epochs != null ? tp.epochs : 150
    def fpr = tp.fpr != null ? tp.fpr : 0.01
    // CellBender names its outputs after --output: ${prefix}.h5 (all droplets), ${prefix}_filtered.h5 (cells)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    TMPDIR=. cellbender remove-background \\
        --cpu-threads ${task.cpus} \\
        --input ${adata} \\
        --output ${prefix}.h5 \\
        --epochs ${epochs} \\
        --fpr ${fpr} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}_filtered.h5
    """
}
