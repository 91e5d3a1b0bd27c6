process SPADES {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/spades:3.15.5--h95f258a_1' :
        'biocontainers/spades:3.15.5--h95f258a_1' }"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.contigs.fa"), emit: contigs
    tuple val(meta), path("${prefix}.scaffolds.fa"), emit: scaffolds
    tuple val(meta), path("${prefix}.spades.log"), emit: log
    tuple val("${task.process}"), val('spades'), eval('{ spades.py --version 2>&1 | sed -n \'s/^.*SPAdes genome assembler v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_spades, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def mode = tp.mode == null ? 'meta' : tp.mode.toString()
    def mode_opt = mode == 'meta' ? '--meta' : (mode == 'isolate' ? '--isolate' : '')
    def kmers = tp.kmers ? "-k ${tp.kmers}" : ''
    def maxmem = Math.max(1, task.memory.toGiga())
    def fq = [reads].flatten()
    if (!(mode in ['meta', 'isolate', ''])) {
        error "spades: mode must be meta, isolate or empty, not '${mode}'"
    }
    if (mode == 'meta') {
        error "metaSPAdes needs paired-end reads: set the spades mode to isolate or empty, or assemble with MEGAHIT"
    }
    // a retried task finds the last attempt's folder, which SPAdes would try to continue
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    rm -rf spades_out
    spades.py \\
        -t ${task.cpus} \\
        -m ${maxmem} \\
        ${mode_opt} \\
        ${kmers} \\
        -s ${fq[0]} \\
        ${args} \\
        -o spades_out
    cp spades_out/contigs.fasta ${prefix}.contigs.fa
    if [ -s spades_out/scaffolds.fasta ]; then
        cp spades_out/scaffolds.fasta ${prefix}.scaffolds.fa
    else
        cp spades_out/contigs.fasta ${prefix}.scaffolds.fa
    fi
    cp spades_out/spades.log ${prefix}.spades.log
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.contigs.fa ${prefix}.scaffolds.fa ${prefix}.spades.log
    """
}
