rule library_complexity_estimation:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
    output:
        curve="results/library_complexity_estimation/{sample}/{sample}.lc_extrap.txt",
    log:
        "logs/library_complexity_estimation/{sample}.log",
    benchmark:
        "benchmarks/library_complexity_estimation/{sample}.tsv"
    conda:
        "../envs/preseq_lcextrap.yaml"
    container:
        "docker://quay.io/biocontainers/preseq:3.2.0--hdcf5f25_6"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        extra=config["params"]["preseq_lcextrap"]["extra"],
    shell:
        "preseq lc_extrap -v -B"
        " {params.extra} -o {output.curve:q} {input.bam:q} > {log:q} 2>&1"
