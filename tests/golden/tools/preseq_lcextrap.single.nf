process PRESEQ_LCEXTRAP {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/preseq:3.2.0--hdcf5f25_6' :
        'biocontainers/preseq:3.2.0--hdcf5f25_6' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.lc_extrap.txt"), emit: curve
    tuple val("${task.process}"), val('preseq'), eval('{ preseq 2>&1 | sed -n \'s/^Version: *//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_preseq, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    preseq \\
        lc_extrap \\
        -v \\
        -B \\
        ${args} \\
        -o ${prefix}.lc_extrap.txt \\
        ${bam}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.lc_extrap.txt
    """
}
