process TAXPASTA_MERGE {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/taxpasta:0.7.0--pyhdfd78af_1' :
        'biocontainers/taxpasta:0.7.0--pyhdfd78af_1' }"

    input:
    tuple val(meta), val(sample_ids), path(profiles, stageAs: 'profiles/*')

    output:
    tuple val(meta), path("${prefix}.taxpasta_table.tsv"), emit: table
    tuple val("${task.process}"), val('taxpasta'), eval('{ taxpasta --version 2>&1 | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_taxpasta, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // taxpasta names each column after its file: the profiles are linked under the sample
    // names (sample_ids is in file order)
    def links = [[profiles].flatten(), sample_ids].transpose().collect { f, id -> "ln -s \"\$(readlink -f ${f})\" 'named/${id}.profile'" }.join('\n    ')
    // Bracken's table starts with its header; a Kraken2 report has none
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p named
    ${links}
    profiler=kraken2
    case "\$(head -n 1 ${[profiles].flatten()[0]})" in name*taxonomy_id*) profiler=bracken ;; esac
    taxpasta merge \\
        --profiler \$profiler \\
        --output-format TSV \\
        --wide \\
        ${args} \\
        --output ${prefix}.taxpasta_table.tsv \\
        named/*.profile
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.taxpasta_table.tsv
    """
}
