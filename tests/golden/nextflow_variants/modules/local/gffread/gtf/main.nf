process GFFREAD_GTF {
    tag 'annotation_format_conversion'
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gffread:0.12.7--hdcf5f25_4' :
        'biocontainers/gffread:0.12.7--hdcf5f25_4' }"

    input:
    path(annotation)

    output:
    path("${prefix}.gtf"), emit: annotation
    tuple val("${task.process}"), val('gffread_gtf'), eval('gffread --version'), emit: versions_gffread_gtf, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    gffread ${annotation} -T -F ${args} -o ${prefix}.gtf
    """

    stub:
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    touch ${prefix}.gtf
    """
}
