process DEEPTOOLS_PLOTPROFILE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(matrix)

    output:
    tuple val(meta), path("${prefix}.${kind}_profile.png"), emit: plot
    tuple val(meta), path("${prefix}.${kind}_profile.tab"), emit: data
    tuple val("${task.process}"), val('deeptools'), eval('{ plotProfile --version 2>&1 | sed \'s/^plotProfile //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    kind = matrix.name.replace('.mat.gz', '').tokenize('.').last()  // tss, genebody: what the matrix is about
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    plotProfile \\
        --matrixFile ${matrix} \\
        --outFileName ${prefix}.${kind}_profile.png \\
        --outFileNameData ${prefix}.${kind}_profile.tab \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    kind = matrix.name.replace('.mat.gz', '').tokenize('.').last()  // tss, genebody: what the matrix is about
    """
    touch ${prefix}.${kind}_profile.png ${prefix}.${kind}_profile.tab
    """
}
