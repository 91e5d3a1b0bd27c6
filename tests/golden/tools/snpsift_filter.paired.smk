rule check_vcf_filter_fields:
    input:
        vcf="results/variant_database_annotation/database_annotated.vcf.gz",
    output:
        ok="results/checks/check_vcf_filter_fields.ok",
    log:
        "logs/checks/check_vcf_filter_fields.log",
    retries: 0
    group:
        "checks_variant_filtering"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_vcf_filter_fields",
        guarded_step="variant_filtering",
        datatypes={"vcf": "database_annotated_variants"},
    script:
        "../scripts/check_vcf_fields.py"


rule variant_filtering:
    input:
        vcf="results/variant_database_annotation/database_annotated.vcf.gz",
        check_vcf_filter_fields="results/checks/check_vcf_filter_fields.ok",
    output:
        vcf=intermediate("results/variant_filtering/snpsift_filtered.vcf"),
    log:
        "logs/variant_filtering.log",
    benchmark:
        "benchmarks/variant_filtering.tsv"
    conda:
        "../envs/snpsift_filter.yaml"
    container:
        "docker://quay.io/biocontainers/snpsift:5.1d--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        expression=config["params"]["snpsift_filter"]["expression"],
        extra=config["params"]["snpsift_filter"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        printf '%s\\n' {params.expression:q} >"$tmp/expression"
        snpsift=$(command -v SnpSift || command -v snpSift)
        "$snpsift" filter -e "$tmp/expression" {params.extra} {input.vcf:q} >{output.vcf:q}
        """
