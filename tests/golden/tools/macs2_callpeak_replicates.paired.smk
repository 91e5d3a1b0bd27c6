rule replicate_peak_calling:
    input:
        bams="results/duplicate_marking/{sample}/{sample}.markdup.bam",
    output:
        peaks=intermediate(
            "results/replicate_peak_calling/{sample}/{sample}_peaks.narrowPeak"
        ),
        summits="results/replicate_peak_calling/{sample}/{sample}_summits.bed",
        xls="results/replicate_peak_calling/{sample}/{sample}_peaks.xls",
    log:
        "logs/replicate_peak_calling/{sample}.log",
    benchmark:
        "benchmarks/replicate_peak_calling/{sample}.tsv"
    conda:
        "../envs/macs2_callpeak_replicates.yaml"
    container:
        "docker://quay.io/biocontainers/macs2:2.2.7.1--py38h4a8c8d9_3"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        genome_size=config["params"]["macs2_callpeak_replicates"]["genome_size"],
        qvalue=config["params"]["macs2_callpeak_replicates"]["qvalue"],
        extsize=config["params"]["macs2_callpeak_replicates"]["extsize"],
        extra=config["params"]["macs2_callpeak_replicates"]["extra"],
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; g={params.genome_size:q};"
        # auto: effective genome size = total reference length in the BAM header.
        ' if [ "$g" = auto ]; then g=$(python3 -c'
        " 'import gzip, struct, sys;"
        ' f = gzip.open(sys.argv[1]); r = lambda: struct.unpack("<i", f.read(4))[0];'
        " f.read(4); f.read(r()); print(sum((f.read(r()), r())[1] for _ in range(r())))'"
        " {input.bams:q}); fi;"
        ' macs2 callpeak --treatment {input.bams:q} --gsize "$g"'
        " --format BAMPE"
        ' --qvalue {params.qvalue} --name {wildcards.sample:q} --outdir "$tmp" {params.extra}'
        " > {log:q} 2>&1"
        ' && mv "$tmp/"{wildcards.sample:q}_peaks.narrowPeak {output.peaks:q}'
        ' && mv "$tmp/"{wildcards.sample:q}_summits.bed {output.summits:q}'
        ' && mv "$tmp/"{wildcards.sample:q}_peaks.xls {output.xls:q}'
