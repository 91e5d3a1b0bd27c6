process PEAKNEARESTGENES {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/python:3.12' :
        'biocontainers/python:3.12' }"

    input:
    tuple val(meta), path(peaks)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.peak_genes.tsv"), emit: genes
    tuple val(meta), path("${prefix}.peak_gene_assignment.tsv"), emit: table
    tuple val(meta), path("${prefix}.peak_nearest_genes.log"), emit: log
    tuple val("${task.process}"), val('python'), eval('{ python --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_python, topic: versions

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
    bioplan_run.py peak_nearest_genes.py --input peaks=${peaks} --input annotation=${annotation} \\
        --output genes=${prefix}.peak_genes.tsv \\
        --output table=${prefix}.peak_gene_assignment.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.peak_nearest_genes.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.peak_nearest_genes.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'gene_id\\tgene_name\\tpeaks\\tmin_distance\\n' > ${prefix}.peak_genes.tsv
    printf 'chrom\\tstart\\tend\\tpeak\\tgene_id\\tgene_name\\tdistance_to_tss\\n' > ${prefix}.peak_gene_assignment.tsv
    touch ${prefix}.peak_nearest_genes.log
    """
}
