process SNPEFF_SNPEFF {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/snpeff:5.1--hdfd78af_2' :
        'biocontainers/snpeff:5.1--hdfd78af_2' }"

    input:
    tuple val(meta), path(vcf)
    path(db)

    output:
    tuple val(meta), path("${prefix}.annotated.vcf"), emit: vcf
    tuple val(meta), path("${prefix}.snpeff_summary.html"), emit: html
    tuple val(meta), path("${prefix}.snpeff_summary.csv"), emit: csv
    tuple val("${task.process}"), val('snpeff'), eval('{ snpEff -version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_snpeff, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 6400
    // The genome's SnpEff database (`db`: built once by the snpeff_build process, read by every task); the
    // genome's name is the one its snpEff.config names. Only the lines from ##fileformat on are kept:
    // Debian's snpEff wrapper may echo its arguments.
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    genome_name=\$(sed -n 's/\\.genome : .*\$//p' ${db}/snpEff.config | sed -n 1p)
    snpEff \\
        -Xmx${avail_mem}m \\
        ann \\
        -nodownload \\
        -c ${db}/snpEff.config \\
        -stats ${prefix}.snpeff_summary.html \\
        -csvStats ${prefix}.snpeff_summary.csv \\
        ${args} \\
        "\$genome_name" \\
        ${vcf} \\
        | awk 'p += /^##fileformat=/' \\
        > ${prefix}.annotated.vcf
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.annotated.vcf ${prefix}.snpeff_summary.html ${prefix}.snpeff_summary.csv
    """
}
