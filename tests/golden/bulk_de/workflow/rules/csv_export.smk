rule csv_export:
    input:
        table="results/pathway_merge/merged_pathways.tsv",
    output:
        csv="results/csv_export/merged_pathways.csv",
    log:
        "logs/csv_export.log",
    benchmark:
        "benchmarks/csv_export.tsv"
    localrule: True
    conda:
        "../envs/table_to_csv.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    script:
        "../scripts/table_to_csv.py"
