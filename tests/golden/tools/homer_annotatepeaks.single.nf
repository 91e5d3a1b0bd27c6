process HOMER_ANNOTATEPEAKS {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/homer:4.11--pl526hc9558a2_3' :
        'biocontainers/homer:4.11--pl526hc9558a2_3' }"

    input:
    tuple val(meta), path(peaks)
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.annotated_peaks.tsv"), emit: table
    tuple val(meta), path("${prefix}.annotation_stats.txt"), emit: stats
    tuple val("${task.process}"), val('homer'), eval('{ awk \'$1 == "homer" {print $2; exit}\' "$(dirname "$(readlink -f "$(command -v findMotifsGenome.pl)")")/../config.txt" ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_homer, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.fa ;;
    esac
    case ${annotation} in
        *.gz) gzip -cd ${annotation} > ref/genes.gtf ;;
        *) ln -s "\$(readlink -f ${annotation})" ref/genes.gtf ;;
    esac
    annotatePeaks.pl \\
        ${peaks} \\
        ref/genome.fa \\
        -gtf ref/genes.gtf \\
        -cpu ${task.cpus} \\
        -annStats ${prefix}.annotation_stats.txt \\
        ${args} \\
        > ${prefix}.annotated_peaks.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.annotated_peaks.tsv ${prefix}.annotation_stats.txt
    """
}
