process SAMTOOLS_MITOFILTER {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.16.1--h6899075_1' :
        'biocontainers/samtools:1.16.1--h6899075_1' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.nomito.bam"), emit: bam
    tuple val(meta), path("${prefix}.nomito.bam.bai"), emit: bai
    tuple val("${task.process}"), val('samtools'), eval('{ samtools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_samtools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def mito_contigs = tp.mito_contigs != null ? tp.mito_contigs.toString() : 'chrM,MT,M,chrMT,Mt,Mito'
    if (!(mito_contigs ==~ /[A-Za-z0-9_.:,-]*/)) {
        error "params mito_contigs of ${task.process}: '${mito_contigs}' is not a comma-separated list of contig names (letters, digits, _ . : -)"
    }
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mito_filter.sh \\
        --contigs '${mito_contigs}' \\
        --threads ${task.cpus} \\
        ${bam} \\
        ${prefix}.nomito.bam \\
        ${prefix}.nomito.bam.bai \\
        -- ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.nomito.bam ${prefix}.nomito.bam.bai
    """
}
