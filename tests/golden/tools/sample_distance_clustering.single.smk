rule sample_clustering:
    input:
        normalized="results/count_normalization/vst.tsv",
        samples=config["inputs"]["sample_metadata"],
    output:
        plot="results/sample_clustering/sample_distances.png",
        distances="results/sample_clustering/sample_distances.tsv",
        tree="results/sample_clustering/sample_clustering.nwk",
    log:
        "logs/sample_clustering.log",
    benchmark:
        "benchmarks/sample_clustering.tsv"
    conda:
        "../envs/sample_distance_clustering.yaml"
    container:
        "docker://community.wave.seqera.io/library/python-igraph_scanpy:e3d5b4ea56e99f52"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    params:
        condition_column=config["condition_column"],
        ntop=config["params"]["sample_distance_clustering"]["ntop"],
        method=config["params"]["sample_distance_clustering"]["method"],
        title=config["params"]["sample_distance_clustering"]["title"],
    script:
        "../scripts/sample_distance_clustering.py"
