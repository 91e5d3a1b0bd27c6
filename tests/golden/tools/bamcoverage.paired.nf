process BAMCOVERAGE {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.bw"), emit: track
    tuple val("${task.process}"), val('deeptools'), eval('{ bamCoverage --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def bin_size = tp.bin_size != null ? tp.bin_size : 10
    def normalize_using = tp.normalize_using != null ? tp.normalize_using : 'CPM'
    // bamCoverage needs <bam>.bai beside the BAM and only the BAM comes in: index it here
    // (the bioconda deepTools image has no samtools CLI: pysam, a deepTools dependency, indexes then)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    if [ ! -e ${bam}.bai ]; then
        if command -v samtools > /dev/null; then
            samtools index ${bam}
        else
            python3 -c 'import sys, pysam; pysam.index(sys.argv[1])' ${bam}
        fi
    fi
    bamCoverage \\
        --bam ${bam} \\
        --outFileName ${prefix}.bw \\
        --outFileFormat bigwig \\
        --binSize ${bin_size} \\
        --normalizeUsing '${normalize_using}' \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.bw
    """
}
