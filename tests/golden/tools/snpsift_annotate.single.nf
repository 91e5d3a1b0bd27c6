process SNPSIFT_ANNOTATE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/snpsift:5.1d--hdfd78af_0' :
        'biocontainers/snpsift:5.1d--hdfd78af_0' }"

    input:
    tuple val(meta), path(vcf)
    path(database)

    output:
    tuple val(meta), path("${prefix}.snpsift_annotated.vcf"), emit: vcf
    tuple val("${task.process}"), val('snpsift'), eval('{ $(command -v SnpSift || command -v snpSift) 2>&1 | grep -m 1 \'SnpSift version\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_snpsift, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def fields = tp.info_fields != null ? tp.info_fields : 'CLNSIG,CLNDN,CLNREVSTAT'
    def info = fields ? "-info '${fields}'" : ''
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    snpsift=\$(command -v SnpSift || command -v snpSift)
    \$snpsift annotate \\
        -id \\
        ${info} \\
        ${args} \\
        ${database} \\
        ${vcf} \\
        > ${prefix}.snpsift_annotated.vcf
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.snpsift_annotated.vcf
    """
}
