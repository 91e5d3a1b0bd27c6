process BISMARK_COVERAGE2CYTOSINE {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bismark:0.24.2--hdfd78af_0' :
        'biocontainers/bismark:0.24.2--hdfd78af_0' }"

    input:
    tuple val(meta), path(calls)
    path(genome)

    output:
    tuple val(meta), path("${prefix}.CpG_report.txt.gz"), emit: report
    tuple val("${task.process}"), val('bismark'), eval('{ coverage2cytosine --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bismark, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // coverage2cytosine reads every FASTA of --genome_folder: a folder holding the genome alone
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p genome_folder
    ln -s "\$(readlink -f ${genome})" genome_folder/genome.fa
    coverage2cytosine \\
        --gzip \\
        --genome_folder genome_folder \\
        -o ${prefix} \\
        ${args} \\
        ${calls}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.CpG_report.txt.gz
    """
}
