process SCANPY_SCRUBLET {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/scanpy_scikit-image:7d3d2c63b2063667"

    input:
    tuple val(meta), path(adata)

    output:
    tuple val(meta), path("${prefix}.singlets.h5ad"), emit: adata
    tuple val(meta), path("${prefix}.doublet_scores.tsv"), emit: scores
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
    bioplan_run.py scanpy_scrublet.py --input adata=${adata} \\
        --output adata=${prefix}.singlets.h5ad \\
        --output scores=${prefix}.doublet_scores.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.scanpy_scrublet.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.scanpy_scrublet.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.singlets.h5ad
    printf 'cell\\tbatch\\tdoublet_score\\tpredicted_doublet\\n' > ${prefix}.doublet_scores.tsv
    """
}
