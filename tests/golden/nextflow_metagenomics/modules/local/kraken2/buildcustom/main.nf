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
    def masking = tool_params.masking?.toString() in truthy ? '' : '--no-masking'
    def clean = tool_params.clean?.toString() in truthy
    def genome_files = [genomes].flatten().join(' ')
    """
    db=kraken2_db
    mkdir -p "\$db/taxonomy"
    acc=no
    if [ -d ${taxonomy} ]; then
        cp ${taxonomy}/nodes.dmp ${taxonomy}/names.dmp "\$db/taxonomy/"
        for m in ${taxonomy}/*.accession2taxid; do
            if [ -e "\$m" ]; then
                ln -s "\$(readlink -f "\$m")" "\$db/taxonomy/"
                acc=yes
            fi
        done
    else
        tar -xzf ${taxonomy} -C "\$db/taxonomy" nodes.dmp names.dmp
    fi
    # One library file in input order: a reproducible seqid2taxid.map and database.
    fasta="\$db/genomes_to_add.fna"
    : >"\$fasta"
    for f in ${genome_files}; do
        case "\$f" in
            *.gz) gzip -dc "\$f" | awk 1 >>"\$fasta" ;;
            *) awk 1 "\$f" >>"\$fasta" ;;
        esac
    done
    n_seq=\$(grep -c '^>' "\$fasta" || true)
    n_tax=\$(grep -c '^>.*kraken:taxid|[0-9]' "\$fasta" || true)
    if [ "\$n_seq" -eq 0 ]; then
        echo "ERROR: the genome FASTA files hold no FASTA record" >&2
        exit 1
    fi
    if [ "\$n_tax" -ne "\$n_seq" ] && [ "\$acc" = no ]; then
        echo "ERROR: only \$n_tax of \$n_seq FASTA headers carry kraken:taxid|<taxid>." >&2
        echo "Add the taxid to every header (>seqid|kraken:taxid|562 description)" >&2
        echo "or put NCBI *.accession2taxid files next to nodes.dmp/names.dmp." >&2
        grep '^>' "\$fasta" | grep -v 'kraken:taxid|[0-9]' | head -n 5 >&2
        exit 1
    fi
    kraken2-build --add-to-library "\$fasta" --db "\$db" ${masking}
    rm -f "\$fasta"
    kraken2-build \\
        --build \\
        --db "\$db" \\
        --threads ${task.cpus} \\
        --kmer-len ${kmer_len} \\
        --minimizer-len ${minimizer_len} \\
        --minimizer-spaces ${minimizer_spaces} \\
        ${args}
    if [ "${clean}" = true ]; then
        kraken2-build --clean --db "\$db"
    fi
    """

    stub:
    prefix = task.ext.prefix ?: 'taxonomic_database_build'
    """
    mkdir -p kraken2_db/taxonomy
    touch kraken2_db/hash.k2d kraken2_db/opts.k2d kraken2_db/taxo.k2d
    """
}
