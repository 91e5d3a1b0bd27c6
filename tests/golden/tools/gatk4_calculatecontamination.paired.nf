process GATK4_CALCULATECONTAMINATION {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/gatk4:4.5.0.0--py36hdfd78af_0' :
        'biocontainers/gatk4:4.5.0.0--py36hdfd78af_0' }"

    input:
    tuple val(meta), val(sample_ids), path(bams, stageAs: 'bams/*')
    path(genome)
    path(common_sites)

    output:
    tuple val(meta), path("${prefix}.contamination.tsv"), emit: table
    tuple val(meta), path("${prefix}.contamination_segments.tsv"), emit: segments
    tuple val("${task.process}"), val('gatk4'), eval('{ gatk --version | sed -n \'/GATK.*v/s/.*v//p\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_gatk4, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def bam_files = [bams].flatten()
    def normal_sample = task.ext.tool_params?.normal_sample ?: ''
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 3072
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    for bam in ${bam_files.join(' ')}; do
        [ -e "\$bam.bai" ] || gatk BuildBamIndex -I "\$bam" -O "\$bam.bai"
    done
    [ -e ${common_sites}.tbi ] || gatk IndexFeatureFile -I ${common_sites}
    mkdir -p ref gatk_tmp
    case ${genome} in
        *.gz) gzip -cd ${genome} > ref/genome.in.fa ;;
        *) ln -s "\$(readlink -f ${genome})" ref/genome.in.fa ;;
    esac
    fasta_for_gatk.awk fai=ref/genome.fa.fai ref/genome.in.fa > ref/genome.fa
    gatk CreateSequenceDictionary -R ref/genome.fa -O ref/genome.dict
    mkdir -p pileups
    for bam in ${bam_files.join(' ')}; do
        sample=\$(bam_sample_name.sh "\$bam")
        gatk --java-options "-Xmx${avail_mem}m" \\
            GetPileupSummaries \\
            --input "\$bam" \\
            --variant ${common_sites} \\
            --intervals ${common_sites} \\
            --reference ref/genome.fa \\
            --output "pileups/\$sample.table" \\
            ${args}
    done
    normal='${normal_sample}'
    if [ -n "\$normal" ] && [ ! -e "pileups/\$normal.table" ]; then
        echo "normal_sample '\$normal' is none of the BAMs' samples: \$(ls pileups)" >&2
        exit 1
    fi
    printf 'sample\\tcontamination\\terror\\n' > ${prefix}.contamination.tsv
    printf 'sample\\tcontig\\tstart\\tend\\tminor_allele_fraction\\n' > ${prefix}.contamination_segments.tsv
    for table in pileups/*.table; do
        sample=\$(basename "\$table" .table)
        [ "\$sample" = "\$normal" ] && continue
        matched=""
        [ -n "\$normal" ] && matched="--matched-normal pileups/\$normal.table"
        gatk --java-options "-Xmx${avail_mem}m" \\
            CalculateContamination \\
            --input "\$table" \\
            \$matched \\
            --output "\$sample.contamination" \\
            --tumor-segmentation "\$sample.segments"
        grep -v -e '^#' -e '^sample' "\$sample.contamination" >> ${prefix}.contamination.tsv
        grep -v -e '^#' -e '^contig' "\$sample.segments" | S="\$sample" awk 'BEGIN { OFS = "\\t"; s = ENVIRON["S"] } { print s, \$0 }' >> ${prefix}.contamination_segments.tsv
    done
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'sample\\tcontamination\\terror\\n' > ${prefix}.contamination.tsv
    printf 'sample\\tcontig\\tstart\\tend\\tminor_allele_fraction\\n' > ${prefix}.contamination_segments.tsv
    """
}
