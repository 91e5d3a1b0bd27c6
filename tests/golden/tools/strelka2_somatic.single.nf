process STRELKA_SOMATIC {
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
    tuple val(meta), path("${prefix}.strelka_somatic.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.strelka_somatic.vcf.gz.tbi"), emit: tbi
    tuple val(meta), path("${prefix}.strelka_somatic.indels.vcf.gz"), emit: indels
    tuple val("${task.process}"), val('strelka'), eval('{ configureStrelkaSomaticWorkflow.py --version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_strelka, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def normal_sample = task.ext.tool_params?.normal_sample ?: ''
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    normal=""
    tumour=""
    for bam in ${bam_files.join(' ')}; do
        [ -e "\$bam.bai" ] || samtools index "\$bam"
        if [ "\$(bam_sample_name.sh "\$bam")" = '${normal_sample}' ]; then
            normal=\$bam
        else
            tumour=\$bam
        fi
    done
    if [ ${bam_files.size()} -ne 2 ] || [ -z "\$normal" ] || [ -z "\$tumour" ]; then
        echo "Strelka2 somatic needs exactly two BAMs, one of them the normal_sample '${normal_sample}'" >&2
        exit 1
    fi
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    configureStrelkaSomaticWorkflow.py \\
        --normalBam "\$normal" \\
        --tumorBam "\$tumour" \\
        --referenceFasta ref/genome.fa \\
        --runDir strelka \\
        ${args}
    python strelka/runWorkflow.py -m local -j ${task.cpus}
    variants=strelka/results/variants
    zcat \$variants/somatic.snvs.vcf.gz | grep '^##' > header.snvs
    zcat \$variants/somatic.indels.vcf.gz | grep '^##' | grep -v -x -F -f header.snvs > header.indels || true
    (
        cat header.snvs header.indels
        zcat \$variants/somatic.snvs.vcf.gz | grep '^#CHROM'
        zcat \$variants/somatic.snvs.vcf.gz \$variants/somatic.indels.vcf.gz | grep -v '^#' | sort -k1,1V -k2,2n || true
    ) | bgzip -c > ${prefix}.strelka_somatic.vcf.gz
    tabix -p vcf ${prefix}.strelka_somatic.vcf.gz
    cp \$variants/somatic.indels.vcf.gz ${prefix}.strelka_somatic.indels.vcf.gz
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.strelka_somatic.vcf.gz
    echo "" | gzip > ${prefix}.strelka_somatic.indels.vcf.gz
    touch ${prefix}.strelka_somatic.vcf.gz.tbi
    """
}
