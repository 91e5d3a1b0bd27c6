process FASTP {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/fastp:0.23.4--h5f740d0_0' :
        'biocontainers/fastp:0.23.4--h5f740d0_0' }"

    input:
    tuple val(meta), path(reads)
    output:
    tuple val(meta), path("${prefix}_trimmed*.fastq.gz"), emit: trimmed
    tuple val(meta), path("${prefix}.fastp.json"), emit: report
    tuple val(meta), path("${prefix}.fastp.html"), emit: html
    tuple val(meta), path("${prefix}.fastp.log"), emit: log
    tuple val("${task.process}"), val('fastp'), eval('{ fastp --version 2>&1 | sed -n \'s/^fastp //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_fastp, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // link the mates under the sample name: the reports (and MultiQC) name the sample after -i (unless
    // staged under it already: mates named <sample>_1/_2.fastq.gz)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    [ -e ${prefix}_1.fastq.gz ] || ln -s "\$(readlink -f ${reads[0]})" ${prefix}_1.fastq.gz
    [ -e ${prefix}_2.fastq.gz ] || ln -s "\$(readlink -f ${reads[1]})" ${prefix}_2.fastq.gz
    fastp \\
        --thread ${task.cpus} \\
        --detect_adapter_for_pe \\
        -i ${prefix}_1.fastq.gz \\
        -I ${prefix}_2.fastq.gz \\
        -o ${prefix}_trimmed_1.fastq.gz \\
        -O ${prefix}_trimmed_2.fastq.gz \\
        --json ${prefix}.fastp.json \\
        --html ${prefix}.fastp.html \\
        ${args} \\
        2> >(tee ${prefix}.fastp.log >&2)
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}_trimmed_1.fastq.gz
    echo "" | gzip > ${prefix}_trimmed_2.fastq.gz
    touch ${prefix}.fastp.json ${prefix}.fastp.html ${prefix}.fastp.log
    """
}
