rule blacklist_filtering:
    input:
        peaks="results/peak_calling/peaks.narrowPeak",
        blacklist=config["references"]["genome_blacklist"],
    output:
        peaks="results/blacklist_filtering/peaks.filtered.bed",
    log:
        "logs/blacklist_filtering.log",
    benchmark:
        "benchmarks/blacklist_filtering.tsv"
    conda:
        "../envs/bedtools_intersect_blacklist.yaml"
    container:
        "docker://quay.io/biocontainers/bedtools:2.31.1--hf5e1c6e_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["bedtools_intersect_blacklist"]["extra"],
    shell:
        "bedtools intersect -v -a {input.peaks:q} -b {input.blacklist:q} {params.extra}"
        " > {output.peaks:q} 2> {log:q}"
