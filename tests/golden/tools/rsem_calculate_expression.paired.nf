process RSEM_CALCULATEEXPRESSION {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/rsem_star:5acb4e8c03239c32"

    input:
    tuple val(meta), path(reads)
    path(index)

    output:
    tuple val(meta), path("${prefix}.genes.results"), emit: quant
    tuple val(meta), path("${prefix}.isoforms.results"), emit: isoforms
    tuple val(meta), path("${prefix}.cnt"), emit: cnt
    tuple val("${task.process}"), val('rsem'), eval('{ rsem-calculate-expression --version | sed -e \'s/Current version: RSEM v//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_rsem, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def aligner = tp.aligner == 'bowtie2' ? '--bowtie2' : '--star --star-gzipped-read-file'
    def strandedness = tp.strandedness in ['forward', 'reverse'] ? tp.strandedness : 'none'
    def fq = [reads].flatten()
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    rsem-calculate-expression \\
        --num-threads ${task.cpus} \\
        --temporary-folder ./tmp/ \\
        ${aligner} \\
        --strandedness ${strandedness} \\
        --paired-end \\
        ${fq[0]} ${fq[1]} \\
        ${args} \\
        ${index}/genome \\
        ${prefix}
    mv ${prefix}.stat/${prefix}.cnt ${prefix}.cnt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'gene_id\\ttranscript_id(s)\\tlength\\teffective_length\\texpected_count\\tTPM\\tFPKM\\n' > ${prefix}.genes.results
    printf 'transcript_id\\tgene_id\\tlength\\teffective_length\\texpected_count\\tTPM\\tFPKM\\tIsoPct\\n' > ${prefix}.isoforms.results
    touch ${prefix}.cnt
    """
}
