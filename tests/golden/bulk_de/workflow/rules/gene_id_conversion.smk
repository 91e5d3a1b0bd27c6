rule gene_id_conversion:
    input:
        genes="results/gene_filtering/significant_genes.tsv",
        mapping=config["inputs"]["gene_id_mapping"],
    output:
        entrez="results/gene_id_conversion/entrez_genes.tsv",
    log:
        "logs/gene_id_conversion.log",
    benchmark:
        "benchmarks/gene_id_conversion.tsv"
    localrule: True
    conda:
        "../envs/idmap_table.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    script:
        "../scripts/idmap_table.py"
