process SNPEFF_BUILD {
    tag 'variant_annotation_build_db'
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/snpeff:5.1--hdfd78af_2' :
        'biocontainers/snpeff:5.1--hdfd78af_2' }"

    input:
    path(genome)
    path(annotation)

    output:
    path("snpeff_db"), emit: database
    tuple val("${task.process}"), val('snpeff'), eval('{ snpEff -version ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_snpeff, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'variant_annotation_build_db'
    def tp = task.ext.tool_params ?: [:]
    def genome_name = tp.genome_name != null ? tp.genome_name : 'custom_genome'
    def avail_mem = task.memory ? (task.memory.toMega() * 4).intdiv(5) : 6400
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
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
        > snpeff_build.log 2>&1 \\
        || { cat snpeff_build.log >&2; exit 1; }
    """

    stub:
    prefix = task.ext.prefix ?: 'variant_annotation_build_db'
    def tp = task.ext.tool_params ?: [:]
    def genome_name = tp.genome_name != null ? tp.genome_name : 'custom_genome'
    """
    mkdir -p 'snpeff_db/data/${genome_name}'
    printf 'data.dir = ./data/\\n%s.genome : %s\\n' '${genome_name}' '${genome_name}' > snpeff_db/snpEff.config
    touch 'snpeff_db/data/${genome_name}/snpEffectPredictor.bin'
    """
}
