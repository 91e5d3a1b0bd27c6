rule cell_type_annotation:
    input:
        adata="results/cell_clustering/clustered.h5ad",
        markers="results/marker_gene_detection/markers.tsv",
    output:
        labels="results/cell_type_annotation/cluster_cell_types.tsv",
        cells="results/cell_type_annotation/cell_types_per_cell.tsv",
    log:
        "logs/cell_type_annotation.log",
    benchmark:
        "benchmarks/cell_type_annotation.tsv"
    conda:
        "../envs/celltypist.yaml"
    container:
        "docker://quay.io/biocontainers/celltypist:1.7.1--pyhdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        model=config["params"]["celltypist"]["model"],
        cluster_key=config["params"]["celltypist"]["cluster_key"],
        majority_voting=config["params"]["celltypist"]["majority_voting"],
        top_n=config["params"]["celltypist"]["top_n"],
    script:
        "../scripts/celltypist_annotate.py"
