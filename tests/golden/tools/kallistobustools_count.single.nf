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
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    echo 'kb count needs both reads of each library (R1: cell barcode + UMI, R2: cDNA); this workflow was compiled for single-end reads' >&2
    exit 1
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.counts_unfiltered.h5ad
    """
}
