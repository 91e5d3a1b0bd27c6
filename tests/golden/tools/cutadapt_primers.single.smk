rule primer_removal:
    input:
        reads=sample_file("fastq"),
    output:
        trimmed=intermediate("results/primer_removal/{sample}/trimmed.fastq.gz"),
        report="results/primer_removal/{sample}/cutadapt_primers.txt",
    log:
        "logs/primer_removal/{sample}.log",
    benchmark:
        "benchmarks/primer_removal/{sample}.tsv"
    conda:
        "../envs/cutadapt_primers.yaml"
    container:
        "docker://quay.io/biocontainers/cutadapt:4.7--py310h4b81fae_1"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 60 * attempt,
    params:
        primer_fwd=config["params"]["cutadapt_primers"]["primer_fwd"],
        primer_rev=config["params"]["cutadapt_primers"]["primer_rev"],
        error_rate=config["params"]["cutadapt_primers"]["error_rate"],
        extra=config["params"]["cutadapt_primers"]["extra"],
    shell:
        # Link the mates under the sample name: MultiQC names the sample after the input file.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT"
        ' && ln -s "$(readlink -f {input.reads:q})" "$tmp/"{wildcards.sample:q}.fastq.gz'
        " && cutadapt --cores {threads} -g {params.primer_fwd:q}"
        " -e {params.error_rate} --discard-untrimmed {params.extra}"
        ' -o {output.trimmed:q} "$tmp/"{wildcards.sample:q}.fastq.gz'
        " > {output.report:q} 2> {log:q}"
