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
        "checks_primer_removal"
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
        guarded_step="primer_removal",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
    script:
        "../scripts/check_paired_mates.py"


rule primer_removal:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        trimmed_1=intermediate("results/primer_removal/{sample}/trimmed_1.fastq.gz"),
        trimmed_2=intermediate("results/primer_removal/{sample}/trimmed_2.fastq.gz"),
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
        ' && ln -s "$(readlink -f {input.reads_1:q})" "$tmp/"{wildcards.sample:q}_1.fastq.gz'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/"{wildcards.sample:q}_2.fastq.gz'
        " && cutadapt --cores {threads} -g {params.primer_fwd:q} -G {params.primer_rev:q}"
        " -e {params.error_rate} --discard-untrimmed {params.extra}"
        " -o {output.trimmed_1:q} -p {output.trimmed_2:q}"
        ' "$tmp/"{wildcards.sample:q}_1.fastq.gz "$tmp/"{wildcards.sample:q}_2.fastq.gz'
        " > {output.report:q} 2> {log:q}"
