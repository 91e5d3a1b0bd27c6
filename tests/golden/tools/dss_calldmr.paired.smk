rule differential_methylation:
    input:
        calls=expand(
            "results/methylation_calling/{sample}/{sample}.bismark.cov.gz",
            sample=SAMPLES,
        ),
        samples=config["inputs"]["sample_metadata"],
    output:
        regions="results/differential_methylation/dss_dmrs.tsv",
        loci="results/differential_methylation/dss_dml_tests.tsv",
    log:
        "logs/differential_methylation.log",
    benchmark:
        "benchmarks/differential_methylation.tsv"
    conda:
        "../envs/dss_calldmr.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-dss:2.48.0--r43ha9d7317_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        condition_column=config["condition_column"],
        reference_level=config["params"]["dss_calldmr"]["reference_level"],
        test_level=config["params"]["dss_calldmr"]["test_level"],
        smoothing=config["params"]["dss_calldmr"]["smoothing"],
        smoothing_span=config["params"]["dss_calldmr"]["smoothing_span"],
        delta=config["params"]["dss_calldmr"]["delta"],
        p_threshold=config["params"]["dss_calldmr"]["p_threshold"],
        dmr_p_threshold=config["params"]["dss_calldmr"]["dmr_p_threshold"],
        min_cpg=config["params"]["dss_calldmr"]["min_cpg"],
        min_length=config["params"]["dss_calldmr"]["min_length"],
        dis_merge=config["params"]["dss_calldmr"]["dis_merge"],
        samples=SAMPLES,
    script:
        "../scripts/dss_dmr.R"
