rule variant_annotation_bgzip:
    input:
        vcf="results/variant_annotation/annotated.vcf",
    output:
        vcf="results/variant_annotation_bgzip/annotated.vcf.gz",
        tbi="results/variant_annotation_bgzip/annotated.vcf.gz.tbi",
    log:
        "logs/variant_annotation_bgzip.log",
    benchmark:
        "benchmarks/variant_annotation_bgzip.tsv"
    conda:
        "../envs/tabix_bgziptabix.yaml"
    container:
        "docker://quay.io/biocontainers/tabix:1.11--hdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    shell:
        "bgzip --threads {threads} -c {input.vcf:q} > {output.vcf:q} 2> {log:q}"
        " && tabix -f -p vcf {output.vcf:q} 2>> {log:q}"
