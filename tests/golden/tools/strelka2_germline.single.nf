process STRELKA_GERMLINE {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/strelka:2.9.10--h9ee0642_1' :
        'biocontainers/strelka:2.9.10--h9ee0642_1' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(genome)

    output:
    tuple val(meta), path("${prefix}.strelka_germline.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.strelka_germline.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('strelka'), eval('{ configureStrelkaGermlineWorkflow.py --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_strelka, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def input_args = bam_files.collect { bam -> "--bam ${bam}" }.join(' ')
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
    configureStrelkaGermlineWorkflow.py \\
        ${input_args} \\
        --referenceFasta ref/genome.fa \\
        --runDir strelka \\
        ${args}
    python strelka/runWorkflow.py -m local -j ${task.cpus}
    cp strelka/results/variants/variants.vcf.gz ${prefix}.strelka_germline.vcf.gz
    cp strelka/results/variants/variants.vcf.gz.tbi ${prefix}.strelka_germline.vcf.gz.tbi
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.strelka_germline.vcf.gz
    touch ${prefix}.strelka_germline.vcf.gz.tbi
    """
}
