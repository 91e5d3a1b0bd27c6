rule variant_filtering:
    input:
        vcf=config["inputs"]["variant_calls"],
    output:
        vcf="results/variant_filtering/filtered.vcf.gz",
        tbi="results/variant_filtering/filtered.vcf.gz.tbi",
    log:
        "logs/variant_filtering.log",
    benchmark:
        "benchmarks/variant_filtering.tsv"
    conda:
        "../envs/bcftools_filter.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        min_qual=config["params"]["bcftools_filter"]["min_qual"],
        min_depth=config["params"]["bcftools_filter"]["min_depth"],
        extra=config["params"]["bcftools_filter"]["extra"],
    shell:
        "bcftools filter -i 'QUAL>={params.min_qual} && INFO/DP>={params.min_depth}'"
        " {params.extra} -Oz -o {output.vcf:q} {input.vcf:q} > {log:q} 2>&1"
        " && bcftools index --tbi -o {output.tbi:q} {output.vcf:q} 2>> {log:q}"
