process PRODIGAL {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/prodigal:2.6.3--h516909a_2' :
        'biocontainers/prodigal:2.6.3--h516909a_2' }"

    input:
    tuple val(meta), path(contigs)

    output:
    tuple val(meta), path("${prefix}.genes.gff"), emit: genes
    tuple val(meta), path("${prefix}.proteins.faa"), emit: proteins
    tuple val(meta), path("${prefix}.genes.fna"), emit: cds
    tuple val("${task.process}"), val('prodigal'), eval('{ prodigal -v 2>&1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_prodigal, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def mode = tp.mode ?: 'meta'
    def translation_table = tp.translation_table != null ? tp.translation_table : 11
    // Prodigal reads plain FASTA only: gzipped contigs are decompressed first
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${contigs} in
        *.gz) gzip -cd ${contigs} > contigs.input.fa ;;
        *) ln -s "\$(readlink -f ${contigs})" contigs.input.fa ;;
    esac
    prodigal \\
        -i contigs.input.fa \\
        -p ${mode} \\
        -g ${translation_table} \\
        -f gff \\
        -o ${prefix}.genes.gff \\
        -a ${prefix}.proteins.faa \\
        -d ${prefix}.genes.fna \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.genes.gff ${prefix}.proteins.faa ${prefix}.genes.fna
    """
}
