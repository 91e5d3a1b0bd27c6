rule check_replicates:
    input:
        samples=config["inputs"]["sample_metadata"],
    output:
        ok="results/checks/check_replicates.ok",
    log:
        "logs/checks/check_replicates.log",
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        constraint="requires_replicates",
        guarded_step="differential_abundance",
        datatypes={"samples": "sample_metadata"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_replicates.py"


rule differential_abundance:
    input:
        table="results/abundance_table_merge/abundance_table.tsv",
        samples=config["inputs"]["sample_metadata"],
        check_replicates="results/checks/check_replicates.ok",
    output:
        table="results/differential_abundance/aldex2_results.tsv",
    log:
        "logs/differential_abundance.log",
    benchmark:
        "benchmarks/differential_abundance.tsv"
    conda:
        "../envs/aldex2.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-aldex2:1.34.0--r43hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        condition_column=config["condition_column"],
        group_a=config["params"]["aldex2"]["group_a"],
        group_b=config["params"]["aldex2"]["group_b"],
        mc_samples=config["params"]["aldex2"]["mc_samples"],
        min_prevalence=config["params"]["aldex2"]["min_prevalence"],
        seed=config["params"]["aldex2"]["seed"],
    script:
        "../scripts/aldex2_da.R"
