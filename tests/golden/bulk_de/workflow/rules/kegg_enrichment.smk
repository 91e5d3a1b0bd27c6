rule check_entrez_id:
    input:
        genes="results/gene_id_conversion/entrez_genes.tsv",
    output:
        ok="results/checks/check_entrez_id.ok",
    log:
        "logs/checks/check_entrez_id.log",
    retries: 0
    group:
        "checks_kegg_enrichment"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_entrez_id",
        guarded_step="kegg_enrichment",
        datatypes={"genes": "entrez_gene_list"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_entrez_ids.py"


rule kegg_enrichment:
    input:
        genes="results/gene_id_conversion/entrez_genes.tsv",
        gene_sets=config["inputs"]["gene_set_library_kegg_enrichment"],
        check_entrez_id="results/checks/check_entrez_id.ok",
    output:
        table="results/kegg_enrichment/kegg_enrichment.tsv",
    log:
        "logs/kegg_enrichment.log",
    benchmark:
        "benchmarks/kegg_enrichment.tsv"
    conda:
        "../envs/gseapy_enrich_kegg.yaml"
    container:
        "docker://quay.io/biocontainers/gseapy:1.1.8--py312h004ce86_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    params:
        min_size=config["params"]["gseapy_enrich_kegg"]["min_size"],
        max_size=config["params"]["gseapy_enrich_kegg"]["max_size"],
    script:
        "../scripts/gseapy_enrich.py"
