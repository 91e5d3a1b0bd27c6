rule doublet_detection:
    input:
        adata="results/sc_quality_filtering/filtered.h5ad",
    output:
        adata=intermediate("results/doublet_detection/singlets.h5ad"),
        scores="results/doublet_detection/doublet_scores.tsv",
    log:
        "logs/doublet_detection.log",
    benchmark:
        "benchmarks/doublet_detection.tsv"
    conda:
        "../envs/scvitools_solo.yaml"
    container:
        "docker://community.wave.seqera.io/library/scvi-tools:1.4.3--cce8c95b58ececa6"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        batch_key=config["params"]["scvitools_solo"]["batch_key"],
        max_epochs=config["params"]["scvitools_solo"]["max_epochs"],
        random_state=config["params"]["scvitools_solo"]["random_state"],
        remove_doublets=config["params"]["scvitools_solo"]["remove_doublets"],
    script:
        "../scripts/scvitools_solo.py"
