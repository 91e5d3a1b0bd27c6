process BISMARK_GENOMEPREPARATION {
    tag 'bisulfite_genome_indexing'
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/bismark:0.24.2--hdfd78af_0' :
        'biocontainers/bismark:0.24.2--hdfd78af_0' }"

    input:
    path(genome)

    output:
    path("bismark_index"), emit: index
    tuple val("${task.process}"), val('bismark'), eval('{ bismark_genome_preparation --version 2>&1 | grep -o \'v[0-9][0-9.]*\' | head -n 1 | cut -c 2- ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_bismark, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: 'bisulfite_genome_indexing'
    // Bismark indexes every FASTA of the folder it is given: the folder holds the genome alone
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    mkdir -p bismark_index
    cp "\$(readlink -f ${genome})" bismark_index/genome.fa
    bismark_genome_preparation \\
        --bowtie2 \\
        --parallel ${task.cpus} \\
        ${args} \\
        bismark_index
    """

    stub:
    prefix = task.ext.prefix ?: 'bisulfite_genome_indexing'
    """
    mkdir -p bismark_index/Bisulfite_Genome/CT_conversion bismark_index/Bisulfite_Genome/GA_conversion
    touch bismark_index/genome.fa
    touch bismark_index/Bisulfite_Genome/CT_conversion/BS_CT.{1,2,3,4}.bt2 bismark_index/Bisulfite_Genome/GA_conversion/BS_GA.{1,2,3,4}.bt2
    """
}
