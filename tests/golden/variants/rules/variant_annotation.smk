rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_reference_genome",
        guarded_step="variant_annotation",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="variant_annotation",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule variant_annotation:
    input:
        vcf="results/variant_filtering/filtered.vcf.gz",
        genome=config["inputs"]["reference_genome"],
        annotation=config["inputs"]["gene_annotation"],
        check_reference_genome="results/checks/check_reference_genome.ok",
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        vcf="results/variant_annotation/annotated.vcf.gz",
        tbi="results/variant_annotation/annotated.vcf.gz.tbi",
    log:
        "logs/variant_annotation.log",
    benchmark:
        "benchmarks/variant_annotation.tsv"
    conda:
        "../envs/bcftools_csq.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        phase=config["params"]["bcftools_csq"]["phase"],
        extra=config["params"]["bcftools_csq"]["extra"],
    shell:
        # Index the reference in a scratch directory: the input may be read-only or gzipped.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ref="$tmp/genome.fa";'
        ' case {input.genome:q} in *.gz) gzip -cd {input.genome:q} > "$ref" ;;'
        ' *) ln -s "$(readlink -f {input.genome:q})" "$ref" ;; esac;'
        ' bcftools csq -f "$ref" -g {input.annotation:q} -p {params.phase:q} {params.extra}'
        " -Oz -o {output.vcf:q} {input.vcf:q} > {log:q} 2>&1"
        " && bcftools index --tbi -o {output.tbi:q} {output.vcf:q} 2>> {log:q}"
