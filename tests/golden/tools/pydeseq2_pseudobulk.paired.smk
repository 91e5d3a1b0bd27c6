rule pseudobulk_differential_expression:
    input:
        adata="results/cell_clustering/clustered.h5ad",
        labels="results/cell_type_annotation/cluster_cell_types.tsv",
    output:
        table="results/pseudobulk_differential_expression/pseudobulk_de.tsv",
    log:
        "logs/pseudobulk_differential_expression.log",
    benchmark:
        "benchmarks/pseudobulk_differential_expression.tsv"
    conda:
        "../envs/pydeseq2_pseudobulk.yaml"
    container:
        "docker://quay.io/biocontainers/pydeseq2:0.5.2--pyhdfd78af_0"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        sample_key=config["params"]["pydeseq2_pseudobulk"]["sample_key"],
        condition_key=config["params"]["pydeseq2_pseudobulk"]["condition_key"],
        cluster_key=config["params"]["pydeseq2_pseudobulk"]["cluster_key"],
        reference_level=config["params"]["pydeseq2_pseudobulk"]["reference_level"],
        test_level=config["params"]["pydeseq2_pseudobulk"]["test_level"],
        min_cells=config["params"]["pydeseq2_pseudobulk"]["min_cells"],
        min_counts=config["params"]["pydeseq2_pseudobulk"]["min_counts"],
        alpha=config["params"]["pydeseq2_pseudobulk"]["alpha"],
    script:
        "../scripts/pseudobulk_pydeseq2.py"
