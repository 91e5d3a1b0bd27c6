process KALLISTO_INDEX {
    tag 'transcriptome_indexing'
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/kallisto:0.48.0--h15996b6_2' :
        'biocontainers/kallisto:0.48.0--h15996b6_2' }"

    input:
    path(transcriptome)

    output:
    path("transcripts.idx"), emit: index
    tuple val("${task.process}"), val('kallisto'), eval('{ kallisto version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_kallisto, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'transcriptome_indexing'
    def tp = task.ext.tool_params ?: [:]
    def kmer = tp.kmer != null ? tp.kmer : 31
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    kallisto index \\
        -k ${kmer} \\
        ${args} \\
        -i transcripts.idx \\
        ${transcriptome}
    """

    stub:
    prefix = task.ext.prefix ?: 'transcriptome_indexing'
    """
    touch transcripts.idx
    """
}
