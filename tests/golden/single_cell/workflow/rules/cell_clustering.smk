rule cell_clustering:
    input:
        adata="results/sc_normalization/normalized.h5ad",
    output:
        adata=intermediate("results/cell_clustering/clustered.h5ad"),
    log:
        "logs/cell_clustering.log",
    benchmark:
        "benchmarks/cell_clustering.tsv"
    conda:
        "../envs/scanpy_leiden.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        n_comps=config["params"]["scanpy_leiden"]["n_comps"],
        n_neighbors=config["params"]["scanpy_leiden"]["n_neighbors"],
        resolution=config["params"]["scanpy_leiden"]["resolution"],
        random_state=config["params"]["scanpy_leiden"]["random_state"],
        cluster_key=config["params"]["scanpy_leiden"]["cluster_key"],
        neighbors_method=config["params"]["scanpy_leiden"]["neighbors_method"],
    script:
        "../scripts/scanpy_leiden.py"
