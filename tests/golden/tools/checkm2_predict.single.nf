process CHECKM2_PREDICT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/checkm2:1.0.2--pyh7cba7a3_0' :
        'biocontainers/checkm2:1.0.2--pyh7cba7a3_0' }"

    input:
    tuple val(meta), path(bins)
    path(database)

    output:
    tuple val(meta), path("${prefix}.checkm2_quality_report.tsv"), emit: report
    tuple val("${task.process}"), val('checkm2'), eval('{ checkm2 --version 2>&1 | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_checkm2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // CheckM2 stops on a folder without bins: an empty bin folder gets a header-only report
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    if ! ls ${bins}/*.fa > /dev/null 2>&1; then
        printf 'Name\\tCompleteness\\tContamination\\tCompleteness_Model_Used\\tTranslation_Table_Used\\tAdditional_Notes\\n' \\
            > ${prefix}.checkm2_quality_report.tsv
    else
        checkm2 predict \\
            --threads ${task.cpus} \\
            --input ${bins} \\
            -x fa \\
            --database_path ${database} \\
            ${args} \\
            --output-directory checkm2_out
        cp checkm2_out/quality_report.tsv ${prefix}.checkm2_quality_report.tsv
    fi
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.checkm2_quality_report.tsv
    """
}
