process MIRNA_COUNTS {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/samtools:1.16.1--h6899075_1' :
        'biocontainers/samtools:1.16.1--h6899075_1' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')

    output:
    tuple val(meta), path("${prefix}.mirna_counts.tsv"), emit: counts
    tuple val("${task.process}"), val('samtools'), eval('{ samtools --version | sed -n \'1s/^samtools //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_samtools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def header = (['mirna'] + sample_ids).join('\t')  // a tab: '%s' below prints it as is
    def stats = bam_files.withIndex().collect { f, i -> "samtools idxstats ${f} > ${i}.idxstats" }.join('\n    ')
    def tables = (0..<bam_files.size()).collect { i -> "${i}.idxstats" }.join(' ')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    ${stats}
    { printf '%s\\n' '${header}'; mirna_tables.awk mode=counts ${tables}; } > ${prefix}.mirna_counts.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.mirna_counts.tsv
    """
}
