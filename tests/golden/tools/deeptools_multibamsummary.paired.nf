process DEEPTOOLS_MULTIBAMSUMMARY {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')

    output:
    tuple val(meta), path("${prefix}.multibamsummary.npz"), emit: counts
    tuple val(meta), path("${prefix}.multibamsummary.counts.tsv"), emit: raw
    tuple val("${task.process}"), val('deeptools'), eval('{ multiBamSummary --version 2>&1 | sed \'s/^multiBamSummary //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def bin_size = tp.bin_size ?: 10000
    def bam_files = [bams].flatten()
    // multiBamSummary needs <bam>.bai beside each BAM and only the BAMs come in: index them here
    // (the bioconda deepTools image has no samtools CLI: pysam, a deepTools dependency, then)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for b in ${bam_files.join(' ')}; do
        if [ ! -e "\$b.bai" ]; then
            if command -v samtools > /dev/null; then samtools index "\$b"; else python3 -c 'import sys, pysam; pysam.index(sys.argv[1])' "\$b"; fi
        fi
    done
    multiBamSummary bins \\
        --bamfiles ${bam_files.join(' ')} \\
        --labels ${sample_ids.join(' ')} \\
        --outFileName ${prefix}.multibamsummary.npz \\
        --outRawCounts ${prefix}.multibamsummary.counts.tsv \\
        --binSize ${bin_size} \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.multibamsummary.npz ${prefix}.multibamsummary.counts.tsv
    """
}
