rule bin_read_counting:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
    output:
        counts=intermediate("results/bin_read_counting/multibamsummary.npz"),
        raw="results/bin_read_counting/multibamsummary.counts.tsv",
    log:
        "logs/bin_read_counting.log",
    benchmark:
        "benchmarks/bin_read_counting.tsv"
    conda:
        "../envs/deeptools_multibamsummary.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        bin_size=config["params"]["deeptools_multibamsummary"]["bin_size"],
        fragment_size=config["params"]["deeptools_multibamsummary"]["fragment_size"],
        extra=config["params"]["deeptools_multibamsummary"]["extra"],
        samples=SAMPLES,
    shell:
        "multiBamSummary bins --bamfiles {input.bams:q} --labels {params.samples:q}"
        " --outFileName {output.counts:q} --outRawCounts {output.raw:q} --binSize {params.bin_size}"
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
