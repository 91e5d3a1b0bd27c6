process MERGE_KRAKENREPORTS {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/pandas:2.2.1' :
        'biocontainers/pandas:2.2.1' }"

    input:
    tuple val(meta), val(sample_ids), path(profiles, stageAs: 'profiles/*')

    output:
    tuple val(meta), path("${prefix}.abundance_table.tsv"), emit: table
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
    bioplan_run.py merge_kraken_reports.py ${[profiles].flatten().collect { f -> "--list-input profiles=${f}" }.join(' ')} ${sample_ids.collect { id -> "--list-param samples=${id}" }.join(' ')} \\
        --output table=${prefix}.abundance_table.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.merge_kraken_reports.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.merge_kraken_reports.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.abundance_table.tsv
    """
}
