rule duplicate_marking:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
    output:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
        bai="results/duplicate_marking/{sample}/{sample}.markdup.bam.bai",
        metrics="results/duplicate_marking/{sample}/{sample}.markdup_metrics.txt",
    log:
        "logs/duplicate_marking/{sample}.log",
    benchmark:
        "benchmarks/duplicate_marking/{sample}.tsv"
    conda:
        "../envs/picard_markduplicates.yaml"
    container:
        "docker://quay.io/biocontainers/picard:3.1.1--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 195 * attempt,
    params:
        extra=config["params"]["picard_markduplicates"]["extra"],
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " picard=$(command -v picard || command -v PicardCommandLine);"
        ' "$picard" -Xmx$(({resources.mem_mb} * 4 / 5))m MarkDuplicates'
        " --INPUT {input.bam:q} --OUTPUT {output.bam:q} --METRICS_FILE {output.metrics:q}"
        ' --ASSUME_SORT_ORDER coordinate --CREATE_INDEX true --TMP_DIR "$tmp"'
        " {params.extra} > {log:q} 2>&1"
        ' && bam={output.bam:q} && mv "${{bam%.bam}}.bai" {output.bai:q}'
