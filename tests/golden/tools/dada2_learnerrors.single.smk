rule error_model_learning:
    input:
        reads=expand(
            "results/amplicon_read_filtering/{sample}/filtered.fastq.gz",
            sample=SAMPLES,
        ),
    output:
        errors=intermediate("results/error_model_learning/error_model.rds"),
    log:
        "logs/error_model_learning.log",
    benchmark:
        "benchmarks/error_model_learning.tsv"
    conda:
        "../envs/dada2_learnerrors.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        nbases=config["params"]["dada2_learnerrors"]["nbases"],
        seed=config["params"]["dada2_learnerrors"]["seed"],
        samples=SAMPLES,
    script:
        "../scripts/dada2_learnerrors.R"
