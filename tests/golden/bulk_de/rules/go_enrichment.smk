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
        "../envs/clusterprofiler_enrichgo.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-clusterprofiler:4.14.0--r44hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        min_size=config["params"]["clusterprofiler_enrichgo"]["min_size"],
        max_size=config["params"]["clusterprofiler_enrichgo"]["max_size"],
    script:
        "../scripts/clusterprofiler_enrichgo.R"
