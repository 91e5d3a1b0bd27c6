process HAMRONIZATION_SUMMARIZE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/hamronization:1.1.9--pyhdfd78af_0' :
        'biocontainers/hamronization:1.1.9--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(reports, stageAs: 'reports/*')

    output:
    tuple val(meta), path("${prefix}.hamronization_summary.tsv"), emit: table
    tuple val("${task.process}"), val('hamronization'), eval('{ hamronize --version 2>&1 | sed \'s/hamronize //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_hamronization, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def amrfinderplus_version = tp.amrfinderplus_version ?: '3.12.8'
    def rgi_version = tp.rgi_version ?: '6.0.5'
    def database_version = tp.database_version ?: 'unspecified'
    // each report converted by the tool its header names, labelled with its sample (sample_ids
    // is in file order), then summarised
    def convert = [[reports].flatten(), sample_ids].transpose().withIndex().collect { pair, i ->
        def (report, id) = pair
        """
    header=\$(head -n 1 ${report})
    case "\$header" in
        *ORF_ID*) tool=rgi; version='${rgi_version}' ;;
        *"Protein identifier"* | *"Protein id"*) tool=amrfinderplus; version='${amrfinderplus_version}' ;;
        *) echo "hAMRonization: ${report} is neither an AMRFinderPlus nor an RGI report" >&2; exit 1 ;;
    esac
    hamronize "\$tool" --input_file_name '${id}' --analysis_software_version "\$version" \\
        --reference_database_version '${database_version}' --format json --output harmonised_${i}.json ${report}"""
    }.join('\n')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    ${convert}
    hamronize summarize -t tsv ${args} -o ${prefix}.hamronization_summary.tsv harmonised_*.json
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.hamronization_summary.tsv
    """
}
