process BEDTOOLS_MERGECONSENSUS {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bedtools:2.31.1--hf5e1c6e_0' :
        'biocontainers/bedtools:2.31.1--hf5e1c6e_0' }"

    input:
    tuple val(meta), val(sample_ids), path(peaks, stageAs: 'peaks/*')

    output:
    tuple val(meta), path("${prefix}.consensus_peaks.bed"), emit: peaks
    tuple val("${task.process}"), val('bedtools'), eval('{ bedtools --version 2>&1 | sed \'s/^bedtools v//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bedtools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def min_samples = task.ext.tool_params?.min_samples ?: 1
    def peak_files = [peaks].flatten()
    // each sample's peaks tagged with its name (sample_ids is in file order), pooled, sorted and merged;
    // a region keeps the distinct samples with a peak in it
    def tagged = [peak_files, sample_ids].transpose().collect { f, id -> "awk -v s='${id}' 'BEGIN { OFS = \"\\t\" } { print \$1, \$2, \$3, s }' ${f}" }.join('\n    ')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    {
    ${tagged}
    } | sort -k1,1 -k2,2n > pooled.bed
    bedtools merge -i pooled.bed -c 4,4 -o count_distinct,distinct ${args} \\
        | awk -v min=${min_samples} 'BEGIN { OFS = "\\t" } \$4 >= min { n++; print \$1, \$2, \$3, "consensus_peak_" n, \$4, ".", \$5 }' \\
        > ${prefix}.consensus_peaks.bed
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.consensus_peaks.bed
    """
}
