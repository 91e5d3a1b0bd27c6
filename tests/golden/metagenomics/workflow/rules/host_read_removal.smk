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
        "checks_host_read_removal"
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
        guarded_step="host_read_removal",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule host_read_removal:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        host_index="results/genome_indexing/bowtie2_index",
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        depleted_1=intermediate(
            "results/host_read_removal/{sample}/depleted_1.fastq.gz"
        ),
        depleted_2=intermediate(
            "results/host_read_removal/{sample}/depleted_2.fastq.gz"
        ),
    log:
        "logs/host_read_removal/{sample}.log",
    benchmark:
        "benchmarks/host_read_removal/{sample}.tsv"
    conda:
        "../envs/bowtie2_host_removal.yaml"
    container:
        "docker://quay.io/biocontainers/bowtie2:2.4.4--py39hbb4e92a_0"
    threads: 8
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 240 * attempt,
    params:
        extra=config["params"]["bowtie2_host_removal"]["extra"],
    shell:
        # The bowtie2 wrapper runs `gzip -dc "<reads>"` through a shell (in double quotes, so
        # `$(...)` would run): it reads links with fixed names, never the user's file names.
        "tmp=$(mktemp -d); trap 'rm -rf -- \"$tmp\"' EXIT;"
        ' ln -s "$(readlink -f {input.host_index:q})" "$tmp/index"'
        ' && ln -s "$(readlink -f {input.reads_1:q})" "$tmp/reads_1.fastq.gz"'
        ' && ln -s "$(readlink -f {input.reads_2:q})" "$tmp/reads_2.fastq.gz"'
        ' && bowtie2 --threads {threads} -x "$tmp/index/genome"'
        ' -1 "$tmp/reads_1.fastq.gz" -2 "$tmp/reads_2.fastq.gz" {params.extra}'
        ' --un-conc-gz "$tmp/depleted.%.fastq.gz" -S /dev/null > {log:q} 2>&1'
        ' && mv "$tmp/depleted.1.fastq.gz" {output.depleted_1:q}'
        ' && mv "$tmp/depleted.2.fastq.gz" {output.depleted_2:q}'
