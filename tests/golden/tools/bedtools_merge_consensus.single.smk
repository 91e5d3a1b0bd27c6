rule consensus_peak_calling:
    input:
        peaks=expand(
            "results/replicate_peak_calling/{sample}/{sample}_peaks.narrowPeak",
            sample=SAMPLES,
        ),
    output:
        peaks=intermediate("results/consensus_peak_calling/consensus_peaks.bed"),
    log:
        "logs/consensus_peak_calling.log",
    benchmark:
        "benchmarks/consensus_peak_calling.tsv"
    conda:
        "../envs/bedtools_merge_consensus.yaml"
    container:
        "docker://quay.io/biocontainers/bedtools:2.31.1--hf5e1c6e_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        min_samples=config["params"]["bedtools_merge_consensus"]["min_samples"],
        extra=config["params"]["bedtools_merge_consensus"]["extra"],
        samples=SAMPLES,
    shell:
        "set -o pipefail; set -- {params.samples:q};"
        ' for f in {input.peaks:q}; do awk -v s="$1" \'BEGIN {{ OFS = "\\t" }} {{ print $1, $2, $3, s }}\' "$f"; shift; done'
        " | sort -k1,1 -k2,2n | bedtools merge -i - -c 4,4 -o count_distinct,distinct {params.extra}"
        ' | awk -v min={params.min_samples} \'BEGIN {{ OFS = "\\t" }} $4 >= min'
        ' {{ n++; print $1, $2, $3, "consensus_peak_" n, $4, ".", $5 }}\' > {output.peaks:q} 2> {log:q}'
