rule check_paired_end_reads:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
    output:
        ok="results/checks/check_paired_end_reads/{sample}.ok",
    log:
        "logs/checks/check_paired_end_reads/{sample}.log",
    retries: 0
    group:
        "checks_read_trimming"
    conda:
        "../envs/bioplan_checks.yaml"
    container:
        "docker://quay.io/biocontainers/pandas:2.2.1"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 12 * attempt,
    params:
        constraint="paired_end_reads",
        guarded_step="read_trimming",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule read_trimming:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        trimmed_1=intermediate("results/read_trimming/{sample}/trimmed_1.fastq.gz"),
        trimmed_2=intermediate("results/read_trimming/{sample}/trimmed_2.fastq.gz"),
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
        ' && ln -s "$(readlink -f {input.reads_1:q})" "$tmp/$name"_1.fastq.gz'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/$name"_2.fastq.gz'
        " && trim_galore --cores {threads} --paired --quality {params.quality} --length {params.length}"
        ' --gzip {params.extra} --basename "$name" -o "$tmp/out"'
        ' "$tmp/$name"_1.fastq.gz "$tmp/$name"_2.fastq.gz > {log:q} 2>&1'
        ' && mv "$tmp/out/$name"_val_1.fq.gz {output.trimmed_1:q}'
        ' && mv "$tmp/out/$name"_val_2.fq.gz {output.trimmed_2:q}'
        ' && cat "$tmp/out/$name"_1.fastq.gz_trimming_report.txt'
        ' "$tmp/out/$name"_2.fastq.gz_trimming_report.txt > {output.report:q}'
