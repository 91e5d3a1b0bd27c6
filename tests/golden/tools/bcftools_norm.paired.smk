rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
    group:
        "checks_variant_normalization"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="variant_normalization",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule variant_normalization:
    input:
        vcf=config["inputs"]["variant_calls"],
        genome=config["inputs"]["reference_genome"],
        check_reference_genome="results/checks/check_reference_genome.ok",
    output:
        vcf="results/variant_normalization/normalized.vcf.gz",
        tbi="results/variant_normalization/normalized.vcf.gz.tbi",
    log:
        "logs/variant_normalization.log",
    benchmark:
        "benchmarks/variant_normalization.tsv"
    conda:
        "../envs/bcftools_norm.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        multiallelics=config["params"]["bcftools_norm"]["multiallelics"],
        remove_duplicates=config["params"]["bcftools_norm"]["remove_duplicates"],
        extra=config["params"]["bcftools_norm"]["extra"],
    shell:
        # Index the reference in a scratch directory: the input may be read-only or gzipped.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ref="$tmp/genome.fa";'
        ' case {input.genome:q} in *.gz) gzip -cd {input.genome:q} > "$ref" ;;'
        ' *) ln -s "$(readlink -f {input.genome:q})" "$ref" ;; esac;'
        " multi={params.multiallelics:q}; dedup={params.remove_duplicates:q};"
        ' opts=(); [ -n "$multi" ] && opts+=(-m "$multi");'
        ' case "$dedup" in True|true|1) opts+=(-d exact) ;; esac;'
        ' bcftools norm -f "$ref" --check-ref w "${{opts[@]}}" {params.extra}'
        " -Oz -o {output.vcf:q} {input.vcf:q} > {log:q} 2>&1"
        " && bcftools index --tbi -o {output.tbi:q} {output.vcf:q} 2>> {log:q}"
