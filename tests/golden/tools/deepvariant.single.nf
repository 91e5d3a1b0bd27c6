process DEEPVARIANT_RUNDEEPVARIANT {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "docker.io/google/deepvariant:1.5.0"

    input:
    tuple val(meta), path(bam)
    path(genome)

    output:
    tuple val(meta), path("${prefix}.deepvariant.g.vcf.gz"), emit: gvcf
    tuple val(meta), path("${prefix}.deepvariant.g.vcf.gz.tbi"), emit: tbi
    tuple val(meta), path("${prefix}.deepvariant.vcf.gz"), emit: vcf
    tuple val(meta), path("${prefix}.deepvariant.vcf.gz.tbi"), emit: vcf_tbi
    tuple val("${task.process}"), val('deepvariant'), eval('{ run_deepvariant --version | sed \'s/^.*version //; s/ .*$//\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_deepvariant, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def model_type = task.ext.tool_params?.model_type ?: 'WGS'
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    run_deepvariant \\
        --model_type=${model_type} \\
        --ref=ref/genome.fa \\
        --reads=${bam} \\
        --output_vcf=${prefix}.deepvariant.vcf.gz \\
        --output_gvcf=${prefix}.deepvariant.g.vcf.gz \\
        --num_shards=${task.cpus} \\
        --intermediate_results_dir=intermediate \\
        ${args}
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo "" | gzip > ${prefix}.deepvariant.g.vcf.gz
    echo "" | gzip > ${prefix}.deepvariant.vcf.gz
    touch ${prefix}.deepvariant.g.vcf.gz.tbi ${prefix}.deepvariant.vcf.gz.tbi
    """
}
