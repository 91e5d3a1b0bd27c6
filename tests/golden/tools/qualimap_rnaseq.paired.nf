process QUALIMAP_RNASEQ {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/qualimap:2.3--hdfd78af_0' :
        'biocontainers/qualimap:2.3--hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.rnaseq_qc_results.txt"), emit: report
    tuple val("${task.process}"), val('qualimap'), eval('{ qualimap 2>&1 | sed -n \'s/.*QualiMap v[.]//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_qualimap, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def strandedness = tp.strandedness in ['strand-specific-forward', 'strand-specific-reverse'] ? tp.strandedness : 'non-strand-specific'
    def memory = (task.memory.toMega() * 0.8).intValue() + 'M'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    export JAVA_OPTS="-Djava.io.tmpdir=\$PWD/tmp"
    mkdir -p tmp
    qualimap \\
        --java-mem-size=${memory} \\
        rnaseq \\
        -bam ${bam} \\
        -gtf ${annotation} \\
        -p ${strandedness} \\
        -pe \\
        -outdir ${prefix} \\
        ${args}
    cp ${prefix}/rnaseq_qc_results.txt ${prefix}.rnaseq_qc_results.txt
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.rnaseq_qc_results.txt
    """
}
