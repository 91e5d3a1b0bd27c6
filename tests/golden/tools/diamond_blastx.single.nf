process DIAMOND_BLASTX {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/diamond:2.1.16--h13889ed_0' :
        'biocontainers/diamond:2.1.16--h13889ed_0' }"

    input:
    tuple val(meta), path(contigs)
    path(database)

    output:
    tuple val(meta), path("${prefix}.diamond_blastx.tsv"), emit: hits
    tuple val("${task.process}"), val('diamond'), eval('{ diamond --version 2>&1 | sed \'s/diamond version //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_diamond, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def evalue = tp.evalue != null ? tp.evalue : 0.001
    def max_target_seqs = tp.max_target_seqs != null ? tp.max_target_seqs : 25
    def sensitivity = tp.sensitivity ? "--${tp.sensitivity}" : ''
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    diamond blastx \\
        --threads ${task.cpus} \\
        -d ${database} \\
        -q ${contigs} \\
        --outfmt 6 \\
        --evalue ${evalue} \\
        --max-target-seqs ${max_target_seqs} \\
        ${sensitivity} \\
        ${args} \\
        -o ${prefix}.diamond_blastx.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.diamond_blastx.tsv
    """
}
