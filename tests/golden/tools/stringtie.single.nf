process STRINGTIE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/stringtie:2.2.1--hecb563c_2' :
        'biocontainers/stringtie:2.2.1--hecb563c_2' }"

    input:
    tuple val(meta), path(bam)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.transcripts.gtf"), emit: transcripts
    tuple val(meta), path("${prefix}.gene_abundance.tsv"), emit: gene_abundance
    tuple val("${task.process}"), val('stringtie'), eval('{ stringtie --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_stringtie, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_isoform_fraction = tp.min_isoform_fraction != null ? tp.min_isoform_fraction : 0.01
    def strand = tp.strandedness == 'rf' ? '--rf' : (tp.strandedness == 'fr' ? '--fr' : '')
    // the sample name prefixes the ids of novel transcripts
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    stringtie \\
        ${bam} \\
        -p ${task.cpus} \\
        -l ${prefix} \\
        -f ${min_isoform_fraction} \\
        ${strand} \\
        -G ${annotation} \\
        ${args} \\
        -o ${prefix}.transcripts.gtf \\
        -A ${prefix}.gene_abundance.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.transcripts.gtf ${prefix}.gene_abundance.tsv
    """
}
