rule check_gene_annotation:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_peak_gene_assignment"
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
        guarded_step="peak_gene_assignment",
        datatypes={"annotation": "gene_annotation"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_gene_annotation.py"


rule peak_gene_assignment:
    input:
        peaks="results/consensus_peak_calling/consensus_peaks.bed",
        annotation=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        genes="results/peak_gene_assignment/peak_genes.tsv",
        table="results/peak_gene_assignment/peak_gene_assignment.tsv",
    log:
        "logs/peak_gene_assignment.log",
    benchmark:
        "benchmarks/peak_gene_assignment.tsv"
    conda:
        "../envs/peak_nearest_genes.yaml"
    container:
        "docker://quay.io/biocontainers/python:3.12"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        max_distance=config["params"]["peak_nearest_genes"]["max_distance"],
        assign=config["params"]["peak_nearest_genes"]["assign"],
    script:
        "../scripts/peak_nearest_genes.py"
