rule cell_cycle_scoring:
    input:
        adata="results/sc_normalization/normalized.h5ad",
    output:
        adata=intermediate("results/cell_cycle_scoring/cell_cycle.h5ad"),
        phases="results/cell_cycle_scoring/cell_cycle_phases.tsv",
    log:
        "logs/cell_cycle_scoring.log",
    benchmark:
        "benchmarks/cell_cycle_scoring.tsv"
    conda:
        "../envs/scanpy_cell_cycle.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        regress_out=config["params"]["scanpy_cell_cycle"]["regress_out"],
        n_bins=config["params"]["scanpy_cell_cycle"]["n_bins"],
        random_state=config["params"]["scanpy_cell_cycle"]["random_state"],
        min_genes=config["params"]["scanpy_cell_cycle"]["min_genes"],
    script:
        "../scripts/scanpy_cell_cycle.py"
