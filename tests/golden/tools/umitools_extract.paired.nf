process UMITOOLS_EXTRACT {
    tag "${meta.id}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/umi_tools_future_matplotlib_numpy_pruned:1ee668bafc8c9f81"

    input:
    tuple val(meta), path(reads)

    output:
    tuple val(meta), path("${prefix}.umi_extract*.fastq.gz"), emit: extracted
    tuple val(meta), path("${prefix}.umi_extract.log"), emit: log
    tuple val("${task.process}"), val('umi_tools'), eval('{ python -c "import importlib.metadata as m; print(m.version(\'umi_tools\'))" 2>/dev/null || umi_tools --version | sed -n \'s/.*version: *//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_umi_tools, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def bc_pattern = tp.bc_pattern ?: 'NNNNNNNN'
    def extract_method = tp.extract_method == 'regex' ? 'regex' : 'string'
    def fq = [reads].flatten()
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    umi_tools \\
        extract \\
        --extract-method=${extract_method} \\
        --bc-pattern='${bc_pattern}' \\
        -I ${fq[0]} \\
        --read2-in=${fq[1]} \\
        -S ${prefix}.umi_extract_1.fastq.gz \\
        --read2-out=${prefix}.umi_extract_2.fastq.gz \\
        ${args} \\
        -L ${prefix}.umi_extract.log
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.umi_extract_1.fastq.gz
    echo "" | gzip > ${prefix}.umi_extract_2.fastq.gz
    touch ${prefix}.umi_extract.log
    """
}
