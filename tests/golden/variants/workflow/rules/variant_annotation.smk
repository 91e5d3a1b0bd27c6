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
