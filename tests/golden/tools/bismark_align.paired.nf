process BISMARK_ALIGN {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bismark:0.24.2--hdfd78af_0' :
        'biocontainers/bismark:0.24.2--hdfd78af_0' }"

    input:
    tuple val(meta), path(reads)
    path(index)

    output:
    tuple val(meta), path("${prefix}.bismark.bam"), emit: bam
    tuple val(meta), path("${prefix}.bismark_report.txt"), emit: report
    tuple val("${task.process}"), val('bismark'), eval('{ bismark --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bismark, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()
    def bt2_threads = Math.max(1, ((task.cpus as int) + 1).intdiv(2))
    // Bismark names its outputs after --basename; Bowtie2 runs two instances (directional)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    bismark \\
        --genome ${index} \\
        --bam \\
        -p ${bt2_threads} \\
        -o bismark_out \\
        --basename ${prefix} \\
        ${args} \\
        -1 ${fq[0]} \\
        -2 ${fq[1]}
    mv bismark_out/${prefix}_pe.bam ${prefix}.bismark.bam
    mv bismark_out/${prefix}_PE_report.txt ${prefix}.bismark_report.txt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.bismark.bam ${prefix}.bismark_report.txt
    """
}
