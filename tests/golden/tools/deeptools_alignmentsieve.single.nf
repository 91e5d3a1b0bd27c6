process DEEPTOOLS_ALIGNMENTSIEVE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.shifted.bam"), emit: bam
    tuple val(meta), path("${prefix}.shifted.bam.bai"), emit: bai
    tuple val("${task.process}"), val('deeptools'), eval('{ alignmentSieve --version 2>&1 | sed \'s/^alignmentSieve //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // alignmentSieve needs <bam>.bai and writes an unsorted BAM: index the input, sort and index the
    // output (the bioconda deepTools image has no samtools CLI: pysam, a deepTools dependency, then)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    if command -v samtools > /dev/null; then
        [ -e ${bam}.bai ] || samtools index ${bam}
    else
        [ -e ${bam}.bai ] || python3 -c 'import sys, pysam; pysam.index(sys.argv[1])' ${bam}
    fi
    alignmentSieve \\
        --bam ${bam} \\
        --outFile ${prefix}.unsorted.bam \\
        --ATACshift \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    if command -v samtools > /dev/null; then
        samtools sort -@ ${task.cpus} -o ${prefix}.shifted.bam ${prefix}.unsorted.bam
        samtools index ${prefix}.shifted.bam ${prefix}.shifted.bam.bai
    else
        python3 -c 'import sys, pysam; pysam.sort("-o", sys.argv[1], sys.argv[2]); pysam.index(sys.argv[1], sys.argv[3])' ${prefix}.shifted.bam ${prefix}.unsorted.bam ${prefix}.shifted.bam.bai
    fi
    rm ${prefix}.unsorted.bam
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.shifted.bam ${prefix}.shifted.bam.bai
    """
}
