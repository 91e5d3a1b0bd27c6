process GATK4_VARIANTFILTRATION {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gatk4:4.5.0.0--py36hdfd78af_0' :
        'biocontainers/gatk4:4.5.0.0--py36hdfd78af_0' }"

    input:
    tuple val(meta), path(vcf)

    output:
    tuple val(meta), path("${prefix}.hard_filtered.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.hard_filtered.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('gatk4'), eval('{ gatk --version | sed -n \'/GATK.*v/s/.*v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gatk4, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def expression = tp.filter_expression ?: 'QD < 2.0 || FS > 60.0 || MQ < 40.0 || SOR > 3.0 || MQRankSum < -12.5 || ReadPosRankSum < -8.0'
    def filter_name = tp.filter_name ?: 'hard_filter'
    // one shell word whatever the params hold ('...' with each ' as '\''): the expression is data
    def expression_word = "'" + expression.toString().replace("'", "'\\''") + "'"
    def filter_name_word = "'" + filter_name.toString().replace("'", "'\\''") + "'"
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p gatk_tmp
    gatk --java-options "-Xmx${avail_mem}m" \\
        VariantFiltration \\
        --variant ${vcf} \\
        --filter-expression ${expression_word} \\
        --filter-name ${filter_name_word} \\
        --output ${prefix}.hard_filtered.vcf.gz \\
        --tmp-dir gatk_tmp \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.hard_filtered.vcf.gz
    touch ${prefix}.hard_filtered.vcf.gz.tbi
    """
}
