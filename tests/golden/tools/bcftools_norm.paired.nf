process BCFTOOLS_NORM {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bcftools:1.16--hfe4b78e_1' :
        'biocontainers/bcftools:1.16--hfe4b78e_1' }"

    input:
    tuple val(meta), path(vcf)
    path(genome)

    output:
    tuple val(meta), path("${prefix}.normalized.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.normalized.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('bcftools'), eval('{ bcftools --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bcftools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def multiallelics = tp.multiallelics != null ? tp.multiallelics : '-any'
    def split = multiallelics ? "-m ${multiallelics}" : ''
    def dedup = tp.remove_duplicates ? '-d exact' : ''
    // The reference is linked (or decompressed) into ref/ so that its .fai is written there.
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    bcftools norm \\
        -f ref/genome.fa \\
        --check-ref w \\
        ${split} \\
        ${dedup} \\
        ${args} \\
        -Oz \\
        -o ${prefix}.normalized.vcf.gz \\
        ${vcf}
    bcftools index --tbi -o ${prefix}.normalized.vcf.gz.tbi ${prefix}.normalized.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.normalized.vcf.gz
    touch ${prefix}.normalized.vcf.gz.tbi
    """
}
