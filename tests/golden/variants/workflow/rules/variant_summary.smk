rule variant_summary:
    input:
        vcf="results/variant_annotation_bgzip/annotated.vcf.gz",
    output:
        table="results/variant_summary/variant_summary.tsv",
    log:
        "logs/variant_summary.log",
    benchmark:
        "benchmarks/variant_summary.tsv"
    conda:
        "../envs/variant_summary_table.yaml"
    container:
        "docker://quay.io/biocontainers/python:3.12"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    script:
        "../scripts/variant_summary_table.py"
