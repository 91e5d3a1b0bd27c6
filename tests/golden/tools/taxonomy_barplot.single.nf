process TAXONOMY_BARPLOT {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/matplotlib_pandas:76f3c63ec67531f0"

    input:
    tuple val(meta), path(table)

    output:
    tuple val(meta), path("${prefix}.taxonomy_barplot.png"), emit: plot
    tuple val("${task.process}"), val('matplotlib'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'matplotlib\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_matplotlib, topic: versions

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
    bioplan_run.py taxonomy_barplot.py --input table=${table} \\
        --output plot=${prefix}.taxonomy_barplot.png \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.taxonomy_barplot.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.taxonomy_barplot.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.taxonomy_barplot.png
    """
}
