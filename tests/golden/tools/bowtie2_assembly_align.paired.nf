process BOWTIE2_ASSEMBLYALIGN {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/mulled-v2-ac74a7f02cebcfcc07d8e8d1d750af9c83b4d45a:a0ffedb52808e102887f6ce600d092675bf3528a-0' :
        'biocontainers/mulled-v2-ac74a7f02cebcfcc07d8e8d1d750af9c83b4d45a:a0ffedb52808e102887f6ce600d092675bf3528a-0' }"

    input:
    tuple val(meta), path(reads), path(contigs)

    output:
    tuple val(meta), path("${prefix}.contigs.bam"), emit: bam
    tuple val(meta), path("${prefix}.contigs.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.bowtie2_assembly.log"), emit: log
    tuple val("${task.process}"), val('bowtie2'), eval('{ bowtie2 --version 2>&1 | sed -n \'1s/.* version //p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bowtie2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def fq = [reads].flatten()
    // the contigs' index is per sample and scratch (nf-core/mag: BOWTIE2_ASSEMBLY_BUILD + _ALIGN)
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${contigs} in
        *.gz) gzip -cd ${contigs} > contigs.input.fa ;;
        *) ln -s "\$(readlink -f ${contigs})" contigs.input.fa ;;
    esac
    mkdir -p contigs_index
    bowtie2-build --threads ${task.cpus} contigs.input.fa contigs_index/contigs > ${prefix}.bowtie2_assembly.log 2>&1
    bowtie2 \\
        --threads ${task.cpus} \\
        -x contigs_index/contigs \\
        -1 ${fq[0]} \\
        -2 ${fq[1]} \\
        ${args} \\
        2> >(tee -a ${prefix}.bowtie2_assembly.log >&2) \\
        | samtools sort -@ ${task.cpus} -o ${prefix}.contigs.bam -
    samtools index ${prefix}.contigs.bam ${prefix}.contigs.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.contigs.bam ${prefix}.contigs.bam.bai ${prefix}.bowtie2_assembly.log
    """
}
