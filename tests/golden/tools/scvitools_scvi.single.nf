process SCVITOOLS_SCVI {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/scvi-tools:1.4.3--cce8c95b58ececa6"

    input:
    tuple val(meta), path(adata)

    output:
    tuple val(meta), path("${prefix}.integrated.h5ad"), emit: adata
    tuple val("${task.process}"), val('scvi-tools'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'scvi-tools\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_scvi_tools, topic: versions

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
    bioplan_run.py scvitools_scvi.py --input adata=${adata} \\
        --output adata=${prefix}.integrated.h5ad \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.scvitools_scvi.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.scvitools_scvi.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.integrated.h5ad
    """
}
