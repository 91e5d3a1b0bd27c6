process DEEPTOOLS_PLOTFINGERPRINT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')

    output:
    tuple val(meta), path("${prefix}.fingerprint.png"), emit: report
    tuple val(meta), path("${prefix}.fingerprint.qcmetrics.txt"), emit: metrics
    tuple val(meta), path("${prefix}.fingerprint.raw.txt"), emit: counts
    tuple val("${task.process}"), val('deeptools'), eval('{ plotFingerprint --version 2>&1 | sed \'s/^plotFingerprint //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def bin_size = tp.bin_size ?: 500
    def number_of_samples = tp.number_of_samples ?: 500000
    def bam_files = [bams].flatten()
    // plotFingerprint needs <bam>.bai beside each BAM and only the BAMs come in: index them here
    // (the bioconda deepTools image has no samtools CLI: pysam, a deepTools dependency, then)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for b in ${bam_files.join(' ')}; do
        if [ ! -e "\$b.bai" ]; then
            if command -v samtools > /dev/null; then samtools index "\$b"; else python3 -c 'import sys, pysam; pysam.index(sys.argv[1])' "\$b"; fi
        fi
    done
    plotFingerprint \\
        --bamfiles ${bam_files.join(' ')} \\
        --labels ${sample_ids.join(' ')} \\
        --plotFile ${prefix}.fingerprint.png \\
        --outQualityMetrics ${prefix}.fingerprint.qcmetrics.txt \\
        --outRawCounts ${prefix}.fingerprint.raw.txt \\
        --binSize ${bin_size} \\
        --numberOfSamples ${number_of_samples} \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.fingerprint.png ${prefix}.fingerprint.qcmetrics.txt ${prefix}.fingerprint.raw.txt
    """
}
