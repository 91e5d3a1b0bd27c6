process UMITOOLS_DEDUP {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/umi_tools_future_matplotlib_numpy_pruned:1ee668bafc8c9f81"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.umi_dedup.bam"), emit: bam
    tuple val(meta), path("${prefix}.umi_dedup.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.umi_dedup.log"), emit: log
    tuple val("${task.process}"), val('umi_tools'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'umi_tools\'))" 2>/dev/null || umi_tools --version | sed -n \'s/.*version: *//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_umi_tools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def method = tp.method ?: 'directional'
    // umi_tools dedup reads the BAM's index: made here, beside a link to the input
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    ln -s "\$(readlink -f ${bam})" input.bam
    samtools index input.bam
    umi_tools \\
        dedup \\
        -I input.bam \\
        -S ${prefix}.umi_dedup.bam \\
        --method=${method} \\
        --random-seed=100 \\
        --output-stats=${prefix} \\
        ${args} \\
        -L ${prefix}.umi_dedup.log
    samtools index ${prefix}.umi_dedup.bam ${prefix}.umi_dedup.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.umi_dedup.bam ${prefix}.umi_dedup.bam.bai ${prefix}.umi_dedup.log
    """
}
