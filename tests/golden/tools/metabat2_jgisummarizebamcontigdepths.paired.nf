process METABAT2_JGISUMMARIZEBAMCONTIGDEPTHS {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/metabat2:2.15--h986a166_1' :
        'biocontainers/metabat2:2.15--h986a166_1' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.contig_depths.tsv"), emit: depth
    tuple val("${task.process}"), val('metabat2'), eval('{ metabat2 --help 2>&1 | sed -n 2p | grep -oE \'[0-9]+[.][0-9]+\' || dpkg-query -W metabat 2>/dev/null | grep -oE \'[0-9]+[.][0-9]+\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_metabat2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_identity = tp.min_identity != null ? tp.min_identity : 97
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    jgi_summarize_bam_contig_depths \\
        --percentIdentity ${min_identity} \\
        ${args} \\
        --outputDepth ${prefix}.contig_depths.tsv \\
        ${bam}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.contig_depths.tsv
    """
}
