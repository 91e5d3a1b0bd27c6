process BCFTOOLS_FILTER {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)

    output:
    tuple val(meta), path("${prefix}.filtered.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.filtered.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('bcftools_filter'), eval('bcftools --version | head -n 1'), emit: versions_bcftools_filter, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_qual = tp.min_qual != null ? tp.min_qual : 20
    def min_depth = tp.min_depth != null ? tp.min_depth : 10
    // keeps QUAL >= min_qual and INFO/DP >= min_depth; failing records are removed, not soft-filtered
    """
    bcftools filter \\
        -i 'QUAL>=${min_qual} && INFO/DP>=${min_depth}' \\
        ${args} \\
        -Oz \\
        -o ${prefix}.filtered.vcf.gz \\
        ${vcf}
    bcftools index --tbi -o ${prefix}.filtered.vcf.gz.tbi ${prefix}.filtered.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.filtered.vcf.gz
    touch ${prefix}.filtered.vcf.gz.tbi
    """
}
