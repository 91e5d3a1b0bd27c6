process ASV_TAXONOMYTABLE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/pandas:2.2.1' :
        'biocontainers/pandas:2.2.1' }"

    input:
    tuple val(meta), path(table)
    tuple val(meta2), path(taxonomy)

    output:
    tuple val(meta), path("${prefix}.taxonomy_abundance_table.tsv"), emit: table
    tuple val("${task.process}"), val('pandas'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'pandas\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_pandas, topic: versions

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
    bioplan_run.py asv_taxonomy_table.py --input table=${table} --input taxonomy=${taxonomy} \\
        --output table=${prefix}.taxonomy_abundance_table.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.asv_taxonomy_table.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.asv_taxonomy_table.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.taxonomy_abundance_table.tsv
    """
}
