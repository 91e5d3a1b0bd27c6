
rule versions_bcftools:
    output:
        "results/pipeline_info/versions/bcftools.yml",
    log:
        "logs/versions/bcftools.log",
    localrule: True
    conda:
        "../envs/bcftools_filter.yaml"
    container:
        "docker://quay.io/biocontainers/bcftools:1.16--hfe4b78e_1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="bcftools",
        command="bcftools --version | head -n 1",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_gffread:
    output:
        "results/pipeline_info/versions/gffread.yml",
    log:
        "logs/versions/gffread.log",
    localrule: True
    conda:
        "../envs/gffread_gtf.yaml"
    container:
        "docker://quay.io/biocontainers/gffread:0.12.7--hdcf5f25_4"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="gffread",
        command="gffread --version",
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


rule versions_python:
    output:
        "results/pipeline_info/versions/python.yml",
    log:
        "logs/versions/python.log",
    localrule: True
    conda:
        "../envs/variant_summary_table.yaml"
    container:
        "docker://quay.io/biocontainers/python:3.12"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="python",
        command="python --version",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_snpeff:
    output:
        "results/pipeline_info/versions/snpeff.yml",
    log:
        "logs/versions/snpeff.log",
    localrule: True
    conda:
        "../envs/snpeff_build.yaml"
    container:
        "docker://quay.io/biocontainers/snpeff:5.1--hdfd78af_2"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="snpeff",
        command="snpEff -version",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_tabix:
    output:
        "results/pipeline_info/versions/tabix.yml",
    log:
        "logs/versions/tabix.log",
    localrule: True
    conda:
        "../envs/tabix_bgziptabix.yaml"
    container:
        "docker://quay.io/biocontainers/tabix:1.11--hdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="tabix",
        command="tabix --version | sed -n '1s/^tabix (htslib) //p'",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule software_versions:
    input:
        "results/pipeline_info/versions/bcftools.yml",
        "results/pipeline_info/versions/gffread.yml",
        "results/pipeline_info/versions/multiqc.yml",
        "results/pipeline_info/versions/python.yml",
        "results/pipeline_info/versions/snpeff.yml",
        "results/pipeline_info/versions/tabix.yml",
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
