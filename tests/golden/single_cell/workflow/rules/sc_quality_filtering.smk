rule sc_quality_filtering:
    input:
        adata=config["inputs"]["single_cell_matrix"],
    output:
        adata=intermediate("results/sc_quality_filtering/filtered.h5ad"),
    log:
        "logs/sc_quality_filtering.log",
    benchmark:
        "benchmarks/sc_quality_filtering.tsv"
    conda:
        "../envs/scanpy_qc.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 12000 * attempt,
        runtime=lambda wildcards, attempt: 50 * attempt,
    params:
        nmads=config["params"]["scanpy_qc"]["nmads"],
        min_genes=config["params"]["scanpy_qc"]["min_genes"],
        max_pct_mt=config["params"]["scanpy_qc"]["max_pct_mt"],
        min_cells=config["params"]["scanpy_qc"]["min_cells"],
        min_cells_kept=config["params"]["scanpy_qc"]["min_cells_kept"],
        mt_prefix=config["params"]["scanpy_qc"]["mt_prefix"],
    script:
        "../scripts/scanpy_qc.py"
