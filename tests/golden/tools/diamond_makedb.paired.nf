process DIAMOND_MAKEDB {
    tag 'protein_database_build'
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/diamond:2.1.16--h13889ed_0' :
        'biocontainers/diamond:2.1.16--h13889ed_0' }"

    input:
    path(proteins)

    output:
    path("proteins.dmnd"), emit: database
    tuple val("${task.process}"), val('diamond'), eval('{ diamond --version 2>&1 | sed \'s/diamond version //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_diamond, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'protein_database_build'
    // makedb appends .dmnd to the name it is given
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    diamond makedb \\
        --threads ${task.cpus} \\
        --in ${proteins} \\
        ${args} \\
        -d proteins
    """

    stub:
    prefix = task.ext.prefix ?: 'protein_database_build'
    """
    touch proteins.dmnd
    """
}
