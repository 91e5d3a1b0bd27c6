process IDR {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/idr:2.0.4.2--py39hcbe4a3b_5' :
        'biocontainers/idr:2.0.4.2--py39hcbe4a3b_5' }"

    input:
    tuple val(meta), val(sample_ids), path(peaks, stageAs: 'peaks/*')

    output:
    tuple val(meta), path("${prefix}.idr_reproducible.narrowPeak"), emit: peaks
    tuple val(meta), path("${prefix}.idr_values.txt"), emit: idr
    tuple val(meta), path("${prefix}.idr_values.txt.png"), emit: plot
    tuple val(meta), path("${prefix}.idr_log.txt"), emit: log
    tuple val("${task.process}"), val('idr'), eval('{ idr --version 2>&1 | sed \'s/^.*IDR //; s/ .*$//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_idr, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def threshold = tp.threshold != null ? tp.threshold : 0.05
    def rank = tp.rank ?: 'signal.value'
    def peak_files = [peaks].flatten()
    if (peak_files.size() != 2) {
        error "IDR compares exactly two replicates; the workflow has ${peak_files.size()} samples: give two samples (replicates) in the sample sheet"
    }
    // column 12 of IDR's output is -log10(global IDR): keep the peaks at or under the threshold
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    idr \\
        --samples ${peak_files.join(' ')} \\
        --input-file-type narrowPeak \\
        --rank ${rank} \\
        --output-file ${prefix}.idr_values.txt \\
        --log-output-file ${prefix}.idr_log.txt \\
        --plot \\
        ${args}
    awk -v t=${threshold} 'BEGIN { OFS = "\\t"; m = -log(t) / log(10) } \$12 >= m { print \$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8, \$9, \$10 }' \\
        ${prefix}.idr_values.txt > ${prefix}.idr_reproducible.narrowPeak
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.idr_reproducible.narrowPeak ${prefix}.idr_values.txt ${prefix}.idr_values.txt.png ${prefix}.idr_log.txt
    """
}
