rule check_gene_annotation:
    input:
        regions=config["inputs"]["gene_annotation"],
    output:
        ok="results/checks/check_gene_annotation.ok",
    log:
        "logs/checks/check_gene_annotation.log",
    retries: 0
    group:
        "checks_gene_body_signal_computation"
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
        guarded_step="gene_body_signal_computation",
        datatypes={"regions": "gene_annotation"},
    script:
        "../scripts/check_gene_annotation.py"


rule gene_body_signal_computation:
    input:
        tracks=expand(
            "results/coverage_computation/{sample}/{sample}.bw", sample=SAMPLES
        ),
        regions=config["inputs"]["gene_annotation"],
        check_gene_annotation="results/checks/check_gene_annotation.ok",
    output:
        matrix=intermediate("results/gene_body_signal_computation/genebody.mat.gz"),
        table="results/gene_body_signal_computation/genebody.tab",
    log:
        "logs/gene_body_signal_computation.log",
    benchmark:
        "benchmarks/gene_body_signal_computation.tsv"
    conda:
        "../envs/deeptools_computematrix_scaleregions.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        upstream=config["params"]["deeptools_computematrix_scaleregions"]["upstream"],
        downstream=config["params"]["deeptools_computematrix_scaleregions"][
            "downstream"
        ],
        region_body_length=config["params"]["deeptools_computematrix_scaleregions"][
            "region_body_length"
        ],
        bin_size=config["params"]["deeptools_computematrix_scaleregions"]["bin_size"],
        extra=config["params"]["deeptools_computematrix_scaleregions"]["extra"],
        samples=SAMPLES,
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; regions={input.regions:q};"
        ' case "$regions" in *.gz) gzip -cd "$regions" > "$tmp/regions.gtf"; regions="$tmp/regions.gtf";; esac;'
        ' computeMatrix scale-regions --scoreFileName {input.tracks:q} --regionsFileName "$regions"'
        " --samplesLabel {params.samples:q} --regionBodyLength {params.region_body_length}"
        " --upstream {params.upstream} --downstream {params.downstream} --binSize {params.bin_size}"
        " --outFileName {output.matrix:q} --outFileNameMatrix {output.table:q}"
        " --numberOfProcessors {threads} {params.extra} > {log:q} 2>&1"
