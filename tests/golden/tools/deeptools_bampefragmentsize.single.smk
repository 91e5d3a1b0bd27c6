rule fragment_size_qc:
    input:
        bam="results/mitochondrial_read_removal/{sample}/{sample}.nomito.bam",
    output:
        report="results/fragment_size_qc/{sample}/{sample}.fragment_size.png",
        table="results/fragment_size_qc/{sample}/{sample}.fragment_size.tsv",
        lengths="results/fragment_size_qc/{sample}/{sample}.fragment_lengths.tsv",
    log:
        "logs/fragment_size_qc/{sample}.log",
    benchmark:
        "benchmarks/fragment_size_qc/{sample}.tsv"
    conda:
        "../envs/deeptools_bampefragmentsize.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        max_fragment_length=config["params"]["deeptools_bampefragmentsize"][
            "max_fragment_length"
        ],
        extra=config["params"]["deeptools_bampefragmentsize"]["extra"],
    shell:
        "bamPEFragmentSize --bamfiles {input.bam:q} --samplesLabel {wildcards.sample:q}"
        " --histogram {output.report:q} --table {output.table:q} --outRawFragmentLengths {output.lengths:q}"
        " --maxFragmentLength {params.max_fragment_length} --numberOfProcessors {threads}"
        " {params.extra} > {log:q} 2>&1"
