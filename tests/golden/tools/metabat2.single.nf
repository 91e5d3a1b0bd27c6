process METABAT2_METABAT2 {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/metabat2:2.15--h986a166_1' :
        'biocontainers/metabat2:2.15--h986a166_1' }"

    input:
    tuple val(meta), path(contigs), path(depth)

    output:
    tuple val(meta), path("${prefix}.bins"), emit: bins
    tuple val("${task.process}"), val('metabat2'), eval('{ metabat2 --help 2>&1 | sed -n 2p | grep -oE \'[0-9]+[.][0-9]+\' || dpkg-query -W metabat 2>/dev/null | grep -oE \'[0-9]+[.][0-9]+\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_metabat2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_contig = tp.min_contig != null ? tp.min_contig : 2500
    def min_bin_size = tp.min_bin_size != null ? tp.min_bin_size : 200000
    def seed = tp.seed != null ? tp.seed : 1
    // the folder holds one FASTA per bin (bin.<n>.fa); it stays empty when nothing bins
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    rm -rf ${prefix}.bins
    mkdir ${prefix}.bins
    metabat2 \\
        -t ${task.cpus} \\
        -i ${contigs} \\
        -a ${depth} \\
        -m ${min_contig} \\
        -s ${min_bin_size} \\
        --seed ${seed} \\
        ${args} \\
        -o ${prefix}.bins/bin
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir -p ${prefix}.bins
    touch ${prefix}.bins/bin.1.fa
    """
}
