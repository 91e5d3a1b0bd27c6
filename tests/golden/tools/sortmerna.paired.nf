process SORTMERNA {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/sortmerna:4.3.7--b730cad73fc42b8e"

    input:
    tuple val(meta), path(reads)
    path(database)

    output:
    tuple val(meta), path("${prefix}.non_rRNA*.fastq.gz"), emit: filtered
    tuple val(meta), path("${prefix}.sortmerna.log"), emit: log
    tuple val("${task.process}"), val('sortmerna'), eval('{ sortmerna --version 2>&1 | grep -oE \'[0-9]+[.][0-9]+[.][0-9]+\' | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_sortmerna, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    sortmerna \\
        --ref ${database} \\
        --reads ${fq[0]} \\
        --reads ${fq[1]} \\
        --paired_in \\
        --out2 \\
        --threads ${task.cpus} \\
        --workdir . \\
        --fastx \\
        --aligned rRNA_reads \\
        --other non_rRNA_reads \\
        ${args}
    # SortMeRNA writes .fq.gz for gzipped reads and .fq for plain ones
    gz() { if [ -e "\$1.fq.gz" ]; then mv "\$1.fq.gz" "\$2"; else gzip -c "\$1.fq" > "\$2"; fi; }
    gz non_rRNA_reads_fwd ${prefix}.non_rRNA_1.fastq.gz
    gz non_rRNA_reads_rev ${prefix}.non_rRNA_2.fastq.gz
    mv rRNA_reads.log ${prefix}.sortmerna.log
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.non_rRNA_1.fastq.gz
    echo "" | gzip > ${prefix}.non_rRNA_2.fastq.gz
    touch ${prefix}.sortmerna.log
    """
}
