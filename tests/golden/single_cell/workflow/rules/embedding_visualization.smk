rule embedding_visualization:
    input:
        adata="results/cell_clustering/clustered.h5ad",
    output:
        plot="results/embedding_visualization/umap.png",
        coordinates="results/embedding_visualization/umap_coordinates.tsv",
    log:
        "logs/embedding_visualization.log",
    benchmark:
        "benchmarks/embedding_visualization.tsv"
    conda:
        "../envs/scanpy_umap.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        cluster_key=config["params"]["scanpy_umap"]["cluster_key"],
        min_dist=config["params"]["scanpy_umap"]["min_dist"],
        random_state=config["params"]["scanpy_umap"]["random_state"],
        dpi=config["params"]["scanpy_umap"]["dpi"],
    script:
        "../scripts/scanpy_umap.py"
