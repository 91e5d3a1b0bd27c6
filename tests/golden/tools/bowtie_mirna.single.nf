process BOWTIE_ALIGN {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/mulled-v2-ffbf83a6b0ab6ec567a336cf349b80637135bca3:c84c7c55c45af231883d9ff4fe706ac44c479c36-0' :
        'biocontainers/mulled-v2-ffbf83a6b0ab6ec567a336cf349b80637135bca3:c84c7c55c45af231883d9ff4fe706ac44c479c36-0' }"

    input:
    tuple val(meta), path(reads)
    path(index)

    output:
    tuple val(meta), path("${prefix}.bam"), emit: bam
    tuple val(meta), path("${prefix}.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.bowtie.log"), emit: log
    tuple val("${task.process}"), val('bowtie'), eval('{ bowtie --version 2>&1 | sed -n \'1s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bowtie, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()  // paired-end: mate 1 holds the whole insert (nf-core/smrnaseq maps R1 only)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    bowtie \\
        --threads ${task.cpus} \\
        --sam \\
        ${args} \\
        -x ${index}/mature \\
        -q ${fq[0]} \\
        2> >(tee ${prefix}.bowtie.log >&2) \\
        | samtools addreplacerg -r ID:${meta.id} -r SM:${meta.id} -u -o - - \\
        | samtools sort -@ ${task.cpus} -o ${prefix}.bam -
    samtools index ${prefix}.bam ${prefix}.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.bam ${prefix}.bam.bai ${prefix}.bowtie.log
    """
}
