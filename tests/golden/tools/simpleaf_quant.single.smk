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
        adata=intermediate("results/single_cell_quantification/quants.h5ad"),
    log:
        "logs/single_cell_quantification.log",
    benchmark:
        "benchmarks/single_cell_quantification.tsv"
    conda:
        "../envs/simpleaf_quant.yaml"
    container:
        "docker://community.wave.seqera.io/library/simpleaf:0.25.0--b9f96d8b71a01864"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        chemistry=config["params"]["simpleaf_quant"]["chemistry"],
        resolution=config["params"]["simpleaf_quant"]["resolution"],
        cell_filter=config["params"]["simpleaf_quant"]["cell_filter"],
        extra=config["params"]["simpleaf_quant"]["extra"],
        samples=SAMPLES,
    shell:
        # droplet chemistries need the barcode/UMI read (R1) beside the cDNA read (R2)
        "echo 'alevin-fry needs both reads of each library (R1: cell barcode + UMI, R2: cDNA); "
        "this workflow was compiled for single-end reads' > {log:q}; exit 1"
