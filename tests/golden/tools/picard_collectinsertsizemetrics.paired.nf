process PICARD_COLLECTINSERTSIZEMETRICS {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/picard:3.1.1--hdfd78af_0' :
        'biocontainers/picard:3.1.1--hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.insert_size_metrics.txt"), emit: report
    tuple val(meta), path("${prefix}.insert_size_histogram.pdf"), emit: histogram
    tuple val("${task.process}"), val('picard'), eval('{ $(command -v picard || command -v PicardCommandLine) CollectInsertSizeMetrics --version 2>&1 | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_picard, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def minimum_pct = task.ext.tool_params?.minimum_pct ?: 0.05
    // Java heap: 80% of the task memory; the launcher is `picard` (bioconda) or `PicardCommandLine` (Debian)
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    picard=\$(command -v picard || command -v PicardCommandLine)
    "\$picard" \\
        -Xmx${avail_mem}m \\
        CollectInsertSizeMetrics \\
        --INPUT ${bam} \\
        --OUTPUT ${prefix}.insert_size_metrics.txt \\
        --Histogram_FILE ${prefix}.insert_size_histogram.pdf \\
        --MINIMUM_PCT ${minimum_pct} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.insert_size_metrics.txt ${prefix}.insert_size_histogram.pdf
    """
}
