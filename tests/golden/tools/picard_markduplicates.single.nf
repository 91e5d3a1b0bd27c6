process PICARD_MARKDUPLICATES {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/picard:3.1.1--hdfd78af_0' :
        'biocontainers/picard:3.1.1--hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.markdup.bam"), emit: bam
    tuple val(meta), path("${prefix}.markdup.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.markdup_metrics.txt"), emit: metrics
    tuple val("${task.process}"), val('picard'), eval('{ $(command -v picard || command -v PicardCommandLine) MarkDuplicates --version 2>&1 | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_picard, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // Java heap: 80% of the task memory; the launcher is `picard` (bioconda) or `PicardCommandLine` (Debian)
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p picard_tmp
    picard=\$(command -v picard || command -v PicardCommandLine)
    "\$picard" \\
        -Xmx${avail_mem}m \\
        MarkDuplicates \\
        --INPUT ${bam} \\
        --OUTPUT ${prefix}.markdup.bam \\
        --METRICS_FILE ${prefix}.markdup_metrics.txt \\
        --ASSUME_SORT_ORDER coordinate \\
        --CREATE_INDEX true \\
        --TMP_DIR picard_tmp \\
        ${args}
    mv ${prefix}.markdup.bai ${prefix}.markdup.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.markdup.bam ${prefix}.markdup.bam.bai ${prefix}.markdup_metrics.txt
    """
}
