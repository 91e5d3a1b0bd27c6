process RGI_MAIN {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/rgi:6.0.5--pyh05cac1d_0' :
        'biocontainers/rgi:6.0.5--pyh05cac1d_0' }"

    input:
    tuple val(meta), path(contigs)
    path(database)

    output:
    tuple val(meta), path("${prefix}.rgi.txt"), emit: report
    tuple val("${task.process}"), val('rgi'), eval('{ rgi main --version 2>&1 | tail -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_rgi, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def loose = tp.include_loose?.toString() in ['true', 'True', 'yes', '1'] ? '--include_loose' : ''
    // rgi load --local writes ./localDB in the task folder, as nf-core/funcscan runs it
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${contigs} in
        *.gz) gzip -cd ${contigs} > contigs.input.fa ;;
        *) ln -s "\$(readlink -f ${contigs})" contigs.input.fa ;;
    esac
    rgi load --card_json ${database}/card.json --local
    rgi main \\
        --input_type contig \\
        --input_sequence contigs.input.fa \\
        --output_file ${prefix}.rgi \\
        --local \\
        --num_threads ${task.cpus} \\
        --alignment_tool DIAMOND \\
        ${loose} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.rgi.txt
    """
}
