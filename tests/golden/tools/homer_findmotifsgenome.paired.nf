process HOMER_FINDMOTIFSGENOME {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/homer:4.11--pl526hc9558a2_3' :
        'biocontainers/homer:4.11--pl526hc9558a2_3' }"

    input:
    tuple val(meta), path(peaks)
    path(genome)

    output:
    tuple val(meta), path("${prefix}.known_motifs.tsv"), emit: table
    tuple val(meta), path("${prefix}.de_novo.motifs"), emit: de_novo
    tuple val("${task.process}"), val('homer'), eval('{ awk \'$1 == "homer" {print $2; exit}\' "$(dirname "$(readlink -f "$(command -v findMotifsGenome.pl)")")/../config.txt" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_homer, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def size = task.ext.tool_params?.size ?: 200
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref preparsed
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    findMotifsGenome.pl \\
        ${peaks} \\
        ref/genome.fa \\
        homer_out \\
        -size ${size} \\
        -p ${task.cpus} \\
        -preparsedDir preparsed \\
        ${args}
    cp homer_out/knownResults.txt ${prefix}.known_motifs.tsv
    cp homer_out/homerMotifs.all.motifs ${prefix}.de_novo.motifs
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.known_motifs.tsv ${prefix}.de_novo.motifs
    """
}
