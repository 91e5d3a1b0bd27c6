rule sc_normalization:
    input:
        adata="results/sc_quality_filtering/filtered.h5ad",
    output:
        adata=intermediate("results/sc_normalization/normalized.h5ad"),
    log:
        "logs/sc_normalization.log",
    benchmark:
        "benchmarks/sc_normalization.tsv"
    conda:
        "../envs/scanpy_normalize.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        target_sum=config["params"]["scanpy_normalize"]["target_sum"],
        n_top_genes=config["params"]["scanpy_normalize"]["n_top_genes"],
        hvg_flavor=config["params"]["scanpy_normalize"]["hvg_flavor"],
    script:
        "../scripts/scanpy_normalize.py"
