rule trajectory_inference:
    input:
        adata="results/cell_clustering/clustered.h5ad",
    output:
        pseudotime="results/trajectory_inference/pseudotime.tsv",
        paga="results/trajectory_inference/paga_connectivities.tsv",
    log:
        "logs/trajectory_inference.log",
    benchmark:
        "benchmarks/trajectory_inference.tsv"
    conda:
        "../envs/scanpy_paga.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        cluster_key=config["params"]["scanpy_paga"]["cluster_key"],
        root_cluster=config["params"]["scanpy_paga"]["root_cluster"],
        n_dcs=config["params"]["scanpy_paga"]["n_dcs"],
        min_connectivity=config["params"]["scanpy_paga"]["min_connectivity"],
    script:
        "../scripts/scanpy_paga.py"
