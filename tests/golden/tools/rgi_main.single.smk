rule amr_detection:
    input:
        contigs="results/genome_assembly/{sample}/contigs.fa",
        database=config["references"]["amr_database"],
    output:
        report="results/amr_detection/{sample}/rgi.txt",
    log:
        "logs/amr_detection/{sample}.log",
    benchmark:
        "benchmarks/amr_detection/{sample}.tsv"
    conda:
        "../envs/rgi_main.yaml"
    container:
        "docker://quay.io/biocontainers/rgi:6.0.5--pyh05cac1d_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        include_loose=config["params"]["rgi_main"]["include_loose"],
        extra=config["params"]["rgi_main"]["extra"],
    shell:
        """
        # rgi load --local writes ./localDB: load CARD and run RGI inside a scratch folder
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        log=$(readlink -f {log:q})
        out=$(readlink -f {output.report:q})
        card=$(readlink -f {input.database:q})/card.json
        case {input.contigs:q} in
            *.gz) gzip -cd {input.contigs:q} >"$tmp/contigs.fa" ;;
            *) ln -s "$(readlink -f {input.contigs:q})" "$tmp/contigs.fa" ;;
        esac
        loose=""
        case "{params.include_loose}" in
            True | true | yes | 1) loose=--include_loose ;;
        esac
        cd "$tmp"
        rgi load --card_json "$card" --local >"$log" 2>&1
        rgi main --input_type contig --input_sequence contigs.fa --output_file rgi \
            --local --num_threads {threads} --alignment_tool DIAMOND $loose {params.extra} >>"$log" 2>&1
        cp rgi.txt "$out"
        """
