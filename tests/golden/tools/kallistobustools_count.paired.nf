process KALLISTOBUSTOOLS_COUNT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/kb-python:0.28.2--pyhdfd78af_2' :
        'biocontainers/kb-python:0.28.2--pyhdfd78af_2' }"

    input:
    tuple val(meta), val(sample_ids), path(reads, stageAs: 'reads/*')
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.counts_unfiltered.h5ad"), emit: adata
    tuple val("${task.process}"), val('kb-python'), eval('{ kb --version 2>&1 | sed -n "s/kb_python //p" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_kb_python, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def technology = tp.technology ?: '10xv3'
    def kb_workflow = tp.workflow ?: 'standard'
    def memory = task.memory ? "-m ${task.memory.toMega()}M" : ''
    // kb count reads the R1 (barcode + UMI) / R2 (cDNA) pairs in order
    def pairs = [reads].flatten().sort { f -> f.name }
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    kb ref \\
        -i index.idx \\
        -g t2g.txt \\
        -f1 cdna.fa \\
        ${genome} \\
        ${annotation}
    kb count \\
        -t ${task.cpus} \\
        ${memory} \\
        -i index.idx \\
        -g t2g.txt \\
        -x ${technology} \\
        --workflow ${kb_workflow} \\
        --h5ad \\
        ${args} \\
        -o ${prefix}.kb_count \\
        ${pairs.join(' ')}
    mv ${prefix}.kb_count/counts_unfiltered/adata.h5ad ${prefix}.counts_unfiltered.h5ad
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.counts_unfiltered.h5ad
    """
}
