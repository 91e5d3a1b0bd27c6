rule variant_database_annotation:
    input:
        vcf=config["inputs"]["variant_calls"],
        database=config["references"]["variant_database"],
    output:
        vcf=intermediate("results/variant_database_annotation/snpsift_annotated.vcf"),
    log:
        "logs/variant_database_annotation.log",
    benchmark:
        "benchmarks/variant_database_annotation.tsv"
    conda:
        "../envs/snpsift_annotate.yaml"
    container:
        "docker://quay.io/biocontainers/snpsift:5.1d--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        info_fields=config["params"]["snpsift_annotate"]["info_fields"],
        extra=config["params"]["snpsift_annotate"]["extra"],
    shell:
        """
        exec 2>{log:q}
        fields={params.info_fields:q}
        set -- -id
        if [ -n "$fields" ]; then
            set -- "$@" -info "$fields"
        fi
        snpsift=$(command -v SnpSift || command -v snpSift)
        "$snpsift" annotate "$@" {params.extra} {input.database:q} {input.vcf:q} >{output.vcf:q}
        """
