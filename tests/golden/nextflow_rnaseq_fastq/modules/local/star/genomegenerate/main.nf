process STAR_GENOMEGENERATE {
    tag 'genome_indexing'
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/star:2.7.10a--h9ee0642_0' :
        'biocontainers/star:2.7.10a--h9ee0642_0' }"

    input:
    path(genome)
    path(annotation)

    output:
    path("star_index"), emit: index
    tuple val("${task.process}"), val('star'), eval('{ STAR --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_star, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'genome_indexing'
    def tp = task.ext.tool_params ?: [:]
    def sa_index_nbases = tp.sa_index_nbases != null ? tp.sa_index_nbases : 'auto'
    def sjdb_overhang = tp.sjdb_overhang != null ? tp.sjdb_overhang : 100
    def memory = task.memory ? "--limitGenomeGenerateRAM ${task.memory.toBytes()}" : ''
    // sa_index_nbases `auto`: min(14, floor(log2(genome length) / 2 - 1)), at least 4, so small genomes index correctly
    // the GTF's splice junctions go into the index (--sjdbGTFfile); STAR reads the GTF uncompressed
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
        --outTmpDir "\$PWD/star_tmp" \\
        --outFileNamePrefix ${prefix}. \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: 'genome_indexing'
    """
    mkdir -p star_index
    touch star_index/Genome star_index/SA star_index/SAindex star_index/chrName.txt star_index/genomeParameters.txt
    """
}
