rule check_replicates:
    input:
        samples=config["inputs"]["sample_metadata"],
    output:
        ok="results/checks/check_replicates.ok",
    log:
        "logs/checks/check_replicates.log",
    retries: 0
    group:
        "checks_differential_binding"
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
        guarded_step="differential_binding",
        datatypes={"samples": "sample_metadata"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_replicates.py"


rule differential_binding:
    input:
        counts="results/peak_counting/peak_counts.tsv",
        samples=config["inputs"]["sample_metadata"],
        check_replicates="results/checks/check_replicates.ok",
    output:
        table="results/differential_binding/differential_binding.tsv",
    log:
        "logs/differential_binding.log",
    benchmark:
        "benchmarks/differential_binding.tsv"
    conda:
        "../envs/deseq2_differential_binding.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-deseq2:1.46.0--r44he5774e6_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        condition_column=config["condition_column"],
        reference_level=config["params"]["deseq2_differential_binding"][
            "reference_level"
        ],
        test_level=config["params"]["deseq2_differential_binding"]["test_level"],
        alpha=config["params"]["deseq2_differential_binding"]["alpha"],
        lfc_threshold=config["params"]["deseq2_differential_binding"]["lfc_threshold"],
    script:
        "../scripts/deseq2_de.R"
