rule annotation_format_conversion:
    input:
        annotation=config["inputs"]["gene_annotation"],
    output:
        annotation="results/annotation_format_conversion/annotation.gtf",
    log:
        "logs/annotation_format_conversion.log",
    benchmark:
        "benchmarks/annotation_format_conversion.tsv"
    conda:
        "../envs/gffread_gtf.yaml"
    container:
        "docker://quay.io/biocontainers/gffread:0.12.7--hdcf5f25_4"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["gffread_gtf"]["extra"],
    shell:
        "gffread {input.annotation:q} -T -F {params.extra} -o {output.annotation:q} > {log:q} 2>&1"
