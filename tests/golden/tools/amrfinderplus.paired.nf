process AMRFINDERPLUS {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/ncbi-amrfinderplus:3.12.8--h283d18e_0' :
        'biocontainers/ncbi-amrfinderplus:3.12.8--h283d18e_0' }"

    input:
    tuple val(meta), path(contigs)
    path(database)

    output:
    tuple val(meta), path("${prefix}.amrfinderplus.tsv"), emit: report
    tuple val("${task.process}"), val('ncbi-amrfinderplus'), eval('{ amrfinder --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_ncbi_amrfinderplus, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def plus = (tp.plus == null || tp.plus) ? '--plus' : ''
    def organism = tp.organism ? "--organism ${tp.organism}" : ''
    // AMRFinderPlus reads plain FASTA: gzipped contigs are decompressed first
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${contigs} in
        *.gz) gzip -cd ${contigs} > contigs.input.fa ;;
        *) ln -s "\$(readlink -f ${contigs})" contigs.input.fa ;;
    esac
    amrfinder \\
        --nucleotide contigs.input.fa \\
        --database ${database} \\
        --threads ${task.cpus} \\
        --name ${prefix} \\
        ${plus} \\
        ${organism} \\
        ${args} \\
        -o ${prefix}.amrfinderplus.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.amrfinderplus.tsv
    """
}
