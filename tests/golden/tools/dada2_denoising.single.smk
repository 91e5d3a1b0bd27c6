rule asv_inference:
    input:
        reads=expand(
            "results/amplicon_read_filtering/{sample}/filtered.fastq.gz",
            sample=SAMPLES,
        ),
        errors="results/error_model_learning/error_model.rds",
    output:
        table="results/asv_inference/asv_table.tsv",
    log:
        "logs/asv_inference.log",
    benchmark:
        "benchmarks/asv_inference.tsv"
    conda:
        "../envs/dada2_denoising.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        pool=config["params"]["dada2_denoising"]["pool"],
        min_overlap=config["params"]["dada2_denoising"]["min_overlap"],
        max_mismatch=config["params"]["dada2_denoising"]["max_mismatch"],
        samples=SAMPLES,
    script:
        "../scripts/dada2_denoising.R"
