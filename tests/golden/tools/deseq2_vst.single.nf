process DESEQ2_VST {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bioconductor-deseq2:1.46.0--r44he5774e6_1' :
        'biocontainers/bioconductor-deseq2:1.46.0--r44he5774e6_1' }"

    input:
    tuple val(meta), path(counts)

    output:
    tuple val(meta), path("${prefix}.vst.tsv"), emit: normalized
    tuple val(meta), path("${prefix}.deseq2_vst.log"), emit: log
    tuple val("${task.process}"), val('bioconductor-deseq2'), eval('{ Rscript -e \'cat(as.character(packageVersion("DESeq2")))\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bioconductor_deseq2, topic: versions

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
    bioplan_run.R deseq2_vst.R --input counts=${counts} \\
        --output normalized=${prefix}.vst.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.deseq2_vst.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.deseq2_vst.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'gene_id\\n' > ${prefix}.vst.tsv
    touch ${prefix}.deseq2_vst.log
    """
}
