process TABIX_BGZIPTABIX {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/tabix:1.11--hdfd78af_0' :
        'biocontainers/tabix:1.11--hdfd78af_0' }"

    input:
    tuple val(meta), path(vcf)

    output:
    tuple val(meta), path("${vcf.baseName}.vcf.gz"), emit: vcf
    tuple val(meta), path("${vcf.baseName}.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('tabix'), eval('{ tabix --version | sed -n \'1s/^tabix (htslib) //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_tabix, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    bgzip \\
        --threads ${task.cpus} \\
        ${args} \\
        -c ${vcf} \\
        > ${vcf.baseName}.vcf.gz
    tabix -p vcf ${vcf.baseName}.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo '' | gzip > ${vcf.baseName}.vcf.gz
    touch ${vcf.baseName}.vcf.gz.tbi
    """
}
