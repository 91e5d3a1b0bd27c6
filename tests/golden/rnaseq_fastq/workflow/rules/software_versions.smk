
rule versions_fastp:
    output:
        "results/pipeline_info/versions/fastp.yml",
    log:
        "logs/versions/fastp.log",
    localrule: True
    conda:
        "../envs/fastp.yaml"
    container:
        "docker://quay.io/biocontainers/fastp:0.23.4--h5f740d0_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="fastp",
        command="fastp --version 2>&1 | sed -n 's/^fastp //p'",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_fastqc:
    output:
        "results/pipeline_info/versions/fastqc.yml",
    log:
        "logs/versions/fastqc.log",
    localrule: True
    conda:
        "../envs/fastqc.yaml"
    container:
        "docker://quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="fastqc",
        command="fastqc --version 2>&1 | sed -n 's/^FastQC v//p'",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_multiqc:
    output:
        "results/pipeline_info/versions/multiqc.yml",
    log:
        "logs/versions/multiqc.log",
    localrule: True
    conda:
        "../envs/multiqc.yaml"
    container:
        "docker://quay.io/biocontainers/multiqc:1.25.1--pyhdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="multiqc",
        command="python -c \"import importlib.metadata as m; print(m.version('multiqc'))\" 2>/dev/null || multiqc --version | sed -n 's/.* version //p'",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_star:
    output:
        "results/pipeline_info/versions/star.yml",
    log:
        "logs/versions/star.log",
    localrule: True
    conda:
        "../envs/star_genome_generate.yaml"
    container:
        "docker://quay.io/biocontainers/star:2.7.10a--h9ee0642_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="star",
        command="STAR --version",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_subread:
    output:
        "results/pipeline_info/versions/subread.yml",
    log:
        "logs/versions/subread.log",
    localrule: True
    conda:
        "../envs/featurecounts.yaml"
    container:
        "docker://quay.io/biocontainers/subread:2.0.6--he4a0461_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="subread",
        command="featureCounts -v 2>&1 | grep featureCounts",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule software_versions:
    input:
        "results/pipeline_info/versions/fastp.yml",
        "results/pipeline_info/versions/fastqc.yml",
        "results/pipeline_info/versions/multiqc.yml",
        "results/pipeline_info/versions/star.yml",
        "results/pipeline_info/versions/subread.yml",
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
