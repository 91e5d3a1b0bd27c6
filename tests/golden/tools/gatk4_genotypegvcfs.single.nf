process GATK4_GENOTYPEGVCFS {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gatk4:4.5.0.0--py36hdfd78af_0' :
        'biocontainers/gatk4:4.5.0.0--py36hdfd78af_0' }"

    input:
    tuple val(meta), path(combined)
    path(genome)

    output:
    tuple val(meta), path("${prefix}.joint_genotyped.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.joint_genotyped.vcf.gz.tbi"), emit: tbi
    tuple val("${task.process}"), val('gatk4'), eval('{ gatk --version | sed -n \'/GATK.*v/s/.*v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gatk4, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    combined=${combined}
    if [ -d "\$combined" ]; then
        combined="gendb://\$combined"
    else
        [ -e "\$combined.tbi" ] || gatk IndexFeatureFile -I "\$combined"
    fi
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    gatk CreateSequenceDictionary -R ref/genome.fa -O ref/genome.dict
    gatk --java-options "-Xmx${avail_mem}m" \\
        GenotypeGVCFs \\
        --variant "\$combined" \\
        --reference ref/genome.fa \\
        --output ${prefix}.joint_genotyped.vcf.gz \\
        --tmp-dir gatk_tmp \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.joint_genotyped.vcf.gz
    touch ${prefix}.joint_genotyped.vcf.gz.tbi
    """
}
