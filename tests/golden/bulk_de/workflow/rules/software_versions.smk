
rule versions_bioconductor_deseq2:
    output:
        "results/pipeline_info/versions/bioconductor-deseq2.yml",
    log:
        "logs/versions/bioconductor-deseq2.log",
    localrule: True
    conda:
        "../envs/deseq2.yaml"
    container:
        "docker://quay.io/biocontainers/bioconductor-deseq2:1.46.0--r44he5774e6_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="bioconductor-deseq2",
        command='Rscript -e \'cat(as.character(packageVersion("DESeq2")), "\\n")\'',
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_gseapy:
    output:
        "results/pipeline_info/versions/gseapy.yml",
    log:
        "logs/versions/gseapy.log",
    localrule: True
    conda:
        "../envs/gseapy_enrich_go.yaml"
    container:
        "docker://quay.io/biocontainers/gseapy:1.1.8--py312h004ce86_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="gseapy",
        command="python -c \"import importlib.metadata as m; print(m.version('gseapy'))\"",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_pandas:
    output:
        "results/pipeline_info/versions/pandas.yml",
    log:
        "logs/versions/pandas.log",
    localrule: True
    conda:
        "../envs/de_filter.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="pandas",
        command="python -c \"import importlib.metadata as m; print(m.version('pandas'))\"",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule software_versions:
    input:
        "results/pipeline_info/versions/bioconductor-deseq2.yml",
        "results/pipeline_info/versions/gseapy.yml",
        "results/pipeline_info/versions/pandas.yml",
    output:
        table="results/pipeline_info/software_versions.yml",
        multiqc="results/pipeline_info/software_versions_mqc_versions.yml",
    log:
        "logs/software_versions.log",
    localrule: True
    conda:
        "../envs/software_versions.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    shell:
        "cat {input:q} > {output.table:q} 2> {log:q} && cp {output.table:q} {output.multiqc:q}"
