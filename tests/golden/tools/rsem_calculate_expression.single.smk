rule transcript_quantification:
    input:
        reads=sample_file("fastq"),
        index="results/transcriptome_indexing/rsem",
    output:
        quant=intermediate(
            "results/transcript_quantification/{sample}/{sample}.genes.results"
        ),
        isoforms="results/transcript_quantification/{sample}/{sample}.isoforms.results",
        cnt="results/transcript_quantification/{sample}/{sample}.cnt",
    log:
        "logs/transcript_quantification/{sample}.log",
    benchmark:
        "benchmarks/transcript_quantification/{sample}.tsv"
    conda:
        "../envs/rsem_calculate_expression.yaml"
    container:
        "docker://community.wave.seqera.io/library/rsem_star:5acb4e8c03239c32"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        aligner=config["params"]["rsem_calculate_expression"]["aligner"],
        strandedness=config["params"]["rsem_calculate_expression"]["strandedness"],
        extra=config["params"]["rsem_calculate_expression"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        case {params.aligner:q} in
            star) aligner="--star --star-gzipped-read-file" ;;
            bowtie2) aligner=--bowtie2 ;;
            *)
                echo "aligner must be star or bowtie2, not "{params.aligner:q} >&2
                exit 1
                ;;
        esac
        case {params.strandedness:q} in
            forward | reverse | none) ;;
            *)
                echo "strandedness must be none, forward or reverse, not "{params.strandedness:q} >&2
                exit 1
                ;;
        esac
        ln -s "$(readlink -f {input.reads:q})" "$tmp/reads.fastq.gz"
        set -- "$tmp/reads.fastq.gz" # one word whatever $TMPDIR holds
        rsem-calculate-expression --num-threads {threads} --temporary-folder "$tmp/rsem_tmp" \\
        $aligner --strandedness {params.strandedness:q} {params.extra} \\
        "$@" {input.index:q}/genome "$tmp/out"
        mv "$tmp/out.genes.results" {output.quant:q}
        mv "$tmp/out.isoforms.results" {output.isoforms:q}
        mv "$tmp/out.stat/out.cnt" {output.cnt:q}
        """
