process CELLTYPIST {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/celltypist:1.7.1--pyhdfd78af_0' :
        'biocontainers/celltypist:1.7.1--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(adata)
    tuple val(meta2), path(markers)

    output:
    tuple val(meta), path("${prefix}.cluster_cell_types.tsv"), emit: labels
    tuple val(meta), path("${prefix}.cell_types_per_cell.tsv"), emit: cells
    tuple val("${task.process}"), val('celltypist'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'celltypist\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_celltypist, topic: versions

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
    bioplan_run.py celltypist_annotate.py --input adata=${adata} --input markers=${markers} \\
        --output labels=${prefix}.cluster_cell_types.tsv \\
        --output cells=${prefix}.cell_types_per_cell.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.celltypist.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.celltypist.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'cluster\\tcell_type\\tshare\\tn_cells\\tsupporting_markers\\tn_supporting\\n' > ${prefix}.cluster_cell_types.tsv
    printf 'cell\\tcluster\\tpredicted_label\\tconf_score\\tcell_type\\n' > ${prefix}.cell_types_per_cell.tsv
    """
}
