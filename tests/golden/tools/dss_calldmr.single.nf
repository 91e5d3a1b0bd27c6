process DSS_CALLDMR {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bioconductor-dss:2.48.0--r43ha9d7317_1' :
        'biocontainers/bioconductor-dss:2.48.0--r43ha9d7317_1' }"

    input:
    tuple val(meta), val(sample_ids), path(calls, stageAs: 'calls/*')
    tuple val(meta2), path(samples)

    output:
    tuple val(meta), path("${prefix}.dss_dmrs.tsv"), emit: regions
    tuple val(meta), path("${prefix}.dss_dml_tests.tsv"), emit: loci
    tuple val("${task.process}"), val('bioconductor-dss'), eval('{ Rscript -e \'cat(format(packageVersion("DSS")), fill = TRUE)\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bioconductor_dss, topic: versions

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
    bioplan_run.R dss_dmr.R ${[calls].flatten().collect { f -> "--list-input calls=${f}" }.join(' ')} --input samples=${samples} ${sample_ids.collect { id -> "--list-param samples=${id}" }.join(' ')} \\
        --output regions=${prefix}.dss_dmrs.tsv \\
        --output loci=${prefix}.dss_dml_tests.tsv \\
        --params params.json \\
        --threads ${task.cpus} \\
        --log ${prefix}.dss.log \\
        --rule ${task.process} \\
        || { cat ${prefix}.dss.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'chr\\tstart\\tend\\n' > ${prefix}.dss_dmrs.tsv
    printf 'chr\\tpos\\n' > ${prefix}.dss_dml_tests.tsv
    """
}
