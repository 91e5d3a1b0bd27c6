rule coverage_computation:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        track="results/coverage_computation/{sample}/{sample}.bw",
    log:
        "logs/coverage_computation/{sample}.log",
    benchmark:
        "benchmarks/coverage_computation/{sample}.tsv"
    conda:
        "../envs/bamcoverage.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        bin_size=config["params"]["bamcoverage"]["bin_size"],
        normalize_using=config["params"]["bamcoverage"]["normalize_using"],
        extra=config["params"]["bamcoverage"]["extra"],
    shell:
        "bamCoverage --bam {input.bam:q} --outFileName {output.track:q} --outFileFormat bigwig"
        " --binSize {params.bin_size} --normalizeUsing {params.normalize_using}"
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
