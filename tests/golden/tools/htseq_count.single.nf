process HTSEQ_COUNT {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/htseq:2.1.2--py311h483b626_2' :
        'biocontainers/htseq:2.1.2--py311h483b626_2' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.counts.tsv"), emit: counts
    tuple val(meta), path("${prefix}.htseq_counts.tsv"), emit: raw
    tuple val("${task.process}"), val('htseq'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'HTSeq\'))" 2>/dev/null || htseq-count --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_htseq, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def stranded = tp.stranded != null ? tp.stranded : 'no'
    def feature_type = tp.feature_type != null ? tp.feature_type : 'exon'
    def attribute = tp.attribute != null ? tp.attribute : 'gene_id'
    def mode = tp.mode != null ? tp.mode : 'union'
    def bam_files = [bams].flatten().join(' ')
    def header = (['gene_id'] + sample_ids).join('\t')  // a tab: '%s' below prints it as is
    // htseq-count's __no_feature/__ambiguous/... counters stay in the raw table only
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    htseq-count \\
        --nprocesses ${task.cpus} \\
        -f bam \\
        -r pos \\
        -s '${stranded}' \\
        -t '${feature_type}' \\
        -i '${attribute}' \\
        -m '${mode}' \\
        ${args} \\
        -c ${prefix}.htseq_counts.tsv \\
        ${bam_files} \\
        ${annotation}
    { printf '%s\\n' '${header}'; grep -v '^__' ${prefix}.htseq_counts.tsv; } > ${prefix}.counts.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.counts.tsv ${prefix}.htseq_counts.tsv
    """
}
