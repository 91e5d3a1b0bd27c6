process GSEAPY_ENRICHGO {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gseapy:1.1.8--py312h004ce86_0' :
        'biocontainers/gseapy:1.1.8--py312h004ce86_0' }"

    input:
    tuple val(meta), path(genes)
    path(gene_sets)

    output:
    tuple val(meta), path("${prefix}.go_enrichment.tsv"), emit: table
    tuple val(meta), path("${prefix}.gseapy_enrich_go.log"), emit: log
    tuple val("${task.process}"), val('gseapy'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'gseapy\'))" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gseapy, topic: versions

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
    bioplan_run.py gseapy_enrich.py --input genes=${genes} --input gene_sets=${gene_sets} \\
        --output table=${prefix}.go_enrichment.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.gseapy_enrich_go.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.gseapy_enrich_go.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'Term\\tOverlap\\tP-value\\tAdjusted P-value\\tGenes\\n' > ${prefix}.go_enrichment.tsv
    touch ${prefix}.gseapy_enrich_go.log
    """
}
