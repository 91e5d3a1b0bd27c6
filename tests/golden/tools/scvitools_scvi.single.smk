rule batch_correction:
    input:
        adata="results/sc_normalization/normalized.h5ad",
    output:
        adata=intermediate("results/batch_correction/integrated.h5ad"),
    log:
        "logs/batch_correction.log",
    benchmark:
        "benchmarks/batch_correction.tsv"
    conda:
        "../envs/scvitools_scvi.yaml"
    container:
        "docker://community.wave.seqera.io/library/scvi-tools:1.4.3--cce8c95b58ececa6"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        batch_key=config["params"]["scvitools_scvi"]["batch_key"],
        n_latent=config["params"]["scvitools_scvi"]["n_latent"],
        n_layers=config["params"]["scvitools_scvi"]["n_layers"],
        gene_likelihood=config["params"]["scvitools_scvi"]["gene_likelihood"],
        max_epochs=config["params"]["scvitools_scvi"]["max_epochs"],
        random_state=config["params"]["scvitools_scvi"]["random_state"],
    script:
        "../scripts/scvitools_scvi.py"
