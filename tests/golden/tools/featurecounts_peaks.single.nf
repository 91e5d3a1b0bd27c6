process SUBREAD_FEATURECOUNTSPEAKS {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/subread:2.0.6--he4a0461_0' :
        'biocontainers/subread:2.0.6--he4a0461_0' }"

    input:
    tuple val(meta), path(peaks)
    tuple val(meta2), val(sample_ids), path(bams, stageAs: 'bams/*')

    output:
    tuple val(meta), path("${prefix}.peak_counts.tsv"), emit: counts
    tuple val(meta), path("${prefix}.peaks.saf"), emit: saf
    tuple val(meta), path("${prefix}.peak_featurecounts.txt"), emit: raw
    tuple val(meta), path("${prefix}.peak_featurecounts.txt.summary"), emit: summary
    tuple val("${task.process}"), val('subread'), eval('{ featureCounts -v 2>&1 | grep featureCounts | sed \'s/^featureCounts v//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_subread, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten().join(' ')
    def header = (['peak_id'] + sample_ids).join('\t')  // a tab: '%s' below prints it as is
    // peaks -> SAF (BED 0-based starts -> SAF 1-based; unnamed peaks become chrom:start-end)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    awk 'BEGIN { OFS = "\\t"; print "GeneID", "Chr", "Start", "End", "Strand" } !/^(#|track|browser)/ { id = (\$4 != "" && \$4 != ".") ? \$4 : \$1 ":" (\$2 + 1) "-" \$3; print id, \$1, \$2 + 1, \$3, "+" }' ${peaks} > ${prefix}.peaks.saf
    featureCounts \\
        -T ${task.cpus} \\
        -F SAF \\
        -a ${prefix}.peaks.saf \\
        -o ${prefix}.peak_featurecounts.txt \\
        ${args} \\
        ${bam_files}
    { printf '%s\\n' '${header}'; tail -n +3 ${prefix}.peak_featurecounts.txt | cut -f 1,7-; } > ${prefix}.peak_counts.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.peak_counts.tsv ${prefix}.peaks.saf ${prefix}.peak_featurecounts.txt ${prefix}.peak_featurecounts.txt.summary
    """
}
