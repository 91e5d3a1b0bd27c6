process BCFTOOLS_ANNOTATE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)
    path(database)

    output:
    tuple val(meta), path("${prefix}.database_annotated.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.database_annotated.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def columns = task.ext.tool_params?.columns ?: 'ID,INFO/CLNSIG,INFO/CLNDN,INFO/CLNREVSTAT'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p db
    ln -s "\$(readlink -f ${database})" db/database.vcf.gz
    if [ -e ${database}.tbi ]; then
        ln -s "\$(readlink -f ${database}.tbi)" db/database.vcf.gz.tbi
    else
        tabix -p vcf db/database.vcf.gz
    fi
    # bcftools annotate -a reads a bgzipped, indexed target only: recompress the calls here
    bcftools view -Oz -o db/calls.vcf.gz ${vcf}
    bcftools index --tbi db/calls.vcf.gz
    bcftools annotate \\
        -a db/database.vcf.gz \\
        -c '${columns}' \\
        ${args} \\
        -Oz \\
        -o ${prefix}.database_annotated.vcf.gz \\
        db/calls.vcf.gz
    bcftools index --tbi -o ${prefix}.database_annotated.vcf.gz.tbi ${prefix}.database_annotated.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.database_annotated.vcf.gz
    touch ${prefix}.database_annotated.vcf.gz.tbi
    """
}
