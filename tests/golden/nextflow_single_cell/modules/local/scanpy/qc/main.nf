process SCANPY_QC {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"

    input:
    tuple val(meta), path(adata)

    output:
    tuple val(meta), path("${prefix}.filtered.h5ad"), emit: adata
    tuple val("${task.process}"), val('scanpy'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'scanpy\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_scanpy, topic: versions

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
    bioplan_run.py scanpy_qc.py --input adata=${adata} \\
        --output adata=${prefix}.filtered.h5ad \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.scanpy_qc.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.scanpy_qc.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.filtered.h5ad
    """
}
