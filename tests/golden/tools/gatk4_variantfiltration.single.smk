rule check_vcf_filter_fields:
    input:
        vcf="results/joint_genotyping/joint_genotyped.vcf.gz",
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
        datatypes={"vcf": "variant_calls"},
    script:
        "../scripts/check_vcf_fields.py"


rule variant_filtering:
    input:
        vcf="results/joint_genotyping/joint_genotyped.vcf.gz",
        check_vcf_filter_fields="results/checks/check_vcf_filter_fields.ok",
    output:
        vcf="results/variant_filtering/hard_filtered.vcf.gz",
        tbi="results/variant_filtering/hard_filtered.vcf.gz.tbi",
    log:
        "logs/variant_filtering.log",
    benchmark:
        "benchmarks/variant_filtering.tsv"
    conda:
        "../envs/gatk4_variantfiltration.yaml"
    container:
        "docker://quay.io/biocontainers/gatk4:4.5.0.0--py36hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        filter_expression=config["params"]["gatk4_variantfiltration"][
            "filter_expression"
        ],
        filter_name=config["params"]["gatk4_variantfiltration"]["filter_name"],
        extra=config["params"]["gatk4_variantfiltration"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        gatk --java-options "-Xmx$(({resources.mem_mb} * 4 / 5))m" VariantFiltration -V {input.vcf:q} \\
        --filter-expression {params.filter_expression:q} --filter-name {params.filter_name:q} \\
        -O {output.vcf:q} --tmp-dir "$tmp" {params.extra}
        """
