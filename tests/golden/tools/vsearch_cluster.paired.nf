process VSEARCH_CLUSTER {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/vsearch:2.21.1--h95f258a_0' :
        'biocontainers/vsearch:2.21.1--h95f258a_0' }"

    input:
    tuple val(meta), path(table)

    output:
    tuple val(meta), path("${prefix}.otu_table.tsv"), emit: table
    tuple val(meta), path("${prefix}.otu_members.tsv"), emit: members
    tuple val("${task.process}"), val('vsearch'), eval('{ vsearch --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_vsearch, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def identity = tp.identity != null ? tp.identity : 0.97
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    otu_table.awk mode=fasta ${table} > asvs.fa
    vsearch --cluster_size asvs.fa --id ${identity} --sizein --sizeout --qmask none \\
        --uc clusters.uc --centroids centroids.fa --threads ${task.cpus} ${args}
    otu_table.awk mode=table members=${prefix}.otu_members.tsv clusters.uc ${table} > ${prefix}.otu_table.tsv
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'asv_id\\tsequence\\n' > ${prefix}.otu_table.tsv
    touch ${prefix}.otu_members.tsv
    """
}
