process SAMPLEDISTANCES {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"

    input:
    tuple val(meta), path(normalized)
    tuple val(meta2), path(samples)

    output:
    tuple val(meta), path("${prefix}.sample_distances.png"), emit: plot
    tuple val(meta), path("${prefix}.sample_distances.tsv"), emit: distances
    tuple val(meta), path("${prefix}.sample_clustering.nwk"), emit: tree
    tuple val(meta), path("${prefix}.sample_distance_clustering.log"), emit: log
    tuple val("${task.process}"), val('scipy'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'scipy\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_scipy, topic: versions

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
    bioplan_run.py sample_distance_clustering.py --input normalized=${normalized} --input samples=${samples} \\
        --output plot=${prefix}.sample_distances.png \\
        --output distances=${prefix}.sample_distances.tsv \\
        --output tree=${prefix}.sample_clustering.nwk \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.sample_distance_clustering.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.sample_distance_clustering.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'sample\\n' > ${prefix}.sample_distances.tsv
    printf ';\\n' > ${prefix}.sample_clustering.nwk
    touch ${prefix}.sample_distances.png ${prefix}.sample_distance_clustering.log
    """
}
