rule transcript_quantification:
    input:
        reads=sample_file("fastq"),
        index="results/transcriptome_indexing/transcripts.idx",
    output:
        quant=directory("results/transcript_quantification/{sample}/kallisto"),
    log:
        "logs/transcript_quantification/{sample}.log",
    benchmark:
        "benchmarks/transcript_quantification/{sample}.tsv"
    conda:
        "../envs/kallisto_quant.yaml"
    container:
        "docker://quay.io/biocontainers/kallisto:0.48.0--h15996b6_2"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        fragment_length=config["params"]["kallisto_quant"]["fragment_length"],
        fragment_sd=config["params"]["kallisto_quant"]["fragment_sd"],
        bootstraps=config["params"]["kallisto_quant"]["bootstraps"],
        extra=config["params"]["kallisto_quant"]["extra"],
    shell:
        "kallisto quant --threads {threads} -i {input.index:q} -o {output.quant:q}"
        " --bootstrap-samples {params.bootstraps} {params.extra}"
        " --single -l {params.fragment_length} -s {params.fragment_sd} {input.reads:q}"
        " > {log:q} 2>&1"
