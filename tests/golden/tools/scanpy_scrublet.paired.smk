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
        "../envs/scanpy_scrublet.yaml"
    container:
        "docker://community.wave.seqera.io/library/scanpy_scikit-image:7d3d2c63b2063667"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        batch_key=config["params"]["scanpy_scrublet"]["batch_key"],
        expected_doublet_rate=config["params"]["scanpy_scrublet"][
            "expected_doublet_rate"
        ],
        n_prin_comps=config["params"]["scanpy_scrublet"]["n_prin_comps"],
        n_neighbors=config["params"]["scanpy_scrublet"]["n_neighbors"],
        threshold=config["params"]["scanpy_scrublet"]["threshold"],
        random_state=config["params"]["scanpy_scrublet"]["random_state"],
        remove_doublets=config["params"]["scanpy_scrublet"]["remove_doublets"],
    script:
        "../scripts/scanpy_scrublet.py"
