rule abundance_table_merge:
    input:
        profiles=expand(
            "results/taxonomic_classification/{sample}/{sample}.kreport",
            sample=SAMPLES,
        ),
    output:
        table="results/abundance_table_merge/abundance_table.tsv",
    log:
        "logs/abundance_table_merge.log",
    benchmark:
        "benchmarks/abundance_table_merge.tsv"
    localrule: True
    conda:
        "../envs/merge_kraken_reports.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        rank=config["params"]["merge_kraken_reports"]["rank"],
        samples=SAMPLES,
    script:
        "../scripts/merge_kraken_reports.py"
