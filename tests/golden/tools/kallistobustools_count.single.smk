rule check_paired_end_reads:
    input:
        reads=all_sample_files("fastq"),
    output:
        ok="results/checks/check_paired_end_reads.ok",
    log:
        "logs/checks/check_paired_end_reads.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
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
        guarded_step="single_cell_quantification",
        datatypes={"reads": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="single_cell_quantification",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_single_cell_quantification"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="single_cell_quantification",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule single_cell_quantification:
    input:
        reads=all_sample_files("fastq"),
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_paired_end_reads="results/checks/check_paired_end_reads.ok",
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        adata=intermediate("results/single_cell_quantification/counts_unfiltered.h5ad"),
    log:
        "logs/single_cell_quantification.log",
    benchmark:
        "benchmarks/single_cell_quantification.tsv"
    conda:
        "../envs/kallistobustools_count.yaml"
    container:
        "docker://quay.io/biocontainers/kb-python:0.28.2--pyhdfd78af_2"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        technology=config["params"]["kallistobustools_count"]["technology"],
        workflow=config["params"]["kallistobustools_count"]["workflow"],
        extra=config["params"]["kallistobustools_count"]["extra"],
        samples=SAMPLES,
    shell:
        # droplet chemistries need the barcode/UMI read (R1) beside the cDNA read (R2)
        "echo 'kb count needs both reads of each library (R1: cell barcode + UMI, R2: cDNA); "
        "this workflow was compiled for single-end reads' > {log:q}; exit 1"
