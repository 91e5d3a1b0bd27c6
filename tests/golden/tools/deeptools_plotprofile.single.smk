rule signal_profile_plotting:
    input:
        matrix="results/signal_matrix_computation/tss.mat.gz",
    output:
        plot="results/signal_profile_plotting/tss_profile.png",
        data="results/signal_profile_plotting/tss_profile.tab",
    log:
        "logs/signal_profile_plotting.log",
    benchmark:
        "benchmarks/signal_profile_plotting.tsv"
    conda:
        "../envs/deeptools_plotprofile.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        extra=config["params"]["deeptools_plotprofile"]["extra"],
    shell:
        "plotProfile --matrixFile {input.matrix:q} --outFileName {output.plot:q}"
        " --outFileNameData {output.data:q} {params.extra} > {log:q} 2>&1"
