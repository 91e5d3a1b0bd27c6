rule taxonomic_database_build:
    input:
        genomes=config["inputs"]["reference_sequences"],
        taxonomy=config["inputs"]["taxonomy_dump"],
    output:
        database=directory("results/taxonomic_database_build/kraken2_db"),
    log:
        "logs/taxonomic_database_build.log",
    benchmark:
        "benchmarks/taxonomic_database_build.tsv"
    conda:
        "../envs/kraken2_build_custom.yaml"
    container:
        "docker://quay.io/biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 12000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        kmer_len=config["params"]["kraken2_build_custom"]["kmer_len"],
        minimizer_len=config["params"]["kraken2_build_custom"]["minimizer_len"],
        minimizer_spaces=config["params"]["kraken2_build_custom"]["minimizer_spaces"],
        masking=config["params"]["kraken2_build_custom"]["masking"],
        clean=config["params"]["kraken2_build_custom"]["clean"],
        extra=config["params"]["kraken2_build_custom"]["extra"],
    shell:
        """
        exec >{log:q} 2>&1
        db={output.database:q}
        mkdir -p "$db/taxonomy"
        acc=no
        if [ -d {input.taxonomy:q} ]; then
            cp {input.taxonomy:q}/nodes.dmp {input.taxonomy:q}/names.dmp "$db/taxonomy/"
            for m in {input.taxonomy:q}/*.accession2taxid; do
                if [ -e "$m" ]; then
                    ln -s "$(readlink -f "$m")" "$db/taxonomy/"
                    acc=yes
                fi
            done
        else
            tar -xzf {input.taxonomy:q} -C "$db/taxonomy" nodes.dmp names.dmp
        fi
        mask=--no-masking
        case "{params.masking}" in
            True | true | yes | 1) mask="" ;;
        esac
        # One library file in input order: a reproducible seqid2taxid.map and database.
        fasta="$db/genomes_to_add.fna"
        : >"$fasta"
        for f in {input.genomes:q}; do
            case "$f" in
                *.gz) gzip -dc "$f" | awk 1 >>"$fasta" ;;
                *) awk 1 "$f" >>"$fasta" ;;
            esac
        done
        n_seq=$(grep -c '^>' "$fasta" || true)
        n_tax=$(grep -c '^>.*kraken:taxid|[0-9]' "$fasta" || true)
        if [ "$n_seq" -eq 0 ]; then
            echo "ERROR: the genome FASTA files hold no FASTA record"
            exit 1
        fi
        if [ "$n_tax" -ne "$n_seq" ] && [ "$acc" = no ]; then
            echo "ERROR: only $n_tax of $n_seq FASTA headers carry kraken:taxid|<taxid>."
            echo "Add the taxid to every header (>seqid|kraken:taxid|562 description)"
            echo "or put NCBI *.accession2taxid files next to nodes.dmp/names.dmp."
            grep '^>' "$fasta" | grep -v 'kraken:taxid|[0-9]' | head -n 5
            exit 1
        fi
        kraken2-build --add-to-library "$fasta" --db "$db" $mask
        rm -f "$fasta"
        kraken2-build --build --db "$db" --threads {threads} \
            --kmer-len {params.kmer_len} \
            --minimizer-len {params.minimizer_len} \
            --minimizer-spaces {params.minimizer_spaces} {params.extra}
        case "{params.clean}" in
            True | true | yes | 1) kraken2-build --clean --db "$db" ;;
        esac
        """
