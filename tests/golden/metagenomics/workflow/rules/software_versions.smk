
rule versions_bowtie2:
    output:
        "results/pipeline_info/versions/bowtie2.yml",
    log:
        "logs/versions/bowtie2.log",
    localrule: True
    conda:
        "../envs/bowtie2_build.yaml"
    container:
        "docker://quay.io/biocontainers/bowtie2:2.4.4--py39hbb4e92a_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="bowtie2",
        command="bowtie2-build --version 2>&1 | sed -n '1s/.* version //p'",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule versions_kraken2:
    output:
        "results/pipeline_info/versions/kraken2.yml",
    log:
        "logs/versions/kraken2.log",
    localrule: True
    conda:
        "../envs/kraken2_build_custom.yaml"
    container:
        "docker://quay.io/biocontainers/kraken2:2.1.3--pl5321hdcf5f25_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="kraken2",
        command="kraken2 --version | head -n 1",
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


rule versions_pandas:
    output:
        "results/pipeline_info/versions/pandas.yml",
    log:
        "logs/versions/pandas.log",
    localrule: True
    conda:
        "../envs/merge_kraken_reports.yaml"
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


rule versions_scipy:
    output:
        "results/pipeline_info/versions/scipy.yml",
    log:
        "logs/versions/scipy.log",
    localrule: True
    conda:
        "../envs/da_clr_welch.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="scipy",
        command="python -c \"import importlib.metadata as m; print(m.version('scipy'))\"",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule software_versions:
    input:
        "results/pipeline_info/versions/bowtie2.yml",
        "results/pipeline_info/versions/kraken2.yml",
        "results/pipeline_info/versions/multiqc.yml",
        "results/pipeline_info/versions/pandas.yml",
        "results/pipeline_info/versions/scipy.yml",
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
