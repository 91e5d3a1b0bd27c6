
rule versions_gseapy:
    output:
        "results/pipeline_info/versions/gseapy.yml",
    log:
        "logs/versions/gseapy.log",
    localrule: True
    conda:
        "../envs/gseapy_marker_enrich.yaml"
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


rule versions_scanpy:
    output:
        "results/pipeline_info/versions/scanpy.yml",
    log:
        "logs/versions/scanpy.log",
    localrule: True
    conda:
        "../envs/scanpy_qc.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        package="scanpy",
        command="python -c \"import importlib.metadata as m; print(m.version('scanpy'))\"",
    shell:
        "exec 2> {log:q}; set +o pipefail; "
        "version=$(bash -c {params.command:q} 2>&1 | grep -oE '[0-9]+([.][0-9]+)+[a-z]?' | sed -n 1p); "
        'test -n "$version"; '
        "echo {params.package:q}: \"'$version'\" > {output:q}"


rule software_versions:
    input:
        "results/pipeline_info/versions/gseapy.yml",
        "results/pipeline_info/versions/scanpy.yml",
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
