process QUAST {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/quast:5.2.0--py39pl5321heaaa4ec_4' :
        'biocontainers/quast:5.2.0--py39pl5321heaaa4ec_4' }"

    input:
    tuple val(meta), path(contigs)

    output:
    tuple val(meta), path("${prefix}.quast_report.tsv"), emit: report
    tuple val(meta), path("${prefix}.quast_report.html"), emit: html
    tuple val("${task.process}"), val('quast'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'quast\'))" 2>/dev/null || quast.py --version 2>&1 | grep QUAST | sed \'s/^.*QUAST v//; s/ .*$//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_quast, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def min_contig = tp.min_contig != null ? tp.min_contig : 500
    def ext = contigs.name.endsWith('.gz') ? '.fa.gz' : '.fa'
    // QUAST names the assembly after its file: a link named after the sample labels the column
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    ln -s "\$(readlink -f ${contigs})" '${prefix}${ext}'
    quast.py \\
        --threads ${task.cpus} \\
        --min-contig ${min_contig} \\
        ${args} \\
        -o quast_out \\
        '${prefix}${ext}'
    cp quast_out/report.tsv ${prefix}.quast_report.tsv
    cp quast_out/report.html ${prefix}.quast_report.html
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.quast_report.tsv ${prefix}.quast_report.html
    """
}
