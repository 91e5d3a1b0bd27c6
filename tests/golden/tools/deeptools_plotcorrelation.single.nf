process DEEPTOOLS_PLOTCORRELATION {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(counts)

    output:
    tuple val(meta), path("${prefix}.correlation_heatmap.png"), emit: correlation
    tuple val(meta), path("${prefix}.correlation_matrix.tsv"), emit: matrix
    tuple val("${task.process}"), val('deeptools'), eval('{ plotCorrelation --version 2>&1 | sed \'s/^plotCorrelation //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def method = task.ext.tool_params?.method ?: 'spearman'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    plotCorrelation \\
        --corData ${counts} \\
        --corMethod ${method} \\
        --whatToPlot heatmap \\
        --plotNumbers \\
        --plotFile ${prefix}.correlation_heatmap.png \\
        --outFileCorMatrix ${prefix}.correlation_matrix.tsv \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.correlation_heatmap.png ${prefix}.correlation_matrix.tsv
    """
}
