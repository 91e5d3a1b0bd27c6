rule pathway_merge:
    input:
        kegg="results/kegg_enrichment/kegg_enrichment.tsv",
        go="results/go_enrichment/go_enrichment.tsv",
    output:
        merged="results/pathway_merge/merged_pathways.tsv",
    log:
        "logs/pathway_merge.log",
    benchmark:
        "benchmarks/pathway_merge.tsv"
    localrule: True
    conda:
        "../envs/merge_pathway_tables.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    script:
        "../scripts/merge_pathway_tables.py"
