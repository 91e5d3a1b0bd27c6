process PYDESEQ2_PSEUDOBULK {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/pydeseq2:0.5.2--pyhdfd78af_0' :
        'biocontainers/pydeseq2:0.5.2--pyhdfd78af_0' }"

    input:
    tuple val(meta), path(adata)
    tuple val(meta2), path(labels)

    output:
    tuple val(meta), path("${prefix}.pseudobulk_de.tsv"), emit: table
    tuple val("${task.process}"), val('pydeseq2'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'pydeseq2\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_pydeseq2, topic: versions

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
    bioplan_run.py pseudobulk_pydeseq2.py --input adata=${adata} --input labels=${labels} \\
        --output table=${prefix}.pseudobulk_de.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.pydeseq2_pseudobulk.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.pydeseq2_pseudobulk.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'cell_type\\tgene_id\\tbaseMean\\tlog2FoldChange\\tlfcSE\\tstat\\tpvalue\\tpadj\\tn_samples\\tn_cells\\n' > ${prefix}.pseudobulk_de.tsv
    """
}
