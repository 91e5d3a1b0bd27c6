process DEEPTOOLS_COMPUTEMATRIXPEAKS {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/deeptools:3.5.6--pyhdfd78af_0' :
        'biocontainers/deeptools:3.5.6--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(tracks, stageAs: 'tracks/*')
    tuple val(meta2), path(regions)

    output:
    tuple val(meta), path("${prefix}.peaks.mat.gz"), emit: matrix
    tuple val(meta), path("${prefix}.peaks.tab"), emit: table
    tuple val(meta), path("${prefix}.peaks.regions.bed"), emit: regions
    tuple val("${task.process}"), val('deeptools'), eval('{ computeMatrix --version 2>&1 | sed \'s/^computeMatrix //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deeptools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def upstream = tp.upstream != null ? tp.upstream : 2000
    def downstream = tp.downstream != null ? tp.downstream : 2000
    def bin_size = tp.bin_size ?: 50
    def reference_point = tp.reference_point ?: 'center'
    def track_files = [tracks].flatten()
    def region_files = [regions].flatten()
    // the regions of every file (gzipped or not) are pooled as BED3, sorted and overlapping ones merged:
    // one row per region whatever the number of files that hold it
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for f in ${region_files.join(' ')}; do
        case "\$f" in *.gz) gzip -cd "\$f" ;; *) cat "\$f" ;; esac
    done \\
        | awk 'BEGIN { OFS = "\\t" } !/^(#|track|browser)/ && NF >= 3 { print \$1, \$2, \$3 }' \\
        | LC_ALL=C sort -k1,1 -k2,2n \\
        | awk 'BEGIN { OFS = "\\t" } \$1 == c && \$2 <= e { if (\$3 > e) e = \$3; next } { if (c != "") print c, s, e; c = \$1; s = \$2; e = \$3 } END { if (c != "") print c, s, e }' \\
        > pooled_regions.bed
    computeMatrix reference-point \\
        --scoreFileName ${track_files.join(' ')} \\
        --regionsFileName pooled_regions.bed \\
        --samplesLabel ${sample_ids.join(' ')} \\
        --referencePoint ${reference_point} \\
        --upstream ${upstream} \\
        --downstream ${downstream} \\
        --binSize ${bin_size} \\
        --outFileName ${prefix}.peaks.mat.gz \\
        --outFileNameMatrix ${prefix}.peaks.tab \\
        --outFileSortedRegions ${prefix}.peaks.regions.bed \\
        --numberOfProcessors ${task.cpus} \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.peaks.mat.gz ${prefix}.peaks.tab ${prefix}.peaks.regions.bed
    """
}
