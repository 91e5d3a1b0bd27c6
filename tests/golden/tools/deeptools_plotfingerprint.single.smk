rule chip_enrichment_qc:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
    output:
        report="results/chip_enrichment_qc/fingerprint.png",
        metrics="results/chip_enrichment_qc/fingerprint.qcmetrics.txt",
        counts="results/chip_enrichment_qc/fingerprint.raw.txt",
    log:
        "logs/chip_enrichment_qc.log",
    benchmark:
        "benchmarks/chip_enrichment_qc.tsv"
    conda:
        "../envs/deeptools_plotfingerprint.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        bin_size=config["params"]["deeptools_plotfingerprint"]["bin_size"],
        number_of_samples=config["params"]["deeptools_plotfingerprint"][
            "number_of_samples"
        ],
        fragment_size=config["params"]["deeptools_plotfingerprint"]["fragment_size"],
        extra=config["params"]["deeptools_plotfingerprint"]["extra"],
        samples=SAMPLES,
    shell:
        "plotFingerprint --bamfiles {input.bams:q} --labels {params.samples:q}"
        " --plotFile {output.report:q} --outQualityMetrics {output.metrics:q} --outRawCounts {output.counts:q}"
        " --binSize {params.bin_size} --numberOfSamples {params.number_of_samples}"
        " --extendReads {params.fragment_size}"
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
