process SNPEFF {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/snpeff:5.1--hdfd78af_2' :
        'biocontainers/snpeff:5.1--hdfd78af_2' }"

    input:
    tuple val(meta), path(vcf)
    path(genome)
    path(annotation)

    output:
    tuple val(meta), path("${prefix}.annotated.vcf"), emit: vcf
    tuple val(meta), path("${prefix}.snpeff_summary.html"), emit: html
    tuple val(meta), path("${prefix}.snpeff_summary.csv"), emit: csv
    tuple val(meta), path("snpeff_db"), emit: db
    tuple val("${task.process}"), val('snpeff'), eval('{ snpEff -version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_snpeff, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def genome_name = tp.genome_name != null ? tp.genome_name : 'custom_genome'
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 6400
    // One process, two steps (the Snakemake target has two rules): build a SnpEff database from the
    // workflow's genome FASTA + GTF (never downloaded), then annotate the VCF with it.
    // Only the lines from ##fileformat on are kept: Debian's snpEff wrapper may echo its arguments.
    """
    mkdir -p 'snpeff_db/data/${genome_name}'
    case ${genome} in
        *.gz) gzip -cd ${genome} ;;
        *) cat ${genome} ;;
    esac > 'snpeff_db/data/${genome_name}/sequences.fa'
    case ${annotation} in
        *.gz) gzip -cd ${annotation} ;;
        *) cat ${annotation} ;;
    esac > 'snpeff_db/data/${genome_name}/genes.gtf'
    printf 'data.dir = ./data/\\n%s.genome : %s\\n' '${genome_name}' '${genome_name}' > snpeff_db/snpEff.config
    snpEff \\
        -Xmx${avail_mem}m \\
        build \\
        -gtf22 \\
        -noCheckCds \\
        -noCheckProtein \\
        -v \\
        -c snpeff_db/snpEff.config \\
        '${genome_name}' \\
        > ${prefix}.snpeff_build.log 2>&1 \\
        || { cat ${prefix}.snpeff_build.log >&2; exit 1; }
    snpEff \\
        -Xmx${avail_mem}m \\
        ann \\
        -nodownload \\
        -c snpeff_db/snpEff.config \\
        -stats ${prefix}.snpeff_summary.html \\
        -csvStats ${prefix}.snpeff_summary.csv \\
        ${args} \\
        '${genome_name}' \\
        ${vcf} \\
        | awk 'p += /^##fileformat=/' \\
        > ${prefix}.annotated.vcf
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def genome_name = tp.genome_name != null ? tp.genome_name : 'custom_genome'
    """
    mkdir -p 'snpeff_db/data/${genome_name}'
    touch snpeff_db/snpEff.config 'snpeff_db/data/${genome_name}/snpEffectPredictor.bin'
    touch ${prefix}.annotated.vcf ${prefix}.snpeff_summary.html ${prefix}.snpeff_summary.csv
    """
}
