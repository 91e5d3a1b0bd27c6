rule alignment_qc:
    input:
        bam="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        stats="results/alignment_qc/{sample}/{sample}.mosdepth.summary.txt",
        global_dist="results/alignment_qc/{sample}/{sample}.mosdepth.global.dist.txt",
        regions="results/alignment_qc/{sample}/{sample}.regions.bed.gz",
    log:
        "logs/alignment_qc/{sample}.log",
    benchmark:
        "benchmarks/alignment_qc/{sample}.tsv"
    conda:
        "../envs/mosdepth.yaml"
    container:
        "docker://quay.io/biocontainers/mosdepth:0.3.3--hdfd78af_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        window=config["params"]["mosdepth"]["window"],
        extra=config["params"]["mosdepth"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        mosdepth -n -x -t {threads} --by {params.window} {params.extra} "$tmp/out" {input.bam:q}
        mv "$tmp/out.mosdepth.summary.txt" {output.stats:q}
        mv "$tmp/out.mosdepth.global.dist.txt" {output.global_dist:q}
        mv "$tmp/out.regions.bed.gz" {output.regions:q}
        """
