rule chimera_removal:
    input:
        table="results/asv_inference/asv_table.tsv",
    output:
        table="results/chimera_removal/asv_table_nochim.tsv",
    log:
        "logs/chimera_removal.log",
    benchmark:
        "benchmarks/chimera_removal.tsv"
    conda:
        "../envs/dada2_rmchimera.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dada2:1.30.0--r43hf17093f_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        method=config["params"]["dada2_rmchimera"]["method"],
    script:
        "../scripts/dada2_rmchimera.R"
