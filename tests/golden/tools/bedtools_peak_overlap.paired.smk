rule peak_set_comparison:
    input:
        peaks=expand(
            "results/replicate_peak_calling/{sample}/{sample}_peaks.narrowPeak",
            sample=SAMPLES,
        ),
    output:
        table="results/peak_set_comparison/peak_overlaps.tsv",
        jaccard="results/peak_set_comparison/peak_jaccard.tsv",
        multiinter="results/peak_set_comparison/peak_multiinter.tsv",
    log:
        "logs/peak_set_comparison.log",
    benchmark:
        "benchmarks/peak_set_comparison.tsv"
    conda:
        "../envs/bedtools_peak_overlap.yaml"
    container:
        "docker://quay.io/biocontainers/bedtools:2.31.1--hf5e1c6e_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    params:
        samples=SAMPLES,
        program=workflow.source_path("../scripts/peak_set_overlap.sh"),
    shell:
        """
        exec 2>{log:q}
        set -- {params.samples:q}
        for f in {input.peaks:q}; do
            set -- "$@" "$1" "$f"
            shift
        done
        sh {params.program:q} {output.table:q} {output.jaccard:q} {output.multiinter:q} "$@"
        """
