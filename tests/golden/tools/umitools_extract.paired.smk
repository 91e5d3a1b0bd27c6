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
        "checks_umi_extraction"
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
        guarded_step="umi_extraction",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule umi_extraction:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        extracted_1=intermediate("results/umi_extraction/{sample}/extracted_1.fastq.gz"),
        extracted_2=intermediate("results/umi_extraction/{sample}/extracted_2.fastq.gz"),
        log="results/umi_extraction/{sample}/{sample}.umi_extract.log",
    log:
        "logs/umi_extraction/{sample}.log",
    benchmark:
        "benchmarks/umi_extraction/{sample}.tsv"
    conda:
        "../envs/umitools_extract.yaml"
    container:
        "docker://community.wave.seqera.io/library/umi_tools_future_matplotlib_numpy_pruned:1ee668bafc8c9f81"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        bc_pattern=config["params"]["umitools_extract"]["bc_pattern"],
        extract_method=config["params"]["umitools_extract"]["extract_method"],
        extra=config["params"]["umitools_extract"]["extra"],
    shell:
        "umi_tools extract --extract-method={params.extract_method:q} --bc-pattern={params.bc_pattern:q}"
        " -I {input.reads_1:q} --read2-in={input.reads_2:q}"
        " -S {output.extracted_1:q} --read2-out={output.extracted_2:q}"
        " {params.extra} -L {output.log:q} > {log:q} 2>&1"
