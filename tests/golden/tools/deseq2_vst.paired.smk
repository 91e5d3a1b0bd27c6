rule count_normalization:
    input:
        counts=config["inputs"]["raw_count_matrix"],
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
