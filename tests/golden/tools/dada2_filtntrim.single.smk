rule amplicon_read_filtering:
    input:
        reads="results/primer_removal/{sample}/trimmed.fastq.gz",
    output:
        filtered=intermediate(
            "results/amplicon_read_filtering/{sample}/filtered.fastq.gz"
        ),
    log:
        "logs/amplicon_read_filtering/{sample}.log",
    benchmark:
        "benchmarks/amplicon_read_filtering/{sample}.tsv"
    conda:
        "../envs/dada2_filtntrim.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        trunc_len_fwd=config["params"]["dada2_filtntrim"]["trunc_len_fwd"],
        trunc_len_rev=config["params"]["dada2_filtntrim"]["trunc_len_rev"],
        max_ee=config["params"]["dada2_filtntrim"]["max_ee"],
        trunc_q=config["params"]["dada2_filtntrim"]["trunc_q"],
        min_len=config["params"]["dada2_filtntrim"]["min_len"],
        max_n=config["params"]["dada2_filtntrim"]["max_n"],
        rm_phix=config["params"]["dada2_filtntrim"]["rm_phix"],
    script:
        "../scripts/dada2_filtntrim.R"
