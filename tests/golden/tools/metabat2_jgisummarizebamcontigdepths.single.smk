rule contig_depth:
    input:
        bam="results/contig_read_mapping/{sample}/{sample}.contigs.bam",
    output:
        depth="results/contig_depth/{sample}/contig_depths.tsv",
    log:
        "logs/contig_depth/{sample}.log",
    benchmark:
        "benchmarks/contig_depth/{sample}.tsv"
    conda:
        "../envs/metabat2_jgisummarizebamcontigdepths.yaml"
    container:
        "docker://quay.io/biocontainers/metabat2:2.15--h986a166_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        min_identity=config["params"]["metabat2_jgisummarizebamcontigdepths"][
            "min_identity"
        ],
        extra=config["params"]["metabat2_jgisummarizebamcontigdepths"]["extra"],
    shell:
        "jgi_summarize_bam_contig_depths --percentIdentity {params.min_identity} {params.extra}"
        " --outputDepth {output.depth:q} {input.bam:q} > {log:q} 2>&1"
