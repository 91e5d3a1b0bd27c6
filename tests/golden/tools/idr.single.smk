rule peak_reproducibility:
    input:
        peaks=expand(
            "results/replicate_peak_calling/{sample}/{sample}_peaks.narrowPeak",
            sample=SAMPLES,
        ),
    output:
        peaks="results/peak_reproducibility/idr_reproducible.narrowPeak",
        idr="results/peak_reproducibility/idr_values.txt",
        plot="results/peak_reproducibility/idr_values.txt.png",
        log="results/peak_reproducibility/idr_log.txt",
    log:
        "logs/peak_reproducibility.log",
    benchmark:
        "benchmarks/peak_reproducibility.tsv"
    conda:
        "../envs/idr.yaml"
    container:
        "docker://quay.io/biocontainers/idr:2.0.4.2--py39hcbe4a3b_5"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        threshold=config["params"]["idr"]["threshold"],
        rank=config["params"]["idr"]["rank"],
        extra=config["params"]["idr"]["extra"],
        samples=SAMPLES,
    shell:
        "set -- {input.peaks:q};"
        ' if [ "$#" -ne 2 ]; then echo "IDR compares exactly two replicates; the workflow has $# samples:'
        ' give two samples (replicates) in config/samples.tsv" > {log:q}; exit 1; fi;'
        ' idr --samples "$1" "$2" --input-file-type narrowPeak --rank {params.rank:q}'
        " --output-file {output.idr:q} --log-output-file {output.log:q} --plot {params.extra} > {log:q} 2>&1"
        ' && awk -v t={params.threshold} \'BEGIN {{ OFS = "\\t"; m = -log(t) / log(10) }}'
        " $12 >= m {{ print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }}' {output.idr:q} > {output.peaks:q}"
