rule qc_report_aggregation:
    input:
        taxonomic_classification_classification=expand(
            "results/taxonomic_classification/{sample}/{sample}.kreport",
            sample=SAMPLES,
        ),
        software_versions="results/pipeline_info/software_versions_mqc_versions.yml",
    output:
        report="results/qc_report_aggregation/multiqc_report.html",
        data=directory("results/qc_report_aggregation/multiqc_data"),
    log:
        "logs/qc_report_aggregation.log",
    benchmark:
        "benchmarks/qc_report_aggregation.tsv"
    conda:
        "../envs/multiqc.yaml"
    container:
        "docker://quay.io/biocontainers/multiqc:1.25.1--pyhdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["multiqc"]["extra"],
    shell:
        "multiqc --force --no-ansi --cl-config 'no_version_check: true'"
        " --cl-config 'extra_fn_clean_exts: [.kreport]'"
        ' --outdir "$(dirname {output.report:q})" {params.extra} {input:q} > {log:q} 2>&1'
