process STARFUSION_DETECT {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/dfam_hmmer_minimap2_star-fusion:e285bb3eb373b9a7"

    input:
    tuple val(meta), path(chimeric)
    path(ctat_lib)

    output:
    tuple val(meta), path("${prefix}.starfusion.abridged.tsv"), emit: fusions
    tuple val(meta), path("${prefix}.starfusion.fusion_predictions.tsv"), emit: predictions
    tuple val("${task.process}"), val('star-fusion'), eval('{ STAR-Fusion --version 2>&1 | sed -n \'s/.*version: *//p\' | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_star_fusion, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    STAR-Fusion \\
        --genome_lib_dir ${ctat_lib} \\
        -J ${chimeric}/Chimeric.out.junction \\
        --CPU ${task.cpus} \\
        --output_dir . \\
        ${args}
    mv star-fusion.fusion_predictions.abridged.tsv ${prefix}.starfusion.abridged.tsv
    mv star-fusion.fusion_predictions.tsv ${prefix}.starfusion.fusion_predictions.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.starfusion.abridged.tsv ${prefix}.starfusion.fusion_predictions.tsv
    """
}
