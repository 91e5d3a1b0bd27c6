rule taxonomy_abundance_summary:
    input:
        table="results/chimera_removal/asv_table_nochim.tsv",
        taxonomy="results/asv_taxonomy_assignment/asv_taxonomy.tsv",
    output:
        table="results/taxonomy_abundance_summary/taxonomy_abundance_table.tsv",
    log:
        "logs/taxonomy_abundance_summary.log",
    benchmark:
        "benchmarks/taxonomy_abundance_summary.tsv"
    conda:
        "../envs/asv_taxonomy_table.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        rank=config["params"]["asv_taxonomy_table"]["rank"],
    script:
        "../scripts/asv_taxonomy_table.py"
