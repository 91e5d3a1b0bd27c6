rule transcriptome_indexing:
    input:
        transcriptome=config["inputs"]["transcriptome"],
    output:
        index="results/transcriptome_indexing/transcripts.idx",
    log:
        "logs/transcriptome_indexing.log",
    benchmark:
        "benchmarks/transcriptome_indexing.tsv"
    conda:
        "../envs/kallisto_index.yaml"
    container:
        "docker://quay.io/biocontainers/kallisto:0.48.0--h15996b6_2"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 75 * attempt,
    params:
        kmer=config["params"]["kallisto_index"]["kmer"],
        extra=config["params"]["kallisto_index"]["extra"],
    shell:
        "kallisto index -k {params.kmer} {params.extra}"
        " -i {output.index:q} {input.transcriptome:q} > {log:q} 2>&1"
