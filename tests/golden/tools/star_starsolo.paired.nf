process STAR_STARSOLO {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/star:2.7.10a--h9ee0642_0' :
        'biocontainers/star:2.7.10a--h9ee0642_0' }"

    input:
    tuple val(meta), val(sample_ids), path(reads, stageAs: 'reads/*')
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}/matrix.mtx.gz"), emit: adata
    tuple val(meta), path("${prefix}/barcodes.tsv.gz"), emit: barcodes
    tuple val(meta), path("${prefix}/features.tsv.gz"), emit: features
    tuple val(meta), path("${prefix}.Summary.csv"), emit: summary
    tuple val("${task.process}"), val('star'), eval('{ STAR --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_star, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def sa_index_nbases = tp.sa_index_nbases != null ? tp.sa_index_nbases : 'auto'
    def sjdb_overhang = tp.sjdb_overhang != null ? tp.sjdb_overhang : 100
    def whitelist = tp.whitelist ?: 'None'
    def cb_start = tp.cb_start ?: 1
    def cb_len = tp.cb_len ?: 16
    def umi_start = tp.umi_start ?: 17
    def umi_len = tp.umi_len ?: 12
    def memory = task.memory ? "--limitGenomeGenerateRAM ${task.memory.toBytes()}" : ''
    // R1 (barcode + UMI) and R2 (cDNA) of each library, in name order; STAR takes the cDNA first
    def mates = [reads].flatten().sort { f -> f.name }.collate(2).transpose()
    // the STAR index (genome + the GTF's genes and junctions) is built here, for this step only;
    // sa_index_nbases `auto`: min(14, floor(log2(genome length) / 2 - 1)), at least 4
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    n='${sa_index_nbases}'
    if [ "\$n" = auto ]; then
        n=\$(awk '!/^>/ { s += length(\$0) } END { n = int(log(s) / log(2) / 2 - 1); print (n > 14 ? 14 : (n < 4 ? 4 : n)) }' ${genome})
    fi
    gtf=${annotation}
    case "\$gtf" in *.gz) gunzip -c "\$gtf" > annotation.gtf; gtf=annotation.gtf;; esac
    mkdir -p star_index
    STAR \\
        --runMode genomeGenerate \\
        --runThreadN ${task.cpus} \\
        --genomeDir star_index \\
        --genomeFastaFiles ${genome} \\
        --genomeSAindexNbases "\$n" \\
        --sjdbGTFfile "\$gtf" \\
        --sjdbOverhang '${sjdb_overhang}' \\
        ${memory} \\
        --outTmpDir "\$PWD/index_tmp" \\
        --outFileNamePrefix ${prefix}.index.
    STAR \\
        --runThreadN ${task.cpus} \\
        --genomeDir star_index \\
        --readFilesIn ${mates[1].join(',')} ${mates[0].join(',')} \\
        --readFilesCommand zcat \\
        --outSAMtype None \\
        --outFileNamePrefix ${prefix}. \\
        --soloType CB_UMI_Simple \\
        --soloCBwhitelist ${whitelist} \\
        --soloCBstart ${cb_start} \\
        --soloCBlen ${cb_len} \\
        --soloUMIstart ${umi_start} \\
        --soloUMIlen ${umi_len} \\
        ${args}
    mkdir -p ${prefix}
    gzip -c ${prefix}.Solo.out/Gene/raw/matrix.mtx > ${prefix}/matrix.mtx.gz
    gzip -c ${prefix}.Solo.out/Gene/raw/barcodes.tsv > ${prefix}/barcodes.tsv.gz
    gzip -c ${prefix}.Solo.out/Gene/raw/features.tsv > ${prefix}/features.tsv.gz
    cp ${prefix}.Solo.out/Gene/Summary.csv ${prefix}.Summary.csv
    rm -rf star_index
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    mkdir -p ${prefix}
    touch ${prefix}/matrix.mtx.gz ${prefix}/barcodes.tsv.gz ${prefix}/features.tsv.gz ${prefix}.Summary.csv
    """
}
