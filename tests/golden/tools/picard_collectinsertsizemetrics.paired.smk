rule fragment_size_qc:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        report="results/fragment_size_qc/{sample}/{sample}.insert_size_metrics.txt",
        histogram="results/fragment_size_qc/{sample}/{sample}.insert_size_histogram.pdf",
    log:
        "logs/fragment_size_qc/{sample}.log",
    benchmark:
        "benchmarks/fragment_size_qc/{sample}.tsv"
    conda:
        "../envs/picard_collectinsertsizemetrics.yaml"
    container:
        "docker://quay.io/biocontainers/picard:3.1.1--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        minimum_pct=config["params"]["picard_collectinsertsizemetrics"]["minimum_pct"],
        extra=config["params"]["picard_collectinsertsizemetrics"]["extra"],
    shell:
        "picard=$(command -v picard || command -v PicardCommandLine);"
        ' "$picard" -Xmx$(({resources.mem_mb} * 4 / 5))m CollectInsertSizeMetrics'
        " --INPUT {input.bam:q} --OUTPUT {output.report:q} --Histogram_FILE {output.histogram:q}"
        " --MINIMUM_PCT {params.minimum_pct} {params.extra} > {log:q} 2>&1"
