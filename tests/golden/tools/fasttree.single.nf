process FASTTREE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/fasttree:2.1.10--h516909a_4' :
        'biocontainers/fasttree:2.1.10--h516909a_4' }"

    input:
    tuple val(meta), path(alignment)

    output:
    tuple val(meta), path("${prefix}.tree.nwk"), emit: tree
    tuple val("${task.process}"), val('fasttree'), eval('{ fasttree -expert 2>&1 | grep -oE \'[0-9]+[.][0-9]+[.][0-9]+\' | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_fasttree, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def alphabet = tp.alphabet != null ? tp.alphabet : '-nt'
    def model = tp.model != null ? tp.model : '-gtr'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    fasttree ${alphabet} ${model} ${args} ${alignment} > ${prefix}.tree.nwk
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.tree.nwk
    """
}
