rule read_trimming:
    input:
        reads=sample_file("fastq"),
    output:
        trimmed=intermediate("results/read_trimming/{sample}/trimmed.fastq.gz"),
        report="results/read_trimming/{sample}/trim_galore_report.txt",
    log:
        "logs/read_trimming/{sample}.log",
    benchmark:
        "benchmarks/read_trimming/{sample}.tsv"
    conda:
        "../envs/trimgalore.yaml"
    container:
        "docker://quay.io/biocontainers/trim-galore:0.6.10--hdfd78af_0"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 70 * attempt,
    params:
        quality=config["params"]["trimgalore"]["quality"],
        length=config["params"]["trimgalore"]["length"],
        extra=config["params"]["trimgalore"]["extra"],
    shell:
        # Trim Galore passes file names through a shell: link the reads under the sample name made
        # of safe characters, in a scratch directory with a relative (safe) name.
        "tmp=$(mktemp -d trimgalore.XXXXXX); trap 'rm -rf -- \"$tmp\"' EXIT"
        " && name=$(printf %s {wildcards.sample:q} | tr -c 'A-Za-z0-9._-' _)"
        ' && ln -s "$(readlink -f {input.reads:q})" "$tmp/$name".fastq.gz'
        " && trim_galore --cores {threads} --quality {params.quality} --length {params.length}"
        ' --gzip {params.extra} --basename "$name" -o "$tmp/out"'
        ' "$tmp/$name".fastq.gz > {log:q} 2>&1'
        ' && mv "$tmp/out/$name"_trimmed.fq.gz {output.trimmed:q}'
        ' && cat "$tmp/out/$name".fastq.gz_trimming_report.txt > {output.report:q}'
