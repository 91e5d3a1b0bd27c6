process BISMARK_DEDUPLICATE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bismark:0.24.2--hdfd78af_0' :
        'biocontainers/bismark:0.24.2--hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.deduplicated.bam"), emit: bam
    tuple val(meta), path("${prefix}.deduplication_report.txt"), emit: report
    tuple val("${task.process}"), val('bismark'), eval('{ deduplicate_bismark --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bismark, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // --outfile is the basename: ${prefix}.deduplicated.bam and ${prefix}.deduplication_report.txt
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    deduplicate_bismark \\
        --paired \\
        --bam \\
        ${args} \\
        --outfile ${prefix} \\
        ${bam}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.deduplicated.bam ${prefix}.deduplication_report.txt
    """
}
