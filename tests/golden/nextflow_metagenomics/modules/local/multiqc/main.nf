process MULTIQC {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/multiqc:1.25.1--pyhdfd78af_0' :
        'biocontainers/multiqc:1.25.1--pyhdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(taxonomic_classification_classification, stageAs: 'taxonomic_classification_classification/*')
    path(software_versions)

    output:
    tuple val(meta), path("${prefix}.multiqc_report.html"), emit: report
    tuple val(meta), path("multiqc_data"), emit: data
    tuple val("${task.process}"), val('multiqc'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'multiqc\'))" 2>/dev/null || multiqc --version | sed -n \'s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_multiqc

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def report_files = [taxonomic_classification_classification, software_versions].flatten().join(' ')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    multiqc \\
        --force \\
        --no-ansi \\
        --cl-config 'no_version_check: true' \\
        --cl-config 'extra_fn_clean_exts: [.kreport]' \\
        ${args} \\
        ${report_files}
    mv multiqc_report.html ${prefix}.multiqc_report.html
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir multiqc_data
    touch ${prefix}.multiqc_report.html multiqc_data/multiqc_general_stats.txt
    """
}
