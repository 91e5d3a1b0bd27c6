rule read_qc:
    input:
        reads=sample_file("fastq"),
    output:
        report="results/read_qc/{sample}/seqkit_stats.tsv",
    log:
        "logs/read_qc/{sample}.log",
    benchmark:
        "benchmarks/read_qc/{sample}.tsv"
    conda:
        "../envs/seqkit_stats.yaml"
    container:
        "docker://quay.io/biocontainers/seqkit:2.3.1--h9ee0642_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["seqkit_stats"]["extra"],
    shell:
        "seqkit stats --all --tabular --threads {threads} {params.extra}"
        " {input.reads:q}"
        " > {output.report:q} 2> {log:q}"
