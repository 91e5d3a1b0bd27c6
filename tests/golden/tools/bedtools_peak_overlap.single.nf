process BEDTOOLS_PEAKOVERLAP {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bedtools:2.31.1--hf5e1c6e_0' :
        'biocontainers/bedtools:2.31.1--hf5e1c6e_0' }"

    input:
    tuple val(meta), val(sample_ids), path(peaks, stageAs: 'peaks/*')

    output:
    tuple val(meta), path("${prefix}.peak_overlaps.tsv"), emit: table
    tuple val(meta), path("${prefix}.peak_jaccard.tsv"), emit: jaccard
    tuple val(meta), path("${prefix}.peak_multiinter.tsv"), emit: multiinter
    tuple val("${task.process}"), val('bedtools'), eval('{ bedtools --version 2>&1 | sed \'s/^bedtools v//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bedtools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def peak_files = [peaks].flatten()
    def named = [sample_ids, peak_files].transpose().collect { id, f -> "'${id}' ${f}" }.join(' ')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    peak_set_overlap.sh ${prefix}.peak_overlaps.tsv ${prefix}.peak_jaccard.tsv ${prefix}.peak_multiinter.tsv ${named}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.peak_overlaps.tsv ${prefix}.peak_jaccard.tsv ${prefix}.peak_multiinter.tsv
    """
}
