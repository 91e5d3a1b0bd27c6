rule bisulfite_deduplication:
    input:
        bam="results/bisulfite_alignment/{sample}/{sample}.bismark.bam",
    output:
        bam="results/bisulfite_deduplication/{sample}/{sample}.deduplicated.bam",
        report="results/bisulfite_deduplication/{sample}/{sample}.deduplication_report.txt",
    log:
        "logs/bisulfite_deduplication/{sample}.log",
    benchmark:
        "benchmarks/bisulfite_deduplication/{sample}.tsv"
    conda:
        "../envs/bismark_deduplicate.yaml"
    container:
        "docker://quay.io/biocontainers/bismark:0.24.2--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["bismark_deduplicate"]["extra"],
    shell:
        # --outfile is the basename: <sample>.deduplicated.bam and <sample>.deduplication_report.txt
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " deduplicate_bismark --single --bam {params.extra}"
        ' --output_dir "$tmp" --outfile {wildcards.sample:q} {input.bam:q} > {log:q} 2>&1'
        ' && mv "$tmp/"{wildcards.sample:q}.deduplicated.bam {output.bam:q}'
        ' && mv "$tmp/"{wildcards.sample:q}.deduplication_report.txt {output.report:q}'
