process KALLISTO_QUANT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/kallisto:0.48.0--h15996b6_2' :
        'biocontainers/kallisto:0.48.0--h15996b6_2' }"

    input:
    tuple val(meta), path(reads)
    path(index)

    output:
    tuple val(meta), path("${prefix}"), emit: quant
    tuple val("${task.process}"), val('kallisto'), eval('{ kallisto version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_kallisto, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def bootstraps = tp.bootstraps != null ? tp.bootstraps : 0
    def fq = [reads].flatten()
    def fragment_length = tp.fragment_length != null ? tp.fragment_length : 200
    def fragment_sd = tp.fragment_sd != null ? tp.fragment_sd : 20
    // the output directory (abundance.tsv, abundance.h5, run_info.json) is named after the sample
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    kallisto quant \\
        --threads ${task.cpus} \\
        -i ${index} \\
        -o ${prefix} \\
        --bootstrap-samples ${bootstraps} \\
        ${args} \\
        --single \\
        -l ${fragment_length} \\
        -s ${fragment_sd} \\
        ${fq[0]}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir -p ${prefix}
    printf 'target_id\\tlength\\teff_length\\test_counts\\ttpm\\n' > ${prefix}/abundance.tsv
    touch ${prefix}/abundance.h5 ${prefix}/run_info.json
    """
}
