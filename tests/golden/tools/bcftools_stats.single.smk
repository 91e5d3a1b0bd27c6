rule variant_statistics:
    input:
        vcf="results/variant_normalization/normalized.vcf.gz",
    output:
        report="results/variant_statistics/bcftools_stats.txt",
    log:
        "logs/variant_statistics.log",
    benchmark:
        "benchmarks/variant_statistics.tsv"
    conda:
        "../envs/bcftools_stats.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["bcftools_stats"]["extra"],
    shell:
        "bcftools stats {params.extra} {input.vcf:q} > {output.report:q} 2> {log:q}"
