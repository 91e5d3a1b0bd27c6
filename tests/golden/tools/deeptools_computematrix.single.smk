rule check_gene_annotation:
    input:
        regions=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_signal_matrix_computation"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="requires_gene_annotation",
        guarded_step="signal_matrix_computation",
        datatypes={"regions": "gene_annotation"},
    script:
        "../scripts/check_gene_annotation.py"


rule signal_matrix_computation:
    input:
        tracks=expand(
            "results/coverage_computation/{sample}/{sample}.bw", sample=SAMPLES
        ),
        regions=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        matrix=intermediate("results/signal_matrix_computation/tss.mat.gz"),
        table="results/signal_matrix_computation/tss.tab",
    log:
        "logs/signal_matrix_computation.log",
    benchmark:
        "benchmarks/signal_matrix_computation.tsv"
    conda:
        "../envs/deeptools_computematrix.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        upstream=config["params"]["deeptools_computematrix"]["upstream"],
        downstream=config["params"]["deeptools_computematrix"]["downstream"],
        bin_size=config["params"]["deeptools_computematrix"]["bin_size"],
        reference_point=config["params"]["deeptools_computematrix"]["reference_point"],
        extra=config["params"]["deeptools_computematrix"]["extra"],
        samples=SAMPLES,
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; regions={input.regions:q};"
        ' case "$regions" in *.gz) gzip -cd "$regions" > "$tmp/regions.gtf"; regions="$tmp/regions.gtf";; esac;'
        ' computeMatrix reference-point --scoreFileName {input.tracks:q} --regionsFileName "$regions"'
        " --samplesLabel {params.samples:q} --referencePoint {params.reference_point:q}"
        " --upstream {params.upstream} --downstream {params.downstream} --binSize {params.bin_size}"
        " --outFileName {output.matrix:q} --outFileNameMatrix {output.table:q}"
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
