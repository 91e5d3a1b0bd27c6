process GATK4_BQSR {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gatk4:4.5.0.0--py36hdfd78af_0' :
        'biocontainers/gatk4:4.5.0.0--py36hdfd78af_0' }"

    input:
    tuple val(meta), path(bam)
    path(genome)
    path(known_sites)

    output:
    tuple val(meta), path("${prefix}.recal.bam"), emit: bam
    tuple val(meta), path("${prefix}.recal.bam.bai"), emit: bai
    tuple val(meta), path("${prefix}.recal.table"), emit: table
    tuple val("${task.process}"), val('gatk4'), eval('{ gatk --version | sed -n \'/GATK.*v/s/.*v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gatk4, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    // Java heap: 80% of the task memory
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    gatk CreateSequenceDictionary -R ref/genome.fa -O ref/genome.dict
    [ -e ${bam}.bai ] || gatk BuildBamIndex -I ${bam} -O ${bam}.bai
    [ -e ${known_sites}.tbi ] || gatk IndexFeatureFile -I ${known_sites}
    gatk --java-options "-Xmx${avail_mem}m" \\
        BaseRecalibrator \\
        --input ${bam} \\
        --reference ref/genome.fa \\
        --known-sites ${known_sites} \\
        --output ${prefix}.recal.table \\
        --tmp-dir gatk_tmp \\
        ${args}
    gatk --java-options "-Xmx${avail_mem}m" \\
        ApplyBQSR \\
        --input ${bam} \\
        --reference ref/genome.fa \\
        --bqsr-recal-file ${prefix}.recal.table \\
        --output ${prefix}.recal.bam \\
        --tmp-dir gatk_tmp
    mv ${prefix}.recal.bai ${prefix}.recal.bam.bai
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.recal.bam ${prefix}.recal.bam.bai ${prefix}.recal.table
    """
}
