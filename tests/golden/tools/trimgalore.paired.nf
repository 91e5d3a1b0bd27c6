process TRIMGALORE {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/trim-galore:0.6.10--hdfd78af_0' :
        'biocontainers/trim-galore:0.6.10--hdfd78af_0' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}_trimmed*.fastq.gz"), emit: trimmed
    tuple val(meta), path("${prefix}.trim_galore_report.txt"), emit: report
    tuple val("${task.process}"), val('trim-galore'), eval('{ trim_galore --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_trim_galore, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def quality = tp.quality != null ? tp.quality : 20
    def min_length = tp.length != null ? tp.length : 20
    def fq = [reads].flatten()
    // link the reads under the sample name: the trimming reports (and MultiQC) name the sample after the file
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p renamed
    ln -s "\$(readlink -f ${fq[0]})" renamed/${prefix}_1.fastq.gz
    ln -s "\$(readlink -f ${fq[1]})" renamed/${prefix}_2.fastq.gz
    trim_galore \\
        --cores ${task.cpus} \\
        --paired \\
        --quality ${quality} \\
        --length ${min_length} \\
        --gzip \\
        ${args} \\
        --basename ${prefix} \\
        -o trimmed \\
        renamed/${prefix}_1.fastq.gz \\
        renamed/${prefix}_2.fastq.gz
    mv trimmed/${prefix}_val_1.fq.gz ${prefix}_trimmed_1.fastq.gz
    mv trimmed/${prefix}_val_2.fq.gz ${prefix}_trimmed_2.fastq.gz
    cat trimmed/${prefix}_1.fastq.gz_trimming_report.txt trimmed/${prefix}_2.fastq.gz_trimming_report.txt > ${prefix}.trim_galore_report.txt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}_trimmed_1.fastq.gz
    echo "" | gzip > ${prefix}_trimmed_2.fastq.gz
    touch ${prefix}.trim_galore_report.txt
    """
}
