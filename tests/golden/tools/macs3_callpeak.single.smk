rule peak_calling:
    input:
        bams=expand(
            "results/duplicate_marking/{sample}/{sample}.markdup.bam", sample=SAMPLES
        ),
    output:
        peaks="results/peak_calling/peaks.narrowPeak",
        summits="results/peak_calling/summits.bed",
        xls="results/peak_calling/peaks.xls",
    log:
        "logs/peak_calling.log",
    benchmark:
        "benchmarks/peak_calling.tsv"
    conda:
        "../envs/macs3_callpeak.yaml"
    container:
        "docker://quay.io/biocontainers/macs3:3.0.4--py312h71493bf_0"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        genome_size=config["params"]["macs3_callpeak"]["genome_size"],
        qvalue=config["params"]["macs3_callpeak"]["qvalue"],
        extsize=config["params"]["macs3_callpeak"]["extsize"],
        extra=config["params"]["macs3_callpeak"]["extra"],
        samples=SAMPLES,
    shell:
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT; g={params.genome_size:q};"
        # auto: effective genome size = total reference length in the first BAM header.
        ' if [ "$g" = auto ]; then set -- {input.bams:q}; g=$(python3 -c'
        " 'import gzip, struct, sys;"
        ' f = gzip.open(sys.argv[1]); r = lambda: struct.unpack("<i", f.read(4))[0];'
        " f.read(4); f.read(r()); print(sum((f.read(r()), r())[1] for _ in range(r())))'"
        ' "$1"); fi;'
        ' macs3 callpeak --treatment {input.bams:q} --gsize "$g"'
        " --format BAM --fix-bimodal --extsize {params.extsize}"
        ' --qvalue {params.qvalue} --name pooled --outdir "$tmp" {params.extra}'
        " > {log:q} 2>&1"
        ' && mv "$tmp/"pooled_peaks.narrowPeak {output.peaks:q}'
        ' && mv "$tmp/"pooled_summits.bed {output.summits:q}'
        ' && mv "$tmp/"pooled_peaks.xls {output.xls:q}'
