process KRAKEN2_KRAKEN2 {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/kraken2:2.1.3--pl5321hdcf5f25_0' :
        'biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0' }"

    input:
    tuple val(meta), path(reads)
    path(database)

    output:
    tuple val(meta), path("${prefix}.kreport"), emit: classification
    tuple val(meta), path("${prefix}.kraken2"), emit: assignments
    tuple val("${task.process}"), val('kraken2'), eval('{ kraken2 --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_kraken2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tool_params = task.ext.tool_params ?: [:]
    def confidence = tool_params.confidence ?: 0.0
    def min_base_quality = tool_params.minimum_base_quality ?: 0
    def memory_mapping = tool_params.memory_mapping?.toString() in ['true', 'True', 'yes', '1'] ? '--memory-mapping' : ''
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    kraken2 \\
        --db ${database} \\
        --threads ${task.cpus} \\
        ${memory_mapping} \\
        --confidence ${confidence} \\
        --minimum-base-quality ${min_base_quality} \\
        --report ${prefix}.kreport \\
        --output ${prefix}.kraken2 \\
        ${args} \\
        --paired ${reads[0]} ${reads[1]}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.kreport ${prefix}.kraken2
    """
}
