process FREEBAYESSOMATIC {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/freebayes:1.3.6--hb089aa1_0' :
        'biocontainers/freebayes:1.3.6--hb089aa1_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(genome)

    output:
    tuple val(meta), path("${prefix}.somatic.vcf"), emit: vcf
    tuple val("${task.process}"), val('freebayes'), eval('{ freebayes --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_freebayes, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten().join(' ')
    def tp = task.ext.tool_params ?: [:]
    // the matched normal (a sample name = its read-group SM); the filter refuses to run without one
    def normal_sample = tp.normal_sample ?: ''
    def min_alt = tp.min_alt ?: 3
    def min_vaf = tp.min_vaf ?: 0.05
    def max_normal_alt = tp.max_normal_alt ?: 0
    def min_normal_depth = tp.min_normal_depth ?: 5
    // FreeBayes needs <bam>.bai beside each BAM and only the BAMs come in: index them here
    // (samtools is a dependency of the bioconda freebayes package). The reference is linked
    // (or decompressed) into ref/ so that its .fai is written there.
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for bam in ${bam_files}; do
        [ -e "\$bam.bai" ] || samtools index "\$bam"
    done
    mkdir -p ref
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    freebayes \\
        -f ref/genome.fa \\
        --pooled-continuous \\
        --min-alternate-fraction ${min_vaf} \\
        ${args} \\
        ${bam_files} \\
        > joint.vcf
    freebayes_somatic_filter.awk \\
        normal=${normal_sample} \\
        min_alt=${min_alt} \\
        min_vaf=${min_vaf} \\
        max_normal_alt=${max_normal_alt} \\
        min_normal_depth=${min_normal_depth} \\
        joint.vcf \\
        > ${prefix}.somatic.vcf
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.somatic.vcf
    """
}
