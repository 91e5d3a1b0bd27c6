rule sample_correlation:
    input:
        counts="results/bin_read_counting/multibamsummary.npz",
    output:
        correlation="results/sample_correlation/correlation_heatmap.png",
        matrix="results/sample_correlation/correlation_matrix.tsv",
    log:
        "logs/sample_correlation.log",
    benchmark:
        "benchmarks/sample_correlation.tsv"
    conda:
        "../envs/deeptools_plotcorrelation.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        method=config["params"]["deeptools_plotcorrelation"]["method"],
        extra=config["params"]["deeptools_plotcorrelation"]["extra"],
    shell:
        "plotCorrelation --corData {input.counts:q} --corMethod {params.method:q} --whatToPlot heatmap"
        " --plotNumbers --plotFile {output.correlation:q} --outFileCorMatrix {output.matrix:q}"
        " {params.extra} > {log:q} 2>&1"
