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
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_qual = tp.min_qual != null ? tp.min_qual : 20
    def min_depth = tp.min_depth != null ? tp.min_depth : 10
    // tests only what the VCF has: QUAL (min_qual > 0), DP when the header declares it (INFO/DP, else
    // FORMAT/DP), each left out at a threshold of 0; failing records are removed, not soft-filtered
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    hdr=\$(bcftools view -h ${vcf})
    expr=()
    if [ ${min_qual} != 0 ]; then expr+=('QUAL>=${min_qual}'); fi
    if [ ${min_depth} != 0 ]; then
        if grep -q '^##INFO=<ID=DP,' <<<"\$hdr"; then expr+=('INFO/DP>=${min_depth}')
        elif grep -q '^##FORMAT=<ID=DP,' <<<"\$hdr"; then expr+=('FMT/DP>=${min_depth}')
        else echo 'bcftools_filter: no DP in the header: the depth filter is left out' >&2
        fi
    fi
    joined=\$(printf '%s && ' "\${expr[@]}")
    joined="\${joined% && }"
    if [ -n "\$joined" ]; then
        bcftools filter -i "\$joined" ${args} -Oz -o ${prefix}.filtered.vcf.gz ${vcf}
    else
        bcftools view ${args} -Oz -o ${prefix}.filtered.vcf.gz ${vcf}
    fi
    bcftools index --tbi -o ${prefix}.filtered.vcf.gz.tbi ${prefix}.filtered.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.filtered.vcf.gz
    touch ${prefix}.filtered.vcf.gz.tbi
    """
}
