process STAR_ALIGN {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/mulled-v2-1fa26d1ce03c295fe2fdcf85831a92fbcbd7e8c2:1df389393721fc66f3fd8778ad938ac711951107-0' :
        'biocontainers/mulled-v2-1fa26d1ce03c295fe2fdcf85831a92fbcbd7e8c2:1df389393721fc66f3fd8778ad938ac711951107-0' }"

    input:
    tuple val(meta), path(reads)
    path(index)

    output:
    tuple val(meta), path("${prefix}.bam"), emit: bam
    tuple val(meta), path("${prefix}.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.Log.final.out"), emit: log
    tuple val("${task.process}"), val('star'), eval('{ STAR --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_star, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()
    // read group ID and SM are the sample name; Log.final.out (uniquely mapped reads %) is emitted as `log`
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    STAR \\
        --runThreadN ${task.cpus} \\
        --genomeDir ${index} \\
        --readFilesIn ${fq[0]} ${fq[1]} \\
        --readFilesCommand gunzip -c \\
        --outSAMtype BAM SortedByCoordinate \\
        --outSAMattrRGline ID:${meta.id} SM:${meta.id} \\
        --outFileNamePrefix ${prefix}. \\
        --outTmpDir "\$PWD/star_tmp" \\
        ${args}
    mv ${prefix}.Aligned.sortedByCoord.out.bam ${prefix}.bam
    samtools index ${prefix}.bam ${prefix}.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.bam ${prefix}.bam.bai ${prefix}.Log.final.out
    """
}
