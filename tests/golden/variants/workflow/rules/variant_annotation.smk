rule check_reference_genome:
    input:
        genome=config["inputs"]["reference_genome"],
    output:
        ok="results/checks/check_reference_genome.ok",
    log:
        "logs/checks/check_reference_genome.log",
    retries: 0
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
        guarded_step="variant_annotation",
        datatypes={"genome": "reference_genome"},
    script:
        "../scripts/check_reference_genome.py"


rule check_gene_annotation:
    input:
        genome=config["inputs"]["reference_genome"],
        annotation="results/annotation_format_conversion/annotation.gtf",
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="variant_annotation",
        datatypes={"annotation": "gene_annotation", "genome": "reference_genome"},
    script:
        "../scripts/check_gene_annotation.py"


rule variant_annotation:
    input:
        vcf="results/variant_filtering/filtered.vcf.gz",
        db="results/variant_annotation_build_db/snpeff_db",
    output:
        vcf=intermediate("results/variant_annotation/annotated.vcf"),
        html="results/variant_annotation/snpeff_summary.html",
        csv="results/variant_annotation/snpeff_summary.csv",
    log:
        "logs/variant_annotation.log",
    benchmark:
        "benchmarks/variant_annotation.tsv"
    conda:
        "../envs/snpeff.yaml"
    container:
        "docker://quay.io/biocontainers/snpeff:5.1--hdfd78af_2"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["snpeff"]["extra"],
    shell:
        # Keep the VCF from ##fileformat on: Debian's snpEff wrapper may echo its arguments.
        "genome_name=$(sed -n 's/\\.genome : .*$//p' {input.db:q}/snpEff.config | sed -n 1p)"
        " && snpEff -Xmx$(({resources.mem_mb} * 4 / 5))m ann -nodownload"
        " -c {input.db:q}/snpEff.config -stats {output.html:q} -csvStats {output.csv:q}"
        ' {params.extra} "$genome_name" {input.vcf:q} 2> {log:q}'
        " | awk 'p += /^##fileformat=/' > {output.vcf:q}"
