process MOSDEPTH {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/mosdepth:0.3.3--hdfd78af_1' :
        'biocontainers/mosdepth:0.3.3--hdfd78af_1' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.mosdepth.summary.txt"), emit: stats
    tuple val(meta), path("${prefix}.mosdepth.global.dist.txt"), emit: global_dist
    tuple val(meta), path("${prefix}.regions.bed.gz"), emit: regions
    tuple val("${task.process}"), val('mosdepth'), eval('{ mosdepth --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_mosdepth, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def window = task.ext.tool_params?.window ?: 500
    // mosdepth needs <bam>.bai beside the BAM (samtools is a dependency of the bioconda package)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    [ -e ${bam}.bai ] || samtools index ${bam}
    mosdepth \\
        -n \\
        -x \\
        -t ${task.cpus} \\
        --by ${window} \\
        ${args} \\
        ${prefix} \\
        ${bam}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.mosdepth.summary.txt ${prefix}.mosdepth.global.dist.txt
    echo "" | gzip > ${prefix}.regions.bed.gz
    """
}
