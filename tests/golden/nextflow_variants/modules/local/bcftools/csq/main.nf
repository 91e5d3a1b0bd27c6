process BCFTOOLS_CSQ {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.annotated.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.annotated.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('bcftools_csq'), eval('bcftools --version | head -n 1'), emit: versions_bcftools_csq, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def phase = tp.phase != null ? tp.phase : 'a'
    // The reference is linked (or decompressed) into ref/ so that its .fai is written there.
    """
    mkdir -p ref
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    bcftools csq \\
        -f ref/genome.fa \\
        -g ${annotation} \\
        -p '${phase}' \\
        ${args} \\
        -Oz \\
        -o ${prefix}.annotated.vcf.gz \\
        ${vcf}
    bcftools index --tbi -o ${prefix}.annotated.vcf.gz.tbi ${prefix}.annotated.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.annotated.vcf.gz
    touch ${prefix}.annotated.vcf.gz.tbi
    """
}
