process ARRIBA_ARRIBA {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/arriba_wget:a3e48cf793a0b654"

    input:
    tuple val(meta), path(chimeric)
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.arriba.fusions.tsv"), emit: fusions
    tuple val(meta), path("${prefix}.arriba.fusions.discarded.tsv"), emit: discarded
    tuple val("${task.process}"), val('arriba'), eval('{ arriba -h 2>&1 | sed -n \'s/^Version: *//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_arriba, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def filters = (" ${args} ").contains(' -b ') ? '' : '-f blacklist'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    arriba \\
        -x ${chimeric}/Aligned.out.bam \\
        -a ${genome} \\
        -g ${annotation} \\
        -o ${prefix}.arriba.fusions.tsv \\
        -O ${prefix}.arriba.fusions.discarded.tsv \\
        ${filters} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.arriba.fusions.tsv ${prefix}.arriba.fusions.discarded.tsv
    """
}
