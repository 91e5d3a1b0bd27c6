process DADA2_ERR {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bioconductor-dada2:1.30.0--r43hf17093f_0' :
        'biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0' }"

    input:
    tuple val(meta), val(sample_ids), path(reads, stageAs: 'reads/*')

    output:
    tuple val(meta), path("${prefix}.error_model.rds"), emit: errors
    tuple val("${task.process}"), val('bioconductor-dada2'), eval('{ Rscript -e \'cat(format(packageVersion("dada2")), fill = TRUE)\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bioconductor_dada2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    cat <<'BIOPLAN_PARAMS' > params.json
    ${groovy.json.JsonOutput.toJson(task.ext.tool_params ?: [:])}
    BIOPLAN_PARAMS
    bioplan_run.R dada2_learnerrors.R ${[reads].flatten().collect { f -> "--list-input reads=${f}" }.join(' ')} ${sample_ids.collect { id -> "--list-param samples=${id}" }.join(' ')} \\
        --output errors=${prefix}.error_model.rds \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.dada2_learnerrors.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.dada2_learnerrors.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.error_model.rds
    """
}
