rule marker_enrichment:
    input:
        markers="results/marker_gene_detection/markers.tsv",
        gene_sets=config["inputs"]["gene_set_library"],
    output:
        table="results/marker_enrichment/marker_enrichment.tsv",
    log:
        "logs/marker_enrichment.log",
    benchmark:
        "benchmarks/marker_enrichment.tsv"
    conda:
        "../envs/gseapy_marker_enrich.yaml"
    container:
        "docker://quay.io/biocontainers/gseapy:1.1.8--py312h004ce86_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 15 * attempt,
    params:
        top_n=config["params"]["gseapy_marker_enrich"]["top_n"],
        max_padj=config["params"]["gseapy_marker_enrich"]["max_padj"],
        min_logfc=config["params"]["gseapy_marker_enrich"]["min_logfc"],
        min_genes=config["params"]["gseapy_marker_enrich"]["min_genes"],
    script:
        "../scripts/gseapy_marker_enrich.py"
