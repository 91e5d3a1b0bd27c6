rule rrna_removal:
    input:
        reads=sample_file("fastq"),
        database=config["references"]["rrna_database"],
    output:
        filtered=intermediate("results/rrna_removal/{sample}/filtered.fastq.gz"),
        log="results/rrna_removal/{sample}/{sample}.sortmerna.log",
    log:
        "logs/rrna_removal/{sample}.log",
    benchmark:
        "benchmarks/rrna_removal/{sample}.tsv"
    conda:
        "../envs/sortmerna.yaml"
    container:
        "docker://community.wave.seqera.io/library/sortmerna:4.3.7--b730cad73fc42b8e"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        extra=config["params"]["sortmerna"]["extra"],
    shell:
        """
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        sortmerna --ref {input.database:q} --workdir "$tmp/work" --threads {threads} \\
        --reads {input.reads:q} \\
        --fastx --aligned "$tmp/rRNA_reads" --other "$tmp/non_rRNA_reads" {params.extra} >{log:q} 2>&1
        cp "$tmp/rRNA_reads.log" {output.log:q}
        # SortMeRNA writes .fq.gz for gzipped reads and .fq for plain ones
        gz() {{ if [ -e "$1.fq.gz" ]; then mv "$1.fq.gz" "$2"; else gzip -c "$1.fq" >"$2"; fi; }}
        gz "$tmp/non_rRNA_reads" {output.filtered:q}
        """
