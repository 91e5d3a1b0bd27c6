rule batch_correction:
    input:
        adata="results/sc_normalization/normalized.h5ad",
    output:
        adata=intermediate("results/batch_correction/integrated.h5ad"),
        mixing="results/batch_correction/batch_mixing.tsv",
    log:
        "logs/batch_correction.log",
    benchmark:
        "benchmarks/batch_correction.tsv"
    conda:
        "../envs/harmonypy.yaml"
    container:
        "docker://community.wave.seqera.io/library/harmonypy_scanpy:e9c9a621297da9ea"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        batch_key=config["params"]["harmonypy"]["batch_key"],
        n_comps=config["params"]["harmonypy"]["n_comps"],
        theta=config["params"]["harmonypy"]["theta"],
        max_iter=config["params"]["harmonypy"]["max_iter"],
        random_state=config["params"]["harmonypy"]["random_state"],
        mixing_neighbors=config["params"]["harmonypy"]["mixing_neighbors"],
    script:
        "../scripts/harmony_integrate.py"
