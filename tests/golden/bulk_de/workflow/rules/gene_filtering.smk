rule gene_filtering:
    input:
        table="results/differential_expression/deseq2_results.tsv",
    output:
        genes="results/gene_filtering/significant_genes.tsv",
    log:
        "logs/gene_filtering.log",
    benchmark:
        "benchmarks/gene_filtering.tsv"
    localrule: True
    conda:
        "../envs/de_filter.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        alpha=config["params"]["de_filter"]["alpha"],
        lfc_threshold=config["params"]["de_filter"]["lfc_threshold"],
        direction=config["params"]["de_filter"]["direction"],
    script:
        "../scripts/de_filter.py"
