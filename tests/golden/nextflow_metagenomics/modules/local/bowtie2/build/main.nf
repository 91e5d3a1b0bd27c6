process BOWTIE2_BUILD {
    tag 'genome_indexing'
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bowtie2:2.4.4--py39hbb4e92a_0' :
        'biocontainers/bowtie2:2.4.4--py39hbb4e92a_0' }"

    input:
    path(genome)

    output:
    path("bowtie2_index"), emit: index
    tuple val("${task.process}"), val('bowtie2'), eval('{ bowtie2-build --version 2>&1 | sed -n \'1s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bowtie2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'genome_indexing'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p bowtie2_index
    bowtie2-build \\
        --threads ${task.cpus} \\
        ${args} \\
        ${genome} \\
        bowtie2_index/genome
    """

    stub:
    prefix = task.ext.prefix ?: 'genome_indexing'
    """
    mkdir -p bowtie2_index
    touch bowtie2_index/genome.{1,2,3,4}.bt2 bowtie2_index/genome.rev.{1,2}.bt2
    """
}
