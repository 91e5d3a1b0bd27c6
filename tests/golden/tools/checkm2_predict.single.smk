rule bin_qc:
    input:
        bins="results/contig_binning/{sample}/bins",
        database=config["references"]["bin_qc_database"],
    output:
        report="results/bin_qc/{sample}/checkm2_quality_report.tsv",
    log:
        "logs/bin_qc/{sample}.log",
    benchmark:
        "benchmarks/bin_qc/{sample}.tsv"
    conda:
        "../envs/checkm2_predict.yaml"
    container:
        "docker://quay.io/biocontainers/checkm2:1.0.2--pyh7cba7a3_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["checkm2_predict"]["extra"],
    shell:
        # CheckM2 stops on a folder without bins: an empty bin folder gets a header-only report
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " if ! ls {input.bins:q}/*.fa > /dev/null 2>&1; then"
        " printf 'Name\\tCompleteness\\tContamination\\tCompleteness_Model_Used\\tTranslation_Table_Used\\tAdditional_Notes\\n'"
        " > {output.report:q}; echo 'no bins: empty report' > {log:q}; exit 0; fi;"
        " checkm2 predict --threads {threads} --input {input.bins:q} -x fa"
        ' --database_path {input.database:q} {params.extra} --output-directory "$tmp/checkm2" > {log:q} 2>&1'
        ' && cp "$tmp/checkm2/quality_report.tsv" {output.report:q}'
