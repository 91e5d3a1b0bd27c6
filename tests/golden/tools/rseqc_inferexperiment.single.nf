process RSEQC_INFEREXPERIMENT {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/rseqc_r-base:2e29d2dfda9cef15"

    input:
    tuple val(meta), path(bam)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.infer_experiment.txt"), emit: report
    tuple val("${task.process}"), val('rseqc'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'RSeQC\'))" 2>/dev/null || infer_experiment.py --version 2>&1 | sed \'s/infer_experiment.py //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_rseqc, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def sample_size = tp.sample_size != null ? tp.sample_size : 200000
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    gtf_to_bed12.sh ${annotation} > genes.bed
    infer_experiment.py \\
        -i ${bam} \\
        -r genes.bed \\
        -s ${sample_size} \\
        ${args} \\
        > ${prefix}.infer_experiment.txt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.infer_experiment.txt
    """
}
