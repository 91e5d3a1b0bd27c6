rule check_paired_end_reads:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads/{sample}.ok",
    log:
        "logs/checks/check_paired_end_reads/{sample}.log",
    retries: 0
    group:
        "checks_read_qc"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="paired_end_reads",
        guarded_step="read_qc",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule read_qc:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
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
        " {input.reads_1:q} {input.reads_2:q}"
        " > {output.report:q} 2> {log:q}"
