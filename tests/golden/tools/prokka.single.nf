process PROKKA {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' && !task.ext.singularity_pull_docker_container ?
        'https://depot.galaxyproject.org/singularity/prokka:1.14.6--pl5321hdfd78af_4' :
        'biocontainers/prokka:1.14.6--pl5321hdfd78af_4' }"

    input:
    tuple val(meta), path(contigs)

    output:
    tuple val(meta), path("${prefix}.prokka.gff"), emit: annotation
    tuple val(meta), path("${prefix}.prokka.faa"), emit: proteins
    tuple val(meta), path("${prefix}.prokka.gbk"), emit: genbank
    tuple val("${task.process}"), val('prokka'), eval('{ prokka --version 2>&1 | sed \'s/^.*prokka //\' ; } 2>&1 | grep -oE \'[0-9]+([.][0-9]+)+[a-z]?\' | sed -n 1p | grep .'), emit: versions_prokka, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    prefix = task.ext.prefix ?: "${meta.id}"
    def tp = task.ext.tool_params ?: [:]
    def kingdom = tp.kingdom ?: 'Bacteria'
    def metagenome = (tp.metagenome == null || tp.metagenome.toString() in ['true', 'True', 'yes', '1']) ? '--metagenome' : ''
    // GenBank allows 37 characters per contig id: longer ids are renamed by --compliant
    """
    export OMP_NUM_THREADS=${task.cpus} GOTO_NUM_THREADS=${task.cpus} OPENBLAS_NUM_THREADS=${task.cpus} \\
        MKL_NUM_THREADS=${task.cpus} VECLIB_MAXIMUM_THREADS=${task.cpus} NUMEXPR_NUM_THREADS=${task.cpus}
    case ${contigs} in
        *.gz) gzip -cd ${contigs} > contigs.input.fa ;;
        *) ln -s "\$(readlink -f ${contigs})" contigs.input.fa ;;
    esac
    compliant=''
    if grep '^>' contigs.input.fa | awk '{ if (length(\$1) > 38) bad = 1 } END { exit !bad }'; then
        compliant='--compliant --centre bioplan'
    fi
    rm -rf prokka_out
    prokka \\
        --cpus ${task.cpus} \\
        --kingdom ${kingdom} \\
        ${metagenome} \\
        \$compliant \\
        ${args} \\
        --outdir prokka_out \\
        --prefix annotation \\
        contigs.input.fa
    cp prokka_out/annotation.gff ${prefix}.prokka.gff
    cp prokka_out/annotation.faa ${prefix}.prokka.faa
    cp prokka_out/annotation.gbk ${prefix}.prokka.gbk
    """

    stub:
    prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.prokka.gff ${prefix}.prokka.faa ${prefix}.prokka.gbk
    """
}
