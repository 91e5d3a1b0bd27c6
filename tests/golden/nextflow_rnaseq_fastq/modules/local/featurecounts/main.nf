process FEATURECOUNTS {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/subread:2.0.6--he4a0461_0' :
        'biocontainers/subread:2.0.6--he4a0461_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.counts.tsv"), emit: counts
    tuple val(meta), path("${prefix}.featureCounts.txt"), emit: raw
    tuple val(meta), path("${prefix}.featureCounts.txt.summary"), emit: summary
    tuple val("${task.process}"), val('subread'), eval('{ featureCounts -v 2>&1 | grep featureCounts ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_subread, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def strandedness = task.ext.tool_params?.strandedness ?: 0
    def feature_type = task.ext.tool_params?.feature_type ?: 'exon'
    def attribute = task.ext.tool_params?.attribute ?: 'gene_id'
    def bam_files = [bams].flatten().join(' ')
    def header = (['gene_id'] + sample_ids).join('\t')  // a tab: '%s' below prints it as is
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    featureCounts \\
        -T ${task.cpus} \\
        -a ${annotation} \\
        -o ${prefix}.featureCounts.txt \\
        -t ${feature_type} \\
        -g ${attribute} \\
        -s ${strandedness} \\
        -p --countReadPairs \\
        ${args} \\
        ${bam_files}
    { printf '%s\\n' '${header}'; tail -n +3 ${prefix}.featureCounts.txt | cut -f 1,7-; } > ${prefix}.counts.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.counts.tsv ${prefix}.featureCounts.txt ${prefix}.featureCounts.txt.summary
    """
}
