process DEEPTOOLS_BAMPEFRAGMENTSIZE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(bam)

    output:
    tuple val(meta), path("${prefix}.fragment_size.png"), emit: report
    tuple val(meta), path("${prefix}.fragment_size.tsv"), emit: table
    tuple val(meta), path("${prefix}.fragment_lengths.tsv"), emit: lengths
    tuple val("${task.process}"), val('deeptools'), eval('{ bamPEFragmentSize --version 2>&1 | sed \'s/^bamPEFragmentSize //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def max_fragment_length = task.ext.tool_params?.max_fragment_length ?: 1000
    // bamPEFragmentSize needs <bam>.bai beside the BAM and only the BAM comes in: index it here
    // (the bioconda deepTools image has no samtools CLI: pysam, a deepTools dependency, then)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    if [ ! -e ${bam}.bai ]; then
        if command -v samtools > /dev/null; then samtools index ${bam}; else python3 -c 'import sys, pysam; pysam.index(sys.argv[1])' ${bam}; fi
    fi
    bamPEFragmentSize \\
        --bamfiles ${bam} \\
        --samplesLabel ${meta.id} \\
        --histogram ${prefix}.fragment_size.png \\
        --table ${prefix}.fragment_size.tsv \\
        --outRawFragmentLengths ${prefix}.fragment_lengths.tsv \\
        --maxFragmentLength ${max_fragment_length} \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.fragment_size.png ${prefix}.fragment_size.tsv ${prefix}.fragment_lengths.tsv
    """
}
