rule genome_assembly:
    input:
        reads=sample_file("fastq"),
    output:
        contigs="results/genome_assembly/{sample}/contigs.fa",
    log:
        "logs/genome_assembly/{sample}.log",
    benchmark:
        "benchmarks/genome_assembly/{sample}.tsv"
    conda:
        "../envs/megahit.yaml"
    container:
        "docker://quay.io/biocontainers/megahit:1.2.9--h2e03b76_1"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 16000 * attempt,
        runtime=lambda wildcards, attempt: 720 * attempt,
    params:
        min_contig_len=config["params"]["megahit"]["min_contig_len"],
        presets=config["params"]["megahit"]["presets"],
        extra=config["params"]["megahit"]["extra"],
    shell:
        # MEGAHIT refuses an existing output folder: assemble in a scratch one, keep final.contigs.fa
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        " presets={params.presets:q};"
        " megahit -t {threads} -m $(({resources.mem_mb} * 1048576))"
        " --min-contig-len {params.min_contig_len} ${{presets:+--presets $presets}}"
        " -r {input.reads:q}"
        ' {params.extra} -o "$tmp/megahit" > {log:q} 2>&1'
        ' && cp "$tmp/megahit/final.contigs.fa" {output.contigs:q}'
