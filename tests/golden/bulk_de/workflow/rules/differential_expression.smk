rule check_raw_integer_counts:
    input:
        counts=config["inputs"]["raw_count_matrix"],
    output:
        ok="results/checks/check_raw_integer_counts.ok",
    log:
        "logs/checks/check_raw_integer_counts.log",
    retries: 0
    group:
        "checks_differential_expression"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_raw_integer_counts",
        guarded_step="differential_expression",
        datatypes={"counts": "raw_count_matrix"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_integer_counts.py"


rule check_replicates:
    input:
        samples=config["inputs"]["sample_metadata"],
    output:
        ok="results/checks/check_replicates.ok",
    log:
        "logs/checks/check_replicates.log",
    retries: 0
    group:
        "checks_differential_expression"
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
        guarded_step="differential_expression",
        datatypes={"samples": "sample_metadata"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_replicates.py"


rule differential_expression:
    input:
        counts=config["inputs"]["raw_count_matrix"],
        samples=config["inputs"]["sample_metadata"],
        check_raw_integer_counts="results/checks/check_raw_integer_counts.ok",
        check_replicates="results/checks/check_replicates.ok",
    output:
        table="results/differential_expression/deseq2_results.tsv",
    log:
        "logs/differential_expression.log",
    benchmark:
        "benchmarks/differential_expression.tsv"
    conda:
        "../envs/deseq2.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-deseq2:1.46.0--r44he5774e6_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        condition_column=config["condition_column"],
        reference_level=config["params"]["deseq2"]["reference_level"],
        test_level=config["params"]["deseq2"]["test_level"],
        alpha=config["params"]["deseq2"]["alpha"],
        lfc_threshold=config["params"]["deseq2"]["lfc_threshold"],
    script:
        "../scripts/deseq2_de.R"
