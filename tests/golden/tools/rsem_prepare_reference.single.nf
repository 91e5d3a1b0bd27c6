process RSEM_PREPAREREFERENCE {
    tag 'transcriptome_indexing'
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "community.wave.seqera.io/library/rsem_star:5acb4e8c03239c32"

    input:
    path(transcriptome)

    output:
    path("rsem"), emit: index
    tuple val("${task.process}"), val('rsem'), eval('{ rsem-calculate-expression --version | sed -e \'s/Current version: RSEM v//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_rsem, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'transcriptome_indexing'
    def tp = task.ext.tool_params ?: [:]
    def aligner = tp.aligner == 'bowtie2' ? '--bowtie2 --transcript-to-gene-map tx2gene.tsv' : '--star --gtf tx.gtf'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${transcriptome} in
        *.gz) gzip -cd ${transcriptome} > transcripts.fa ;;
        *) cat ${transcriptome} > transcripts.fa ;;
    esac
    awk -v map=tx2gene.tsv -v gtf=tx.gtf '
        function flush() { if (tx != "") printf "%s\\trsem\\texon\\t1\\t%d\\t.\\t+\\t.\\tgene_id \\"%s\\"; transcript_id \\"%s\\";\\n", tx, len, gene, tx > gtf }
        /^>/ { flush(); tx = substr(\$1, 2); gene = tx; len = 0
               if (match(\$0, / gene:[^ ]+/)) gene = substr(\$0, RSTART + 6, RLENGTH - 6)
               print gene "\\t" tx > map; next }
        { len += length(\$0) }
        END { flush() }' transcripts.fa
    mkdir -p rsem
    rsem-prepare-reference \\
        --num-threads ${task.cpus} \\
        ${aligner} \\
        ${args} \\
        transcripts.fa \\
        rsem/genome
    """

    stub:
    prefix = task.ext.prefix ?: 'transcriptome_indexing'
    """
    mkdir -p rsem
    touch rsem/genome.grp rsem/genome.ti rsem/genome.seq
    """
}
