process FASTQC {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/fastqc:0.12.1--hdfd78af_0' :
        'biocontainers/fastqc:0.12.1--hdfd78af_0' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}_fastqc"), emit: report
    tuple val("${task.process}"), val('fastqc'), eval('{ fastqc --version 2>&1 | sed -n \'s/^FastQC v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_fastqc, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()
    // FastQC decompresses by the file's name: each link keeps its input's .gz (or its absence)
    def ext = fq.collect { f -> f.name.endsWith('.gz') ? 'fastq.gz' : 'fastq' }
    // link the mates under the sample name: FastQC and MultiQC label the reports by file name
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ${prefix}_fastqc renamed fastqc_tmp
    ln -s "\$(readlink -f ${fq[0]})" renamed/${prefix}_1.${ext[0]}
    ln -s "\$(readlink -f ${fq[1]})" renamed/${prefix}_2.${ext[1]}
    fastqc \\
        --threads ${task.cpus} \\
        --dir fastqc_tmp \\
        --outdir ${prefix}_fastqc \\
        ${args} \\
        renamed/${prefix}_1.${ext[0]} \\
        renamed/${prefix}_2.${ext[1]}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir -p ${prefix}_fastqc
    touch ${prefix}_fastqc/${prefix}_1_fastqc.zip ${prefix}_fastqc/${prefix}_1_fastqc.html
    touch ${prefix}_fastqc/${prefix}_2_fastqc.zip ${prefix}_fastqc/${prefix}_2_fastqc.html
    """
}
