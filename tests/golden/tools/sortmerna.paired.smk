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
        "checks_rrna_removal"
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
        guarded_step="rrna_removal",
        datatypes={"reads_1": "raw_reads", "reads_2": "raw_reads"},
        condition_column=config["condition_column"],
    script:
        "../scripts/check_paired_mates.py"


rule rrna_removal:
    input:
        reads_1=sample_file("fastq_1"),
        reads_2=sample_file("fastq_2"),
        database=config["references"]["rrna_database"],
        check_paired_end_reads="results/checks/check_paired_end_reads/{sample}.ok",
    output:
        filtered_1=intermediate("results/rrna_removal/{sample}/filtered_1.fastq.gz"),
        filtered_2=intermediate("results/rrna_removal/{sample}/filtered_2.fastq.gz"),
        log="results/rrna_removal/{sample}/{sample}.sortmerna.log",
    log:
        "logs/rrna_removal/{sample}.log",
    benchmark:
        "benchmarks/rrna_removal/{sample}.tsv"
    conda:
        "../envs/sortmerna.yaml"
    container:
        "docker://community.wave.seqera.io/library/sortmerna:4.3.7--b730cad73fc42b8e"
    threads: 4
    resources:
        mem_mb=lambda wildcards, attempt: 8000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    params:
        extra=config["params"]["sortmerna"]["extra"],
    shell:
        """
        tmp=$(mktemp -d)
        trap 'rm -rf -- "$tmp"' EXIT
        sortmerna --ref {input.database:q} --workdir "$tmp/work" --threads {threads} \\
        --reads {input.reads_1:q} --reads {input.reads_2:q} --paired_in --out2 \\
        --fastx --aligned "$tmp/rRNA_reads" --other "$tmp/non_rRNA_reads" {params.extra} >{log:q} 2>&1
        cp "$tmp/rRNA_reads.log" {output.log:q}
        # SortMeRNA writes .fq.gz for gzipped reads and .fq for plain ones
        gz() {{ if [ -e "$1.fq.gz" ]; then mv "$1.fq.gz" "$2"; else gzip -c "$1.fq" >"$2"; fi; }}
        gz "$tmp/non_rRNA_reads_fwd" {output.filtered_1:q}
        gz "$tmp/non_rRNA_reads_rev" {output.filtered_2:q}
        """
