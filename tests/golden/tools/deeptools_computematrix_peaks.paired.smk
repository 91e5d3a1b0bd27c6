rule region_signal_computation:
    input:
        tracks=expand(
            "results/coverage_computation/{sample}/{sample}.bw", sample=SAMPLES
        ),
        regions="results/peak_calling/peaks.narrowPeak",
    output:
        matrix=intermediate("results/region_signal_computation/peaks.mat.gz"),
        table="results/region_signal_computation/peaks.tab",
        regions="results/region_signal_computation/peaks.regions.bed",
    log:
        "logs/region_signal_computation.log",
    benchmark:
        "benchmarks/region_signal_computation.tsv"
    conda:
        "../envs/deeptools_computematrix_peaks.yaml"
    container:
        "docker://quay.io/biocontainers/deeptools:3.5.6--pyhdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        upstream=config["params"]["deeptools_computematrix_peaks"]["upstream"],
        downstream=config["params"]["deeptools_computematrix_peaks"]["downstream"],
        bin_size=config["params"]["deeptools_computematrix_peaks"]["bin_size"],
        reference_point=config["params"]["deeptools_computematrix_peaks"][
            "reference_point"
        ],
        extra=config["params"]["deeptools_computematrix_peaks"]["extra"],
        samples=SAMPLES,
    shell:
        "set -o pipefail; tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' for f in {input.regions:q}; do case "$f" in *.gz) gzip -cd "$f";; *) cat "$f";; esac; done'
        " | awk 'BEGIN {{ OFS = \"\\t\" }} !/^(#|track|browser)/ && NF >= 3 {{ print $1, $2, $3 }}' | LC_ALL=C sort -k1,1 -k2,2n"
        ' | awk \'BEGIN {{ OFS = "\\t" }} $1 == c && $2 <= e {{ if ($3 > e) e = $3; next }}'
        ' {{ if (c != "") print c, s, e; c = $1; s = $2; e = $3 }} END {{ if (c != "") print c, s, e }}\''
        ' > "$tmp/regions.bed" 2> {log:q};'
        ' computeMatrix reference-point --scoreFileName {input.tracks:q} --regionsFileName "$tmp/regions.bed"'
        " --samplesLabel {params.samples:q} --referencePoint {params.reference_point:q}"
        " --upstream {params.upstream} --downstream {params.downstream} --binSize {params.bin_size}"
        " --outFileName {output.matrix:q} --outFileNameMatrix {output.table:q} --outFileSortedRegions {output.regions:q}"
        " --numberOfProcessors {threads} {params.extra} >> {log:q} 2>&1"
