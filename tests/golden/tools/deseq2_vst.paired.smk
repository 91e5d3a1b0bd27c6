rule check_raw_integer_counts:
    input:
        counts=config["inputs"]["raw_count_matrix"],
    output:
        ok="results/checks/check_raw_integer_counts.ok",
    log:
        "logs/checks/check_raw_integer_counts.log",
    retries: 0
    group:
        "checks_count_normalization"
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
        guarded_step="count_normalization",
        datatypes={"counts": "raw_count_matrix"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_integer_counts.py"


rule count_normalization:
    input:
        counts=config["inputs"]["raw_count_matrix"],
        check_raw_integer_counts="results/checks/check_raw_integer_counts.ok",
    output:
        normalized="results/count_normalization/vst.tsv",
    log:
        "logs/count_normalization.log",
    benchmark:
        "benchmarks/count_normalization.tsv"
    conda:
        "../envs/deseq2_vst.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-deseq2:1.46.0--r44he5774e6_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        fit_type=config["params"]["deseq2_vst"]["fit_type"],
        blind=config["params"]["deseq2_vst"]["blind"],
    script:
        "../scripts/deseq2_vst.R"
