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
        "checks_transcript_quantification"
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
        guarded_step="transcript_quantification",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule transcript_quantification:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        index="results/transcriptome_indexing/transcripts.idx",
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        quant=directory("results/transcript_quantification/{sample}/kallisto"),
    log:
        "logs/transcript_quantification/{sample}.log",
    benchmark:
        "benchmarks/transcript_quantification/{sample}.tsv"
    conda:
        "../envs/kallisto_quant.yaml"
    container:
        "docker://quay.io/biocontainers/kallisto:0.48.0--h15996b6_2"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        fragment_length=config["params"]["kallisto_quant"]["fragment_length"],
        fragment_sd=config["params"]["kallisto_quant"]["fragment_sd"],
        bootstraps=config["params"]["kallisto_quant"]["bootstraps"],
        extra=config["params"]["kallisto_quant"]["extra"],
    shell:
        "kallisto quant --threads {threads} -i {input.index:q} -o {output.quant:q}"
        " --bootstrap-samples {params.bootstraps} {params.extra}"
        " {input.reads_1:q} {input.reads_2:q}"
        " > {log:q} 2>&1"
