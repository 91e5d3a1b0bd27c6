process BISMARK_METHYLATIONEXTRACTOR {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bismark:0.24.2--hdfd78af_0' :
        'biocontainers/bismark:0.24.2--hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.bismark.cov.gz"), emit: calls
    tuple val(meta), path("${prefix}.M-bias.txt"), emit: mbias
    tuple val(meta), path("${prefix}_splitting_report.txt"), emit: report
    tuple val("${task.process}"), val('bismark'), eval('{ bismark_methylation_extractor --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bismark, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // the extractor names its outputs after the BAM: it reads a link named ${prefix}.bam
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p renamed
    ln -s "\$(readlink -f ${bam})" renamed/${prefix}.bam
    bismark_methylation_extractor \\
        -s \\
        --bedGraph \\
        --gzip \\
        --parallel ${task.cpus} \\
        ${args} \\
        -o extracted \\
        renamed/${prefix}.bam
    mv extracted/${prefix}.bismark.cov.gz extracted/${prefix}.M-bias.txt extracted/${prefix}_splitting_report.txt .
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.bismark.cov.gz
    touch ${prefix}.M-bias.txt ${prefix}_splitting_report.txt
    """
}
