process MANTA_GERMLINE {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/manta:1.6.0--h9ee0642_1' :
        'biocontainers/manta:1.6.0--h9ee0642_1' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(genome)

    output:
    tuple val(meta), path("${prefix}.manta_diploid_sv.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.manta_diploid_sv.vcf.gz.tbi"), emit: tbi
    tuple val(meta), path("${prefix}.manta_candidate_small_indels.vcf.gz"), emit: small_indels
    tuple val("${task.process}"), val('manta'), eval('{ configManta.py --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_manta, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def input_args = bam_files.collect { bam -> "--bam ${bam}" }.join(' ')
    def mem_gb = task.memory ? task.memory.toGiga() : 4
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for bam in ${bam_files.join(' ')}; do
        [ -e "\$bam.bai" ] || samtools index "\$bam"
    done
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    configManta.py \\
        ${input_args} \\
        --referenceFasta ref/genome.fa \\
        --runDir manta \\
        ${args}
    python manta/runWorkflow.py -m local -j ${task.cpus} -g ${mem_gb}
    cp manta/results/variants/diploidSV.vcf.gz ${prefix}.manta_diploid_sv.vcf.gz
    cp manta/results/variants/diploidSV.vcf.gz.tbi ${prefix}.manta_diploid_sv.vcf.gz.tbi
    cp manta/results/variants/candidateSmallIndels.vcf.gz ${prefix}.manta_candidate_small_indels.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.manta_diploid_sv.vcf.gz
    echo "" | gzip > ${prefix}.manta_candidate_small_indels.vcf.gz
    touch ${prefix}.manta_diploid_sv.vcf.gz.tbi
    """
}
