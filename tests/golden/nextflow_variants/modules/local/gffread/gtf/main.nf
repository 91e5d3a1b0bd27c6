process GFFREAD_GTF {
    tag 'annotation_format_conversion'
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gffread:0.12.7--hdcf5f25_4' :
        'biocontainers/gffread:0.12.7--hdcf5f25_4' }"

    input:
    path(annotation)

    output:
    path("${prefix}.gtf"), emit: annotation
    tuple val("${task.process}"), val('gffread'), eval('{ gffread --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gffread, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${annotation} in
        *.gz) gzip -cd ${annotation} > annotation.in.gff3 ;;
        *) cat ${annotation} > annotation.in.gff3 ;;
    esac
    gffread annotation.in.gff3 -T ${args} -o annotation.raw.gtf
    gff3_plain_ids.awk annotation.in.gff3 annotation.raw.gtf > ${prefix}.gtf
    """

    stub:
    prefix = task.ext.prefix ?: 'annotation_format_conversion'
    """
    touch ${prefix}.gtf
    """
}
