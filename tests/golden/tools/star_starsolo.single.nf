process STAR_STARSOLO {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/star:2.7.10a--h9ee0642_0' :
        'biocontainers/star:2.7.10a--h9ee0642_0' }"

    input:
    tuple val(meta), val(sample_ids), path(reads, stageAs: 'reads/*')
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}/matrix.mtx.gz"), emit: adata
    tuple val(meta), path("${prefix}/barcodes.tsv.gz"), emit: barcodes
    tuple val(meta), path("${prefix}/features.tsv.gz"), emit: features
    tuple val(meta), path("${prefix}.Summary.csv"), emit: summary
    tuple val("${task.process}"), val('star'), eval('{ STAR --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_star, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def sa_index_nbases = tp.sa_index_nbases != null ? tp.sa_index_nbases : 'auto'
    def sjdb_overhang = tp.sjdb_overhang != null ? tp.sjdb_overhang : 100
    def whitelist = tp.whitelist ?: 'None'
    def cb_start = tp.cb_start ?: 1
    def cb_len = tp.cb_len ?: 16
    def umi_start = tp.umi_start ?: 17
    def umi_len = tp.umi_len ?: 12
    def memory = task.memory ? "--limitGenomeGenerateRAM ${task.memory.toBytes()}" : ''
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    echo 'STARsolo needs both reads of each library (R1: cell barcode + UMI, R2: cDNA); this workflow was compiled for single-end reads' >&2
    exit 1
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir -p ${prefix}
    touch ${prefix}/matrix.mtx.gz ${prefix}/barcodes.tsv.gz ${prefix}/features.tsv.gz ${prefix}.Summary.csv
    """
}
