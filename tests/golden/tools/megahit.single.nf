process MEGAHIT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/megahit:1.2.9--h2e03b76_1' :
        'biocontainers/megahit:1.2.9--h2e03b76_1' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.contigs.fa"), emit: contigs
    tuple val(meta), path("${prefix}.megahit.log"), emit: log
    tuple val("${task.process}"), val('megahit'), eval('{ megahit --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_megahit, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_contig_len = tp.min_contig_len != null ? tp.min_contig_len : 200
    def presets = tp.presets ? "--presets ${tp.presets}" : ''
    def fq = [reads].flatten()
    // MEGAHIT refuses an existing output folder (a retried task finds the last attempt's)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    rm -rf megahit_out
    megahit \\
        -t ${task.cpus} \\
        -m ${task.memory.toBytes()} \\
        --min-contig-len ${min_contig_len} \\
        ${presets} \\
        -r ${fq[0]} \\
        ${args} \\
        -o megahit_out
    cp megahit_out/final.contigs.fa ${prefix}.contigs.fa
    cp megahit_out/log ${prefix}.megahit.log
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.contigs.fa ${prefix}.megahit.log
    """
}
