process KRAKEN2_BUILDCUSTOM {
    tag 'taxonomic_database_build'
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/kraken2:2.1.3--pl5321hdcf5f25_0' :
        'biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0' }"

    input:
    path(genomes)
    path(taxonomy)

    output:
    path("kraken2_db"), emit: database
    tuple val("${task.process}"), val('kraken2'), eval('{ kraken2 --version | head -n 1 ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_kraken2, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'taxonomic_database_build'
    def tool_params = task.ext.tool_params ?: [:]
    def truthy = ['true', 'True', 'yes', '1']
    def kmer_len = tool_params.kmer_len ?: 35
    def minimizer_len = tool_params.minimizer_len ?: 31
    def minimizer_spaces = tool_params.minimizer_spaces != null ? tool_params.minimizer_spaces : 7
    def masking = tool_params.masking?.toString() in truthy
    def clean = tool_params.clean?.toString() in truthy
    def genome_files = [genomes].flatten().join(' ')
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    kraken2_build_db.sh \\
        --db kraken2_db \\
        --taxonomy ${taxonomy} \\
        --masking ${masking} \\
        --clean ${clean} \\
        --threads ${task.cpus} \\
        --kmer-len ${kmer_len} \\
        --minimizer-len ${minimizer_len} \\
        --minimizer-spaces ${minimizer_spaces} \\
        ${genome_files} \\
        -- ${args}
    """

    stub:
    prefix = task.ext.prefix ?: 'taxonomic_database_build'
    """
    mkdir -p kraken2_db/taxonomy
    touch kraken2_db/hash.k2d kraken2_db/opts.k2d kraken2_db/taxo.k2d
    """
}
