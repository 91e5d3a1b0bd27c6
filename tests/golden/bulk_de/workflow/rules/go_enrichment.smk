rule go_enrichment:
    input:
        genes="results/gene_id_conversion/entrez_genes.tsv",
        gene_sets=config["inputs"]["gene_set_library_go_enrichment"],
    output:
        table="results/go_enrichment/go_enrichment.tsv",
    log:
        "logs/go_enrichment.log",
    benchmark:
        "benchmarks/go_enrichment.tsv"
    conda:
        "../envs/gseapy_enrich_go.yaml"
    container:
        "docker://quay.io/biocontainers/gseapy:1.1.8--py312h004ce86_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    params:
        min_size=config["params"]["gseapy_enrich_go"]["min_size"],
        max_size=config["params"]["gseapy_enrich_go"]["max_size"],
    script:
        "../scripts/gseapy_enrich.py"
