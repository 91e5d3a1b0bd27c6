process BCFTOOLS_ISEC {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)
    path(reference_calls)

    output:
    tuple val(meta), path("${prefix}.isec_counts.tsv"), emit: report
    tuple val(meta), path("${prefix}.isec_private.vcf.gz"), emit: private_calls
    tuple val(meta), path("${prefix}.isec_missed.vcf.gz"), emit: missed
    tuple val(meta), path("${prefix}.isec_shared.vcf.gz"), emit: shared
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def collapse = task.ext.tool_params?.collapse ?: 'none'
    // the calls are re-compressed and indexed here; the other set is indexed when no .tbi sits beside it
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p sets
    bcftools view -Oz -o sets/calls.vcf.gz ${vcf}
    bcftools index --tbi sets/calls.vcf.gz
    ln -s "\$(readlink -f ${reference_calls})" sets/other.vcf.gz
    if [ -e ${reference_calls}.tbi ]; then
        ln -s "\$(readlink -f ${reference_calls}.tbi)" sets/other.vcf.gz.tbi
    else
        bcftools index --tbi sets/other.vcf.gz
    fi
    bcftools isec \\
        -c ${collapse} \\
        -p isec \\
        -Oz \\
        ${args} \\
        sets/calls.vcf.gz sets/other.vcf.gz
    cp isec/0000.vcf.gz ${prefix}.isec_private.vcf.gz
    cp isec/0001.vcf.gz ${prefix}.isec_missed.vcf.gz
    cp isec/0002.vcf.gz ${prefix}.isec_shared.vcf.gz
    printf 'set\\trecords\\n' > ${prefix}.isec_counts.tsv
    for part in private missed shared; do
        printf '%s\\t%s\\n' "\$part" "\$(bcftools view -H ${prefix}.isec_\$part.vcf.gz | wc -l)"
    done >> ${prefix}.isec_counts.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'set\\trecords\\n' > ${prefix}.isec_counts.tsv
    for part in private missed shared; do
        echo "" | gzip > ${prefix}.isec_\$part.vcf.gz
    done
    """
}
