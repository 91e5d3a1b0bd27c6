process HARMONYPY {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/harmonypy_scanpy:e9c9a621297da9ea"

    input:
    tuple val(meta), path(adata)

    output:
    tuple val(meta), path("${prefix}.integrated.h5ad"), emit: adata
    tuple val(meta), path("${prefix}.batch_mixing.tsv"), emit: mixing
    tuple val("${task.process}"), val('harmonypy'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'harmonypy\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_harmonypy, topic: versions

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
    bioplan_run.py harmony_integrate.py --input adata=${adata} \\
        --output adata=${prefix}.integrated.h5ad \\
        --output mixing=${prefix}.batch_mixing.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.harmonypy.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.harmonypy.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.integrated.h5ad
    printf 'embedding\\tother_batch_share\\texpected_if_mixed\\tmixing_ratio\\tbatches\\n' > ${prefix}.batch_mixing.tsv
    """
}
