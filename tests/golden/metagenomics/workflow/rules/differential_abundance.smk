rule check_replicates:
    input:
        samples=config["inputs"]["sample_metadata"],
    output:
        ok="results/checks/check_replicates.ok",
    log:
        "logs/checks/check_replicates.log",
    retries: 0
    group:
        "checks_differential_abundance"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
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
        table="results/differential_abundance/differential_abundance.tsv",
    log:
        "logs/differential_abundance.log",
    benchmark:
        "benchmarks/differential_abundance.tsv"
    conda:
        "../envs/da_clr_welch.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        condition_column=config["condition_column"],
        group_a=config["params"]["da_clr_welch"]["group_a"],
        group_b=config["params"]["da_clr_welch"]["group_b"],
        test=config["params"]["da_clr_welch"]["test"],
        pseudocount=config["params"]["da_clr_welch"]["pseudocount"],
        min_prevalence=config["params"]["da_clr_welch"]["min_prevalence"],
    script:
        "../scripts/da_clr_welch.py"
