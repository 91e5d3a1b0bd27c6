process BCFTOOLS_CONCAT {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), val(sample_ids), path(vcfs, stageAs: 'vcfs/*')

    output:
    tuple val(meta), path("${prefix}.concatenated.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.concatenated.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def remove_duplicates = tp.remove_duplicates ? '--remove-duplicates' : ''
    def vcf_files = [vcfs].flatten().sort { vcf -> vcf.name }
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p parts
    n=0
    for vcf in ${vcf_files.join(' ')}; do
        n=\$((n + 1))
        bcftools view -Oz -o parts/part\$n.vcf.gz "\$vcf"
        bcftools index --tbi parts/part\$n.vcf.gz
    done
    bcftools concat \\
        --allow-overlaps \\
        ${remove_duplicates} \\
        --threads ${task.cpus} \\
        ${args} \\
        -Oz \\
        -o ${prefix}.concatenated.vcf.gz \\
        \$(seq -f 'parts/part%g.vcf.gz' 1 \$n)
    bcftools index --tbi -f -o ${prefix}.concatenated.vcf.gz.tbi ${prefix}.concatenated.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.concatenated.vcf.gz
    touch ${prefix}.concatenated.vcf.gz.tbi
    """
}
