rule marker_gene_detection:
    input:
        adata="results/cell_clustering/clustered.h5ad",
    output:
        markers="results/marker_gene_detection/markers.tsv",
    log:
        "logs/marker_gene_detection.log",
    benchmark:
        "benchmarks/marker_gene_detection.tsv"
    conda:
        "../envs/scanpy_rank_genes_groups.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        cluster_key=config["params"]["scanpy_rank_genes_groups"]["cluster_key"],
        method=config["params"]["scanpy_rank_genes_groups"]["method"],
        n_genes=config["params"]["scanpy_rank_genes_groups"]["n_genes"],
    script:
        "../scripts/scanpy_rank_genes_groups.py"
