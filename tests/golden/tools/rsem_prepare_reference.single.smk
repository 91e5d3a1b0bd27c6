rule transcriptome_indexing:
    input:
        transcriptome=config["inputs"]["transcriptome"],
    output:
        index=directory("results/transcriptome_indexing/rsem"),
    log:
        "logs/transcriptome_indexing.log",
    benchmark:
        "benchmarks/transcriptome_indexing.tsv"
    conda:
        "../envs/rsem_prepare_reference.yaml"
    container:
        "docker://community.wave.seqera.io/library/rsem_star:5acb4e8c03239c32"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 32000 * attempt,
        runtime=lambda wildcards, attempt: 150 * attempt,
    params:
        aligner=config["params"]["rsem_prepare_reference"]["aligner"],
        extra=config["params"]["rsem_prepare_reference"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {input.transcriptome:q} in
            *.gz) gzip -cd {input.transcriptome:q} >"$tmp/transcripts.fa" ;;
            *) ln -s "$(readlink -f {input.transcriptome:q})" "$tmp/transcripts.fa" ;;
        esac
        awk -v map="$tmp/tx2gene.tsv" -v gtf="$tmp/tx.gtf" '
            function flush() {{ if (tx != "") printf "%s\\trsem\\texon\\t1\\t%d\\t.\\t+\\t.\\tgene_id \\"%s\\"; transcript_id \\"%s\\";\\n", tx, len, gene, tx > gtf }}
            /^>/ {{ flush(); tx = substr($1, 2); gene = tx; len = 0
                    if (match($0, / gene:[^ ]+/)) gene = substr($0, RSTART + 6, RLENGTH - 6)
                    print gene "\\t" tx > map; next }}
            {{ len += length($0) }}
            END {{ flush() }}' "$tmp/transcripts.fa"
        case {params.aligner:q} in
            star) set -- --star --gtf "$tmp/tx.gtf" ;; # each path one word whatever $TMPDIR holds
            bowtie2) set -- --bowtie2 --transcript-to-gene-map "$tmp/tx2gene.tsv" ;;
            *)
                echo "aligner must be star or bowtie2, not "{params.aligner:q} >&2
                exit 1
                ;;
        esac
        mkdir -p {output.index:q}
        rsem-prepare-reference --num-threads {threads} "$@" {params.extra} \\
        "$tmp/transcripts.fa" {output.index:q}/genome
        """
