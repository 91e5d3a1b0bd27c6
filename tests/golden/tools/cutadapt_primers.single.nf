process CUTADAPTPRIMERS {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/cutadapt:4.7--py310h4b81fae_1' :
        'biocontainers/cutadapt:4.7--py310h4b81fae_1' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}_primers_removed*.fastq.gz"), emit: trimmed
    tuple val(meta), path("${prefix}.cutadapt_primers.txt"), emit: report
    tuple val("${task.process}"), val('cutadapt'), eval('{ cutadapt --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_cutadapt, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def primer_fwd = tp.primer_fwd != null ? tp.primer_fwd : 'GTGYCAGCMGCCGCGGTAA'
    def error_rate = tp.error_rate != null ? tp.error_rate : 0.1
    def fq = [reads].flatten()
    // link the reads under the sample name: MultiQC names the sample after the input file
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p renamed
    ln -s "\$(readlink -f ${fq[0]})" renamed/${prefix}.fastq.gz
    cutadapt \\
        --cores ${task.cpus} \\
        -g '${primer_fwd}' \\
        -e ${error_rate} \\
        --discard-untrimmed \\
        ${args} \\
        -o ${prefix}_primers_removed.fastq.gz \\
        renamed/${prefix}.fastq.gz \\
        > ${prefix}.cutadapt_primers.txt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}_primers_removed.fastq.gz
    touch ${prefix}.cutadapt_primers.txt
    """
}
