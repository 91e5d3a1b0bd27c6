process MAFFT_ALIGN {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/mafft:7.525--h031d066_1' :
        'biocontainers/mafft:7.525--h031d066_1' }"

    input:
    tuple val(meta), path(sequences)

    output:
    tuple val(meta), path("${prefix}.alignment.afa"), emit: alignment
    tuple val("${task.process}"), val('mafft'), eval('{ mafft --version 2>&1 | sed \'s/^v//; s/ .*//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_mafft, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def strategy = tp.strategy ?: '--auto'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${sequences} in
        *.gz) gzip -cd ${sequences} > sequences.input.fa ;;
        *) ln -s "\$(readlink -f ${sequences})" sequences.input.fa ;;
    esac
    mafft --thread ${task.cpus} ${strategy} ${args} sequences.input.fa > ${prefix}.alignment.afa
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.alignment.afa
    """
}
