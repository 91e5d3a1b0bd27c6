process BOWTIE_BUILD {
    tag 'mirna_indexing'
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bowtie:1.3.0--py38hed8969a_1' :
        'biocontainers/bowtie:1.3.0--py38hed8969a_1' }"

    input:
    path(mature)

    output:
    path("mirna_bowtie_index"), emit: index
    tuple val("${task.process}"), val('bowtie'), eval('{ bowtie --version 2>&1 | sed -n \'1s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bowtie, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'mirna_indexing'
    def species = task.ext.tool_params?.species ?: ''
    if (!(species ==~ /[A-Za-z0-9]*/)) {
        error "params species of ${task.process}: '${species}' is not a miRBase species prefix (letters, e.g. hsa)"
    }
    def unpack = mature.name.endsWith('.gz') ? 'gzip -dc' : 'cat'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p mirna_bowtie_index
    ${unpack} ${mature} | mirna_tables.awk mode=mature species='${species}' - > mirna_bowtie_index/mature.fa
    bowtie-build \\
        --threads ${task.cpus} \\
        ${args} \\
        mirna_bowtie_index/mature.fa \\
        mirna_bowtie_index/mature
    """

    stub:
    prefix = task.ext.prefix ?: 'mirna_indexing'
    """
    mkdir -p mirna_bowtie_index
    touch mirna_bowtie_index/mature.fa mirna_bowtie_index/mature.{1,2,3,4}.ebwt mirna_bowtie_index/mature.rev.{1,2}.ebwt
    """
}
