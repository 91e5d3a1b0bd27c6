process DEEPTOOLS_COMPUTEMATRIXSCALEREGIONS {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(tracks, stageAs: 'tracks/*')
    path(regions)

    output:
    tuple val(meta), path("${prefix}.genebody.mat.gz"), emit: matrix
    tuple val(meta), path("${prefix}.genebody.tab"), emit: table
    tuple val("${task.process}"), val('deeptools'), eval('{ computeMatrix --version 2>&1 | sed \'s/^computeMatrix //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def upstream = tp.upstream != null ? tp.upstream : 3000
    def downstream = tp.downstream != null ? tp.downstream : 3000
    def bin_size = tp.bin_size ?: 50
    def region_body_length = tp.region_body_length ?: 5000
    def track_files = [tracks].flatten()
    // deepTools reads the GTF's transcripts as regions; a gzipped GTF is unpacked first
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${regions} in
        *.gz) gzip -cd ${regions} > regions.gtf ;;
        *) ln -s "\$(readlink -f ${regions})" regions.gtf ;;
    esac
    computeMatrix scale-regions \\
        --scoreFileName ${track_files.join(' ')} \\
        --regionsFileName regions.gtf \\
        --samplesLabel ${sample_ids.join(' ')} \\
        --regionBodyLength ${region_body_length} \\
        --upstream ${upstream} \\
        --downstream ${downstream} \\
        --binSize ${bin_size} \\
        --outFileName ${prefix}.genebody.mat.gz \\
        --outFileNameMatrix ${prefix}.genebody.tab \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.genebody.mat.gz ${prefix}.genebody.tab
    """
}
