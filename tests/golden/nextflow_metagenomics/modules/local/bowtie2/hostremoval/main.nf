process BOWTIE2_HOSTREMOVAL {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bowtie2:2.4.4--py39hbb4e92a_0' :
        'biocontainers/bowtie2:2.4.4--py39hbb4e92a_0' }"

    input:
    tuple val(meta), path(reads)
    path(host_index)

    output:
    tuple val(meta), path("${prefix}_host_depleted_*.fastq.gz"), emit: depleted
    tuple val(meta), path("${prefix}.bowtie2.log"), emit: log
    tuple val("${task.process}"), val('bowtie2'), eval('{ bowtie2 --version 2>&1 | sed -n \'1s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bowtie2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    bowtie2 \\
        --threads ${task.cpus} \\
        -x ${host_index}/genome \\
        -1 ${reads[0]} \\
        -2 ${reads[1]} \\
        ${args} \\
        --un-conc-gz ${prefix}_host_depleted_%.fastq.gz \\
        -S /dev/null \\
        2> >(tee ${prefix}.bowtie2.log >&2)
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}_host_depleted_1.fastq.gz
    echo "" | gzip > ${prefix}_host_depleted_2.fastq.gz
    touch ${prefix}.bowtie2.log
    """
}
