rule umi_deduplication:
    input:
        bam="results/read_alignment/{sample}/{sample}.bam",
    output:
        bam="results/umi_deduplication/{sample}/{sample}.umi_dedup.bam",
        bai="results/umi_deduplication/{sample}/{sample}.umi_dedup.bam.bai",
        log="results/umi_deduplication/{sample}/{sample}.umi_dedup.log",
    log:
        "logs/umi_deduplication/{sample}.log",
    benchmark:
        "benchmarks/umi_deduplication/{sample}.tsv"
    conda:
        "../envs/umitools_dedup.yaml"
    container:
        "docker://community.wave.seqera.io/library/umi_tools_future_matplotlib_numpy_pruned:1ee668bafc8c9f81"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        method=config["params"]["umitools_dedup"]["method"],
        extra=config["params"]["umitools_dedup"]["extra"],
    shell:
        """
        exec 2>{log:q}
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        ln -s "$(readlink -f {input.bam:q})" "$tmp/in.bam"
        samtools index "$tmp/in.bam"
        umi_tools dedup -I "$tmp/in.bam" -S {output.bam:q} --method={params.method:q} --random-seed=100 \\
        --output-stats="$tmp/stats" {params.extra} -L {output.log:q}
        samtools index {output.bam:q} {output.bai:q}
        """
