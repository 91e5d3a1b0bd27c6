rule methylation_calling:
    input:
        bam="results/bisulfite_deduplication/{sample}/{sample}.deduplicated.bam",
    output:
        calls="results/methylation_calling/{sample}/{sample}.bismark.cov.gz",
        mbias="results/methylation_calling/{sample}/{sample}.M-bias.txt",
        report="results/methylation_calling/{sample}/{sample}_splitting_report.txt",
    log:
        "logs/methylation_calling/{sample}.log",
    benchmark:
        "benchmarks/methylation_calling/{sample}.tsv"
    conda:
        "../envs/bismark_methylationextractor.yaml"
    container:
        "docker://quay.io/biocontainers/bismark:0.24.2--hdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 480 * attempt,
    params:
        extra=config["params"]["bismark_methylationextractor"]["extra"],
    shell:
        # The extractor names its outputs after the BAM: it reads a link named <sample>.bam
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ln -s "$(readlink -f {input.bam:q})" "$tmp/"{wildcards.sample:q}.bam'
        " && bismark_methylation_extractor -s"
        ' --bedGraph --gzip --parallel {threads} {params.extra} -o "$tmp/out"'
        ' "$tmp/"{wildcards.sample:q}.bam > {log:q} 2>&1'
        ' && mv "$tmp/out/"{wildcards.sample:q}.bismark.cov.gz {output.calls:q}'
        ' && mv "$tmp/out/"{wildcards.sample:q}.M-bias.txt {output.mbias:q}'
        ' && mv "$tmp/out/"{wildcards.sample:q}_splitting_report.txt {output.report:q}'
